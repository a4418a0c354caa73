package downtime

import (
	"strings"
	"testing"
)

// The checks of one scenario: 3 objects on the server before the downtime
// (a, b, c at 1, 2, 3); the downtime updates a, deletes b, creates d and
// updates it.
var (
	stopped = map[string]string{"a": "1", "b": "2", "c": "3"}
	changes = []Change{
		{Type: Update, Name: "a", RV: "10"},
		{Type: Delete, Name: "b"},
		{Type: Add, Name: "d", RV: "12"},
		{Type: Update, Name: "d", RV: "13"},
	}
	server = map[string]string{"a": "10", "c": "3", "d": "13"}
)

func initialAdd(name, rv string) Event { return Event{Type: Add, Name: name, RV: rv, Initial: true} }

func TestCheck(t *testing.T) {
	relisted := []Event{initialAdd("a", "10"), initialAdd("c", "3"), initialAdd("d", "13")}
	resumed := []Event{
		initialAdd("a", "1"), initialAdd("b", "2"), initialAdd("c", "3"),
		{Type: Update, Name: "a", OldRV: "1", RV: "10"},
		{Type: Delete, Name: "b", RV: "11"},
		{Type: Add, Name: "d", RV: "12"},
		{Type: Update, Name: "d", OldRV: "12", RV: "13"},
	}
	resumedThenRelisted := []Event{
		initialAdd("a", "1"), initialAdd("b", "2"), initialAdd("c", "3"),
		{Type: Delete, Name: "b", RV: "2", Tombstone: true},
		{Type: Update, Name: "a", OldRV: "1", RV: "10"},
		{Type: Update, Name: "c", OldRV: "3", RV: "3"},
		{Type: Add, Name: "d", RV: "13"},
	}
	// with replaces the events at the given indexes (a zero Event
	// removes it) and appends extra.
	with := func(events []Event, replace map[int]Event, extra ...Event) []Event {
		var out []Event
		for i, e := range events {
			if r, ok := replace[i]; ok {
				if r == (Event{}) {
					continue
				}
				e = r
			}
			out = append(out, e)
		}
		return append(out, extra...)
	}
	tests := []struct {
		name    string
		outcome Outcome
		events  []Event
		lists   int64
		// want are substrings of the error; none means no error.
		want []string
	}{
		{name: "relist", outcome: Relist, events: relisted, lists: 1},
		{name: "relist in another order", outcome: Relist, events: []Event{relisted[2], relisted[0], relisted[1]}, lists: 1},
		{name: "relist without a list", outcome: Relist, events: relisted, lists: 0, want: []string{"0 lists, want 1"}},
		{name: "relist lost", outcome: Relist, events: relisted[1:], lists: 1, want: []string{"1 objects lost", "lost a:"}},
		{name: "relist phantom", outcome: Relist, events: with(relisted, nil, initialAdd("b", "2")), lists: 1, want: []string{"1 objects phantom", "phantom b"}},
		{name: "relist duplicated", outcome: Relist, events: with(relisted, nil, Event{Type: Update, Name: "c", OldRV: "3", RV: "3"}), lists: 1, want: []string{"1 objects duplicated"}},
		{name: "relist stale", outcome: Relist, events: with(relisted, map[int]Event{0: initialAdd("a", "1")}), lists: 1, want: []string{"1 objects wrong calls"}},
		{name: "relist add outside the initial list", outcome: Relist, events: with(relisted, map[int]Event{1: {Type: Add, Name: "c", RV: "3"}}), lists: 1, want: []string{"wrong calls c"}},

		{name: "resume", outcome: Resume, events: resumed, lists: 0},
		{name: "resume with a list", outcome: Resume, events: resumed, lists: 1, want: []string{"1 lists, want 0"}},
		{name: "resume as a relist", outcome: Resume, events: relisted, lists: 0, want: []string{"1 objects lost", "2 objects missing calls"}},
		{name: "resume lost a change", outcome: Resume, events: with(resumed, map[int]Event{6: {}}), lists: 0, want: []string{"1 objects missing calls", "missing calls d"}},
		{name: "resume duplicated a change", outcome: Resume, events: with(resumed, nil, resumed[3]), lists: 0, want: []string{"1 objects duplicated"}},
		{name: "resume replayed a restored object", outcome: Resume, events: with(resumed, nil, Event{Type: Update, Name: "c", OldRV: "3", RV: "3"}), lists: 0, want: []string{"duplicated c"}},
		{name: "resume out of order", outcome: Resume, events: with(resumed, map[int]Event{5: resumed[6], 6: resumed[5]}), lists: 0, want: []string{"wrong calls d"}},
		{name: "resume update from a wrong version", outcome: Resume, events: with(resumed, map[int]Event{3: {Type: Update, Name: "a", OldRV: "9", RV: "10"}}), lists: 0, want: []string{"wrong calls a"}},
		{name: "resume delete as a tombstone", outcome: Resume, events: with(resumed, map[int]Event{4: {Type: Delete, Name: "b", RV: "2", Tombstone: true}}), lists: 0, want: []string{"wrong calls b"}},
		{name: "resume restored object not initial", outcome: Resume, events: with(resumed, map[int]Event{2: {Type: Add, Name: "c", RV: "3"}}), lists: 0, want: []string{"wrong calls c"}},

		{name: "resume then relist", outcome: ResumeThenRelist, events: resumedThenRelisted, lists: 1},
		{name: "resume then relist, new object in the initial list", outcome: ResumeThenRelist, events: with(resumedThenRelisted, map[int]Event{6: initialAdd("d", "13")}), lists: 1},
		{name: "resume then relist, delete of the object", outcome: ResumeThenRelist, events: with(resumedThenRelisted, map[int]Event{3: {Type: Delete, Name: "b", RV: "2"}}), lists: 1},
		{name: "resume then relist without the update of an unchanged object", outcome: ResumeThenRelist, events: with(resumedThenRelisted, map[int]Event{5: {}}), lists: 1, want: []string{"missing calls c"}},
		{name: "resume then relist, changes replayed", outcome: ResumeThenRelist, events: with(resumedThenRelisted, nil, resumed[6]), lists: 1, want: []string{"duplicated d"}},
		{name: "resume then relist, two lists", outcome: ResumeThenRelist, events: resumedThenRelisted, lists: 2, want: []string{"2 lists, want 1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.outcome, Observation{Stopped: stopped, Changes: changes, Server: server, Events: tc.events, Lists: tc.lists})
			switch {
			case len(tc.want) == 0 && err != nil:
				t.Fatalf("Check: %v", err)
			case len(tc.want) > 0 && err == nil:
				t.Fatalf("Check passed, want an error with %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestApplyMatchesServer(t *testing.T) {
	if diff := diffStates(server, apply(stopped, changes)); diff != "" {
		t.Errorf("apply: %s", diff)
	}
}

func TestRecorderReached(t *testing.T) {
	r := NewRecorder(map[string]string{"a": "2", "b": "1"})
	r.OnAdd(obj("a", "1"), true)
	r.OnAdd(obj("b", "1"), true)
	r.OnAdd(obj("x", "1"), true)
	select {
	case <-r.Reached():
		t.Fatal("reached with a at 1 and x present")
	default:
	}
	r.OnUpdate(obj("a", "1"), obj("a", "2"))
	r.OnDelete(obj("x", "1"))
	select {
	case <-r.Reached():
	default:
		t.Fatal("not reached with the target's view")
	}
	if r.ReachedAt().IsZero() {
		t.Error("ReachedAt is zero once reached")
	}
	if got := len(r.Events()); got != 5 {
		t.Errorf("%d events, want 5", got)
	}

	reached := r.CallsReached(7)
	r.OnUpdate(obj("a", "2"), obj("a", "2"))
	select {
	case <-reached:
		t.Fatal("7 calls reached after 6")
	default:
	}
	r.OnUpdate(obj("b", "1"), obj("b", "1"))
	select {
	case <-reached:
	default:
		t.Fatal("7 calls not reached after 7")
	}
	select {
	case <-r.CallsReached(7):
	default:
		t.Fatal("CallsReached of a count already reached is not closed")
	}
}

func TestExpectedCallCount(t *testing.T) {
	obs := Observation{Stopped: stopped, Changes: changes, Server: server}
	for _, tc := range []struct {
		outcome Outcome
		want    int
	}{{Relist, 3}, {Resume, 7}, {ResumeThenRelist, 7}} {
		got, err := expectedCallCount(tc.outcome, obs)
		if err != nil || got != tc.want {
			t.Errorf("expectedCallCount(%v) = %d, %v; want %d", tc.outcome, got, err, tc.want)
		}
	}
}
