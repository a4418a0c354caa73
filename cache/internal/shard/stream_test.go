package shard

import (
	"fmt"
	"math/rand/v2"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

func TestStartPhase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		options metav1.ListOptions
		want    Phase
		wantRV  string
	}{
		{name: "streaming list", options: metav1.ListOptions{SendInitialEvents: ptr.To(true), ResourceVersion: "5"}, want: PhaseInitialList},
		{name: "streaming list from 0", options: metav1.ListOptions{SendInitialEvents: ptr.To(true), ResourceVersion: "0"}, want: PhaseInitialList},
		{name: "watch from nothing", options: metav1.ListOptions{}, want: PhaseOpaque},
		{name: "watch from 0", options: metav1.ListOptions{ResourceVersion: "0", SendInitialEvents: ptr.To(false)}, want: PhaseOpaque},
		{name: "watch from a version", options: metav1.ListOptions{ResourceVersion: "7"}, want: PhaseLive, wantRV: "7"},
		{name: "watch from a version, no initial events", options: metav1.ListOptions{ResourceVersion: "7", SendInitialEvents: ptr.To(false)}, want: PhaseLive, wantRV: "7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StartPhase(tc.options); got != tc.want {
				t.Errorf("StartPhase = %v, want %v", got, tc.want)
			}
			s := NewStream(Set{}, tc.options)
			if s.Phase() != tc.want || s.ResourceVersion() != tc.wantRV || s.CanHandOver() != (tc.want == PhaseLive) {
				t.Errorf("NewStream: phase %v, resourceVersion %q, can hand over %v; want %v, %q", s.Phase(), s.ResourceVersion(), s.CanHandOver(), tc.want, tc.wantRV)
			}
		})
	}
}

// streamEvent is a generated event and what the model knows of it.
type streamEvent struct {
	ev watch.Event
	// meta: the object has metadata; rv its resourceVersion; end: a
	// bookmark marking the end of the initial events; inShard: the
	// object's uid hashes into the lower half of the space.
	meta, end, inShard bool
	rv                 string
}

// lowerHalf is the shard the stream tests hold: hashes below 2^63.
var lowerHalf = Set{Key: KeyUID, Ranges: Ranges{{First: 0, Last: 1<<63 - 1}}}

// genStreamEvent makes a random event from next.
func genStreamEvent(t *testing.T, next func(n int) int, step int) streamEvent {
	rv := fmt.Sprint(100 + step)
	uid := fmt.Sprintf("uid-%d", next(64))
	obj := podWithUID(uid, "ns")
	obj.ResourceVersion = rv
	se := streamEvent{meta: true, rv: rv, inShard: hashOf(t, uid) < 1<<63}
	switch next(9) {
	case 0:
		se.ev = watch.Event{Type: watch.Added, Object: obj}
	case 1:
		se.ev = watch.Event{Type: watch.Modified, Object: obj}
	case 2:
		se.ev = watch.Event{Type: watch.Deleted, Object: obj}
	case 3:
		se.ev, se.inShard = watch.Event{Type: watch.Bookmark, Object: obj}, true
	case 4:
		obj.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
		se.ev, se.end, se.inShard = watch.Event{Type: watch.Bookmark, Object: obj}, true, true
	case 5:
		se.ev, se.meta, se.inShard = watch.Event{Type: watch.Error, Object: &metav1.Status{Status: metav1.StatusFailure}}, false, true
	case 6:
		var nilObj *metav1.PartialObjectMetadata
		se.ev, se.meta, se.inShard = watch.Event{Type: watch.Added, Object: nilObj}, false, true
	case 7:
		se.ev, se.meta, se.inShard = watch.Event{Type: watch.Modified, Object: &runtime.Unknown{}}, false, true
	default:
		se.ev, se.meta, se.inShard = watch.Event{Type: watch.Bookmark}, false, true
	}
	return se
}

// runStream feeds n random events to a stream started in each phase and
// checks every step against the model: an event is dropped only when its
// object is outside the shard, the reader holds the shard only from the
// end bookmark of a streaming list on, an opaque watch never hands over,
// and a live stream's resourceVersion is that of the last event with
// metadata.
func runStream(t *testing.T, next func(n int) int, n int) {
	for _, options := range []metav1.ListOptions{
		{SendInitialEvents: ptr.To(true)},
		{ResourceVersion: "0"},
		{ResourceVersion: "42"},
	} {
		s := NewStream(lowerHalf, options)
		phase, rv := StartPhase(options), s.ResourceVersion()
		for step := range n {
			se := genStreamEvent(t, next, step)
			forward, held := s.Event(se.ev)
			wantHeld := phase == PhaseInitialList && se.end
			if wantHeld {
				phase, rv = PhaseLive, se.rv
			} else if phase == PhaseLive && se.meta {
				rv = se.rv
			}
			if forward != se.inShard || held != wantHeld {
				t.Fatalf("start %+v, step %d: Event(%s %v) = forward %v, held %v; want %v, %v", options, step, se.ev.Type, se.ev.Object, forward, held, se.inShard, wantHeld)
			}
			if s.Phase() != phase || s.ResourceVersion() != rv || s.CanHandOver() != (phase == PhaseLive) {
				t.Fatalf("start %+v, step %d: phase %v at %q, want %v at %q", options, step, s.Phase(), s.ResourceVersion(), phase, rv)
			}
			if !s.Filter().Set().Equal(lowerHalf) {
				t.Fatalf("the stream's shard changed to %v", s.Filter().Set())
			}
		}
	}
}

func TestStreamMatchesModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 13))
		runStream(t, rng.IntN, 200)
	}
}

func FuzzStream(f *testing.F) {
	f.Add([]byte{4, 0, 1, 2, 3, 5, 6, 7, 8})
	f.Add([]byte{0, 0, 3, 4, 4, 2, 1, 33, 17, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		runStream(t, byteSource(data), len(data)/2)
	})
}

func TestStreamMoveTo(t *testing.T) {
	s := NewStream(lowerHalf, metav1.ListOptions{ResourceVersion: "9"})
	upper := Set{Key: KeyUID, Ranges: Ranges{{First: 1 << 63, Last: 1<<64 - 1}}}
	s.MoveTo(upper)
	if !s.Filter().Set().Equal(upper) || s.ResourceVersion() != "9" || s.Phase() != PhaseLive {
		t.Errorf("after MoveTo: shard %v, phase %v at %q", s.Filter().Set(), s.Phase(), s.ResourceVersion())
	}
}
