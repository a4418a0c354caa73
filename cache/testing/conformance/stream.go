package conformance

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// stream is one watch of a scenario, checked against what the apiserver
// promises for its options, whatever state its watch cache is in:
//
//   - A watch with initial events (sendInitialEvents=true, or a watch from
//     "" or "0" without sendInitialEvents) first sends ADDED, in any order,
//     for the selected objects of the state at some cut c — not older than
//     its from (resourceVersion "": every write made before the watch; N:
//     the write that returned N; "0": any), not newer than the writes made
//     before its first event arrived. With sendInitialEvents and
//     allowWatchBookmarks a BOOKMARK annotated k8s.io/initial-events-end
//     follows, at a resourceVersion in the span of c. Then it sends the
//     events of every write after c.
//   - A watch from N without initial events sends the events of every write
//     after the write that returned N, and nothing before.
//
// The events of the writes after c are those of
// [recorder.expectedEvents], exactly once, in order, with increasing
// resourceVersions. Bookmarks come only when allowed; other than the
// initial-events-end one they may come at any time, at a resourceVersion
// not older than what came before and older than what follows.
type stream struct {
	t    *testing.T
	r    *recorder
	w    watch.Interface
	what string
	sel  matcher
	// initial: the watch starts with ADDED events for the state at a cut
	// not older than from; otherwise it starts at cut from exactly.
	initial bool
	from    int
	// startRV is the resourceVersion a watch without initial events starts
	// from: its bookmarks are not older.
	startRV   string
	bookmarks bool
	// wantEnd: the initial-events-end bookmark is due.
	wantEnd bool

	events []event
	// upTo is the number of writes made before the first event arrived, or
	// -1 before it: the initial events cannot show a newer state.
	upTo int
	// view is the selected state as the events received so far show it.
	view   map[string]item
	sawEnd bool
}

// openStream opens a watch with opts; from is the oldest cut its initial
// events may show or, without initial events, the cut it starts at.
func (r *recorder) openStream(opts metav1.ListOptions, from int) (*stream, error) {
	r.t.Helper()
	w, err := r.target.ListerWatcher().WatchWithContext(r.t.Context(), opts)
	if err != nil {
		return nil, err
	}
	r.t.Cleanup(w.Stop)
	s := &stream{
		t:         r.t,
		r:         r,
		w:         w,
		what:      "watch " + describe(opts),
		sel:       matcherFor(r.t, r.target, opts),
		from:      from,
		bookmarks: opts.AllowWatchBookmarks,
		upTo:      -1,
		view:      map[string]item{},
	}
	if opts.SendInitialEvents != nil {
		s.initial = *opts.SendInitialEvents
		s.wantEnd = s.initial && opts.AllowWatchBookmarks
	} else {
		s.initial = opts.ResourceVersion == "" || opts.ResourceVersion == "0"
	}
	if !s.initial {
		s.startRV = opts.ResourceVersion
		for _, it := range r.selectedAt(from, s.sel) {
			s.view[it.Name] = it
		}
	}
	return s, nil
}

// watch opens a watch as [recorder.openStream] does, failing on an error.
func (r *recorder) watch(opts metav1.ListOptions, from int) *stream {
	r.t.Helper()
	s, err := r.openStream(opts, from)
	if err != nil {
		r.t.Fatalf("watch %s: %v", describe(opts), err)
	}
	return s
}

// converge receives events until they show the selected objects as the
// scenario's writes left them and, when due, the initial-events-end
// bookmark came: every write so far has been delivered, for the scenario's
// last write changes what the watch selects. It fails on an ERROR event, a
// closed watch, or no event for [EventTimeout].
func (s *stream) converge() {
	s.t.Helper()
	for !s.converged() {
		timer := time.NewTimer(EventTimeout)
		select {
		case raw, open := <-s.w.ResultChan():
			timer.Stop()
			if !open {
				s.t.Fatalf("%s closed before it delivered every write; events so far: %s\nwrites:%s", s.what, formatEvents(s.events), s.r.formatChanges())
			}
			s.receive(toEvent(s.t, raw))
		case <-timer.C:
			s.t.Fatalf("%s: no event for %v; events so far: %s\nwant the state %+v\nwrites:%s",
				s.what, EventTimeout, formatEvents(s.events), s.r.selectedAt(s.r.mark(), s.sel), s.r.formatChanges())
		}
	}
}

func (s *stream) converged() bool {
	if s.wantEnd && !s.sawEnd {
		return false
	}
	want := s.r.selectedAt(s.r.mark(), s.sel)
	if len(want) != len(s.view) {
		return false
	}
	for _, it := range want {
		if got, ok := s.view[it.Name]; !ok || !itemsEqual([]item{it}, []item{got}) {
			return false
		}
	}
	return true
}

