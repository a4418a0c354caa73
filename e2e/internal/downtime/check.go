package downtime

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Outcome is what a library promises its handler sees when an informer
// starts again after the downtime, and how many lists it takes.
type Outcome int

const (
	// Relist is a start from nothing: one list of any kind; the handler
	// gets every object of the server once, as an add in the initial list,
	// and nothing else (the changes of the downtime are folded into the
	// list). client-go and informer-go without a snapshot, within the
	// watch window or past it.
	Relist Outcome = iota + 1
	// Resume is a start from the objects held at the stop, with a watch
	// from their resourceVersion: no list; the handler gets every restored
	// object once, as an add in the initial list, then exactly the changes
	// of the downtime, each as its own call in the order they were written
	// (per object): a create as an add outside the initial list, an update
	// as an update from the version before it, a delete as a delete of the
	// object (not a tombstone). informer-go from a snapshot, within the
	// watch window.
	Resume
	// ResumeThenRelist is a start from the objects held at the stop whose
	// watch finds their resourceVersion too old, followed by a relist: one
	// list; the handler gets every restored object once, as an add in the
	// initial list, then the differences as a relist delivers them: one
	// update from the restored version to the server's for every restored
	// object still on the server (from and to the same version when it did
	// not change, as client-go's relists do), one add for every object
	// that was not restored (inside or outside the initial list: that
	// depends on whether the list lands while the restored objects are
	// still being delivered), and one delete (of the object or a
	// tombstone) for every restored object gone from the server.
	// informer-go from a snapshot, past the watch window.
	ResumeThenRelist
)

