package shard

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Phase says what a shard stream knows about the state its reader holds.
type Phase int

const (
	// PhaseInitialList: a streaming list before its initial-events-end
	// bookmark; the reader holds a partial state.
	PhaseInitialList Phase = iota
	// PhaseOpaque: a watch from "" or "0" whose synthetic ADDED events
	// carry no usable resourceVersion; it never hands over.
	PhaseOpaque
	// PhaseLive: the reader holds the shard's state at a resourceVersion.
	PhaseLive
)

// StartPhase returns the phase of a watch opened with options: a streaming
// list (SendInitialEvents) starts in PhaseInitialList, a watch from "" or
// "0" in PhaseOpaque, and a watch from a resourceVersion in PhaseLive.
func StartPhase(options metav1.ListOptions) Phase {
	switch {
	case options.SendInitialEvents != nil && *options.SendInitialEvents:
		return PhaseInitialList
	case options.ResourceVersion == "" || options.ResourceVersion == "0":
		return PhaseOpaque
	default:
		return PhaseLive
	}
}

// Stream is the state machine of one sharded watch: the shard its reader
// holds, the phase, and the resourceVersion the reader has reached. It
// decides what happens to each event of the server's watch and whether the
// stream can hand over to another shard. It is not safe for concurrent
// use.
type Stream struct {
	filter Filter
	phase  Phase
	// resourceVersion, in PhaseLive, is the newest resourceVersion the
	// reader has seen all changes of the shard up to.
	resourceVersion string
}

// NewStream returns the state of a watch of held opened with options: in
// the phase [StartPhase] gives, at the watch's resourceVersion when that is
// PhaseLive.
func NewStream(held Set, options metav1.ListOptions) Stream {
	s := Stream{filter: NewFilter(held), phase: StartPhase(options)}
	if s.phase == PhaseLive {
		s.resourceVersion = options.ResourceVersion
	}
	return s
}

// Filter returns the filter of the shard the reader holds.
func (s *Stream) Filter() Filter {
	return s.filter
}

// Phase returns the stream's phase.
func (s *Stream) Phase() Phase {
	return s.phase
}

// ResourceVersion returns, in PhaseLive, the resourceVersion the reader has
// seen every change of its shard up to; "" in the other phases.
func (s *Stream) ResourceVersion() string {
	return s.resourceVersion
}

// CanHandOver reports whether the stream can move its reader to another
// shard at ResourceVersion: only in PhaseLive. Otherwise the reader must
// relist.
func (s *Stream) CanHandOver() bool {
	return s.phase == PhaseLive
}

// Event records ev, an event of the server's watch, and says what to do
// with it. forward is false for an ADDED, MODIFIED or DELETED event whose
// object is outside the shard: the server ignored the selector, and the
// reader must not see it. held is true when ev is the bookmark that ends a
// streaming list's initial events: the reader now holds the shard at
// ResourceVersion. Events whose object is nil or has no metadata are
// forwarded untouched, for the reader to report.
func (s *Stream) Event(ev watch.Event) (forward, held bool) {
	if isNil(ev.Object) {
		return true, false
	}
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted:
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			return true, false
		}
		if s.phase == PhaseLive {
			s.resourceVersion = m.GetResourceVersion()
		}
		return s.filter.Matches(ev.Object), false
	case watch.Bookmark:
		m, err := meta.Accessor(ev.Object)
		if err != nil {
			return true, false
		}
		switch {
		case s.phase == PhaseInitialList && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true":
			s.phase, s.resourceVersion = PhaseLive, m.GetResourceVersion()
			return true, true
		case s.phase == PhaseLive:
			s.resourceVersion = m.GetResourceVersion()
		}
	}
	return true, false
}

// MoveTo records that the reader now holds set, at the same
// resourceVersion: a handover happened. The stream must be in PhaseLive.
func (s *Stream) MoveTo(set Set) {
	s.filter = NewFilter(set)
}