func (s *stream) receive(e event) {
	s.t.Helper()
	if s.upTo < 0 {
		s.upTo = s.r.mark()
	}
	s.events = append(s.events, e)
	switch e.Type {
	case watch.Error:
		s.t.Fatalf("%s failed: %v; events before: %s", s.what, e.Err, formatEvents(s.events[:len(s.events)-1]))
	case watch.Bookmark:
		s.sawEnd = s.sawEnd || isInitialEventsEnd(e)
	case watch.Deleted:
		delete(s.view, e.Name)
	default:
		s.view[e.Name] = e.item
	}
}

// check fails the test unless the events received so far are what the
// watch promises (see [stream]) for some cut, which it returns (-1 on
// failure). Call it after [stream.converge].
func (s *stream) check() int {
	s.t.Helper()
	var problems []string
	ends := 0
	for _, e := range s.events {
		switch {
		case e.Type == watch.Bookmark && !s.bookmarks:
			problems = append(problems, fmt.Sprintf("%v although the watch did not allow bookmarks", e))
		case isInitialEventsEnd(e):
			ends++
		}
	}
	switch {
	case ends > 1:
		problems = append(problems, fmt.Sprintf("%d initial-events-end bookmarks", ends))
	case ends == 1 && !s.initial:
		problems = append(problems, "an initial-events-end bookmark on a watch without initial events")
	case ends == 0 && s.wantEnd:
		problems = append(problems, "no initial-events-end bookmark")
	}
	if len(problems) > 0 {
		s.t.Errorf("%s: %s\nevents: %s", s.what, strings.Join(problems, "; "), formatEvents(s.events))
		return -1
	}
	last := s.from
	if s.initial {
		upTo := s.upTo
		if upTo < 0 {
			upTo = s.r.mark()
		}
		last = max(s.from, upTo)
	}
	var reasons []string
	for c := s.from; c <= last; c++ {
		reason := s.explain(c)
		if reason == "" {
			return c
		}
		reasons = append(reasons, fmt.Sprintf("  cut %d: %s", c, reason))
	}
	s.t.Errorf("%s: the events are not those of a state after %d to %d writes and the writes after it\nevents: %s\nwrites:%s\n%s",
		s.what, s.from, last, formatEvents(s.events), s.r.formatChanges(), strings.Join(reasons, "\n"))
	return -1
}

// explain returns why the events are not those of cut c, or "".
func (s *stream) explain(c int) string {
	live := s.events
	prevRV := s.startRV
	if s.initial {
		want := s.r.selectedAt(c, s.sel)
		var initial []item
		end := -1
		for i, e := range s.events {
			if isInitialEventsEnd(e) {
				end = i
				break
			}
		}
		var rest []event
		for i, e := range s.events {
			switch {
			case end >= 0 && i > end, end < 0 && len(initial) == len(want):
				rest = append(rest, e)
			case e.Type == watch.Bookmark:
			case e.Type != watch.Added:
				return fmt.Sprintf("%v among the initial events", e)
			default:
				initial = append(initial, e.item)
			}
		}
		sortItems(initial)
		if !itemsEqual(want, initial) {
			return fmt.Sprintf("initial events show %+v, want %+v", initial, want)
		}
		if end >= 0 {
			if err := s.r.rvFits(c, s.events[end].RV); err != nil {
				return fmt.Sprintf("initial-events-end bookmark: %v", err)
			}
			prevRV = s.events[end].RV
		}
		live = rest
	}
	want := s.r.expectedEvents(c, s.sel)
	var got []event
	for _, e := range live {
		if err := rvAfter(e, prevRV); err != nil {
			return err.Error()
		}
		prevRV = e.RV
		if e.Type != watch.Bookmark {
			got = append(got, e)
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("got %s after the initial events, want %s", formatEvents(got), formatEvents(want))
	}
	for i := range want {
		if !want[i].matches(got[i]) {
			return fmt.Sprintf("got %s after the initial events, want %s", formatEvents(got), formatEvents(want))
		}
	}
	return ""
}

// rvAfter checks that e's resourceVersion is not older than prev (for a
// bookmark) or newer (for any other event), where both are integers.
func rvAfter(e event, prev string) error {
	n, ok := rvNumber(e.RV)
	p, prevOK := rvNumber(prev)
	switch {
	case !ok || !prevOK:
		return nil
	case e.Type == watch.Bookmark && n < p:
		return fmt.Errorf("%v is older than resourceVersion %s before it", e, prev)
	case e.Type != watch.Bookmark && n <= p:
		return fmt.Errorf("%v is not newer than resourceVersion %s before it", e, prev)
	}
	return nil
}

// stop ends the watch.
func (s *stream) stop() {
	s.w.Stop()
}