// String returns the outcome's name.
func (o Outcome) String() string {
	switch o {
	case Relist:
		return "relist"
	case Resume:
		return "resume"
	case ResumeThenRelist:
		return "resume-then-relist"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Lists returns the number of lists of any kind the outcome takes.
func (o Outcome) Lists() int64 {
	if o == Resume {
		return 0
	}
	return 1
}

// Change is one write of the downtime.
type Change struct {
	// Type is Add for a create, Update or Delete.
	Type EventType
	Name string
	// RV is the resourceVersion the write returned; empty for a delete,
	// whose version the typed client does not return.
	RV string
}

// Observation is what a restart produced, for [Check].
type Observation struct {
	// Stopped is the informer's store when it stopped: name →
	// resourceVersion.
	Stopped map[string]string
	// Changes are the writes of the downtime, in the order written.
	Changes []Change
	// Server is the server's objects after the changes.
	Server map[string]string
	// Events are the calls of the restarted informer's handler, in order.
	Events []Event
	// Lists is the number of lists of any kind the restarted informer
	// asked for.
	Lists int64
}

// Check returns an error describing every way in which obs differs from
// outcome: the number of lists, and, object by object, the calls of the
// handler — objects lost (no call), phantom (calls for an object that
// should have none), duplicated (more calls than expected), missing calls
// or calls of the wrong kind, version or flag. It returns nil when they
// match.
func Check(outcome Outcome, obs Observation) error {
	var problems []string
	if obs.Lists != outcome.Lists() {
		problems = append(problems, fmt.Sprintf("%d lists, want %d", obs.Lists, outcome.Lists()))
	}
	want, err := expectedCalls(outcome, obs)
	if err != nil {
		return err
	}
	got := map[string][]Event{}
	for _, e := range obs.Events {
		got[e.Name] = append(got[e.Name], e)
	}
	counts := map[string]int{}
	var details []string
	for _, name := range slices.Sorted(maps.Keys(union(want, got))) {
		w, g := want[name], got[name]
		if matchAll(w, g) {
			continue
		}
		class := classify(len(w), len(g))
		counts[class]++
		details = append(details, fmt.Sprintf("%s %s: want %v, got %v", class, name, w, g))
	}
	for _, class := range slices.Sorted(maps.Keys(counts)) {
		problems = append(problems, fmt.Sprintf("%d objects %s", counts[class], class))
	}
	if len(problems) == 0 {
		return nil
	}
	const maxDetails = 10
	if len(details) > maxDetails {
		details = append(details[:maxDetails], fmt.Sprintf("and %d more", len(details)-maxDetails))
	}
	return fmt.Errorf("handler calls are not a %s (%d calls): %s\n\t%s", outcome, len(obs.Events),
		strings.Join(problems, ", "), strings.Join(details, "\n\t"))
}

// classify names how the calls for one object differ from the expected
// ones.
func classify(want, got int) string {
	switch {
	case got == 0:
		return "lost"
	case want == 0:
		return "phantom"
	case got > want:
		return "duplicated"
	case got < want:
		return "missing calls"
	}
	return "wrong calls"
}

func union[A, B any](a map[string]A, b map[string]B) map[string]struct{} {
	u := make(map[string]struct{}, len(a)+len(b))
	for k := range a {
		u[k] = struct{}{}
	}
	for k := range b {
		u[k] = struct{}{}
	}
	return u
}

// flag is a boolean an expected call requires, forbids or ignores.
type flag int8

const (
	either flag = iota
	yes
	no
)

func (f flag) matches(b bool) bool { return f == either || (f == yes) == b }

// call is one expected handler call; an empty RV or OldRV matches any.
type call struct {
	typ       EventType
	rv, oldRV string
	initial   flag
	tombstone flag
}

func (c call) matches(e Event) bool {
	return c.typ == e.Type &&
		(c.rv == "" || c.rv == e.RV) &&
		(c.oldRV == "" || c.oldRV == e.OldRV) &&
		c.initial.matches(e.Initial) &&
		c.tombstone.matches(e.Tombstone)
}

func (c call) String() string {
	s := string(c.typ)
	switch {
	case c.typ == Update:
		s += " " + c.oldRV + "→" + c.rv
	case c.rv != "":
		s += " @" + c.rv
	}
	switch {
	case c.initial == yes:
		s += " (initial)"
	case c.tombstone == yes:
		s += " (tombstone)"
	}
	return s
}

func matchAll(want []call, got []Event) bool {
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if !want[i].matches(got[i]) {
			return false
		}
	}
	return true
}

// expectedCallCount returns the number of handler calls outcome promises
// for obs (whose Events and Lists are not read).
func expectedCallCount(outcome Outcome, obs Observation) (int, error) {
	want, err := expectedCalls(outcome, obs)
	n := 0
	for _, calls := range want {
		n += len(calls)
	}
	return n, err
}

// expectedCalls returns, by object name, the calls outcome promises for
// obs, in order.
func expectedCalls(outcome Outcome, obs Observation) (map[string][]call, error) {
	want := map[string][]call{}
	switch outcome {
	case Relist:
		for name, rv := range obs.Server {
			want[name] = []call{{typ: Add, rv: rv, initial: yes}}
		}
	case Resume:
		current := maps.Clone(obs.Stopped)
		for name, rv := range obs.Stopped {
			want[name] = []call{{typ: Add, rv: rv, initial: yes}}
		}
		for _, c := range obs.Changes {
			var next call
			switch c.Type {
			case Add:
				next = call{typ: Add, rv: c.RV, initial: no}
				current[c.Name] = c.RV
			case Update:
				next = call{typ: Update, rv: c.RV, oldRV: current[c.Name]}
				current[c.Name] = c.RV
			case Delete:
				next = call{typ: Delete, tombstone: no}
				delete(current, c.Name)
			default:
				return nil, fmt.Errorf("change %+v: unknown type", c)
			}
			want[c.Name] = append(want[c.Name], next)
		}
	case ResumeThenRelist:
		for name, rv := range obs.Stopped {
			calls := []call{{typ: Add, rv: rv, initial: yes}}
			if now, ok := obs.Server[name]; ok {
				calls = append(calls, call{typ: Update, rv: now, oldRV: rv})
			} else {
				calls = append(calls, call{typ: Delete, tombstone: either})
			}
			want[name] = calls
		}
		for name, rv := range obs.Server {
			if _, ok := obs.Stopped[name]; !ok {
				want[name] = []call{{typ: Add, rv: rv, initial: either}}
			}
		}
	default:
		return nil, errors.New("unknown outcome " + outcome.String())
	}
	return want, nil
}
