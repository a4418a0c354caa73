package cache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Notifications about the test object named a, for the tables below.
func nAdd(rv string, initial bool) notification {
	return notification{kind: addNotification, isInInitialList: initial, newObj: pom("a", rv)}
}

func nUpdate(oldRV, newRV string) notification {
	return notification{kind: updateNotification, oldObj: pom("a", oldRV), newObj: pom("a", newRV)}
}

func nDelete(rv string) notification {
	return notification{kind: deleteNotification, oldObj: pom("a", rv)}
}

func nTombstone(rv string) notification {
	return notification{kind: deleteNotification, oldObj: DeletedFinalStateUnknown{Key: "ns/a", Obj: pom("a", rv)}}
}

// describeNotifications describes notifications as the recorder describes
// handler calls.
func describeNotifications(ns []notification) []string {
	var out []string
	for _, n := range ns {
		var e event
		switch n.kind {
		case addNotification:
			e.Kind, e.Initial = "add", n.isInInitialList
			e.Key, e.RV = describeObject(n.newObj)
		case updateNotification:
			e.Kind = "update"
			e.Key, e.RV = describeObject(n.newObj)
			_, e.OldRV = describeObject(n.oldObj)
		case deleteNotification:
			e.Kind = "delete"
			e.Key, e.RV = describeObject(n.oldObj)
		}
		out = append(out, e.String())
	}
	return out
}

// drainBacklog takes every notification of b, refreshing stale entries from
// store, and returns the notifications and the initial adds to finish.
func drainBacklog(b *coalescingBacklog, store map[string]any) ([]notification, int) {
	var out []notification
	finished := 0
	for b.front() != nil {
		if b.front().stale {
			finished += b.refresh(func(key string) (any, bool) {
				obj, ok := store[key]
				return obj, ok
			}, 1)
			continue
		}
		n, f, _ := b.takeFront()
		out = append(out, n)
		finished += f
	}
	return out, finished
}

// takeEntry takes the notifications of b's oldest entry, which is not stale,
// and returns them and the initial adds to finish.
func takeEntry(b *coalescingBacklog) ([]notification, int) {
	var out []notification
	finished := 0
	for e := b.front(); b.front() == e; {
		n, f, _ := b.takeFront()
		out = append(out, n)
		finished += f
	}
	return out, finished
}

func TestCoalescingBacklogMergesPerKey(t *testing.T) {
	tests := []struct {
		name string
		in   []notification
		want []string
		// finished counts the initial adds that are not delivered as
		// such, whether cancelled on add or on emit.
		finished int
	}{
		{name: "latest state of an add wins", in: []notification{nAdd("1", false), nUpdate("1", "2"), nUpdate("2", "3")}, want: []string{"add ns/a@3"}},
		{name: "an initial add stays initial", in: []notification{nAdd("1", true), nUpdate("1", "2")}, want: []string{"add ns/a@2 initial"}},
		{name: "add then delete cancels out", in: []notification{nAdd("1", false), nUpdate("1", "2"), nDelete("2")}},
		{name: "a cancelled initial add counts as handled", in: []notification{nAdd("1", true), nDelete("1")}, finished: 1},
		{name: "a merged update keeps the oldest old object", in: []notification{nUpdate("1", "2"), nUpdate("2", "3"), nUpdate("3", "4")}, want: []string{"update ns/a@4 from 1"}},
		{name: "a resync merges like an update", in: []notification{nUpdate("1", "2"), nUpdate("2", "2")}, want: []string{"update ns/a@2 from 1"}},
		{name: "a lone resync is kept", in: []notification{nUpdate("2", "2")}, want: []string{"update ns/a@2 from 2"}},
		{name: "delete wins over earlier updates", in: []notification{nUpdate("1", "2"), nUpdate("2", "3"), nDelete("3")}, want: []string{"delete ns/a@3"}},
		{name: "a tombstone is kept as it is", in: []notification{nUpdate("1", "2"), nTombstone("2")}, want: []string{"delete tombstone:ns/a@2"}},
		{name: "delete then add stays two", in: []notification{nDelete("1"), nAdd("2", false), nUpdate("2", "3")}, want: []string{"delete ns/a@1", "add ns/a@3"}},
		{name: "update, delete, add", in: []notification{nUpdate("1", "2"), nDelete("2"), nAdd("3", false)}, want: []string{"delete ns/a@2", "add ns/a@3"}},
		{name: "the first delete is reported", in: []notification{nUpdate("1", "2"), nDelete("2"), nAdd("3", false), nDelete("3")}, want: []string{"delete ns/a@2"}},
		{name: "an add after a re-add's delete", in: []notification{nDelete("1"), nAdd("2", false), nDelete("2"), nAdd("3", false)}, want: []string{"delete ns/a@1", "add ns/a@3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b coalescingBacklog
			finished := 0
			for _, n := range tc.in {
				finished += b.add("ns/a", n)
			}
			if got := b.len(); got != len(tc.want) {
				t.Errorf("len = %d, want %d", got, len(tc.want))
			}
			out, f := drainBacklog(&b, nil)
			if diff := cmp.Diff(tc.want, describeNotifications(out)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
			if got := finished + f; got != tc.finished {
				t.Errorf("initial adds finished without a call = %d, want %d", got, tc.finished)
			}
			if b.len() != 0 || len(b.entries) != 0 || b.head != nil || b.tail != nil {
				t.Errorf("drained backlog not empty: len %d, %d entries", b.len(), len(b.entries))
			}
		})
	}
}

func TestCoalescingBacklogResolvesStaleEntriesAgainstTheStore(t *testing.T) {
	tests := []struct {
		name  string
		in    []notification
		store any // the stored object of ns/a, nil for none
		want  []string
	}{
		{name: "changed", in: []notification{nUpdate("1", "2"), nUpdate("2", "3")}, store: pom("a", "5"), want: []string{"update ns/a@5 from 1"}},
		{name: "unchanged since a resync", in: []notification{nUpdate("2", "2")}, store: pom("a", "2"), want: []string{"update ns/a@2 from 2"}},
		{name: "gone", in: []notification{nUpdate("1", "2"), nDelete("2")}, want: []string{"delete tombstone:ns/a@1"}},
		{name: "new", in: []notification{nAdd("1", true), nUpdate("1", "2")}, store: pom("a", "4"), want: []string{"add ns/a@4 initial"}},
		{name: "new and gone", in: []notification{nAdd("1", false)}},
		{name: "deleted first, back", in: []notification{nDelete("1"), nAdd("2", false)}, store: pom("a", "3"), want: []string{"update ns/a@3 from 1"}},
		{name: "deleted as a tombstone without object, back", in: []notification{{kind: deleteNotification, oldObj: DeletedFinalStateUnknown{Key: "ns/a"}}}, store: pom("a", "3"), want: []string{"delete tombstone:ns/a@", "add ns/a@3"}},
		{
			name:  "recreated with another uid",
			in:    []notification{{kind: updateNotification, oldObj: setUID(pom("a", "1"), "u1"), newObj: setUID(pom("a", "2"), "u1")}},
			store: setUID(pom("a", "4"), "u2"),
			want:  []string{"delete tombstone:ns/a@1", "add ns/a@4"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b coalescingBacklog
			b.markStale(nil)
			for _, n := range tc.in {
				b.add("ns/a", n)
			}
			store := map[string]any{}
			if tc.store != nil {
				store["ns/a"] = tc.store
			}
			out, _ := drainBacklog(&b, store)
			if diff := cmp.Diff(tc.want, describeNotifications(out)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
			if b.stale {
				t.Error("the backlog stayed stale after draining")
			}
		})
	}
}

func TestCoalescingBacklogMarkStaleKeepsTheOldestView(t *testing.T) {
	var b coalescingBacklog
	// Entries for b and a, in that order, of which a also has an older
	// notification in the buffer before the backlog.
	b.add("ns/b", notification{kind: updateNotification, oldObj: pom("b", "1"), newObj: pom("b", "2")})
	b.add("ns/a", nUpdate("3", "4"))
	older := []keyedNotification{
		{key: "ns/a", ok: true, n: nUpdate("2", "3")},
		{ok: false, n: nUpdate("9", "9")}, // could not be keyed: kept as it is
		{key: "ns/c", ok: true, n: notification{kind: addNotification, isInInitialList: true, newObj: pom("c", "1")}},
	}
	b.markStale(older)
	b.add("ns/d", notification{kind: addNotification, newObj: pom("d", "1")})
	if got, want := b.len(), 5; got != want {
		t.Errorf("len = %d, want %d", got, want)
	}
	out, finished := drainBacklog(&b, map[string]any{"ns/a": pom("a", "7"), "ns/b": pom("b", "7"), "ns/c": pom("c", "7"), "ns/d": pom("d", "7")})
	want := []string{"update ns/a@7 from 2", "update ns/a@9 from 9", "add ns/c@7 initial", "update ns/b@7 from 1", "add ns/d@7"}
	if diff := cmp.Diff(want, describeNotifications(out)); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	if finished != 0 {
		t.Errorf("initial adds finished without a call = %d, want 0", finished)
	}
}

// naiveBacklog is the model of a coalescingBacklog that is not stale: every
// notification kept, per key, in a list; the keys in the order of their
// oldest pending notification. A key leaves when its notifications add up to
// nothing.
type naiveBacklog struct {
	order   []string
	pending map[string][]notification
}

// add appends n. When its key's notifications cancel out, it returns the
// number of initial adds among them.
func (m *naiveBacklog) add(key string, n notification) (cancelled int) {
	if _, ok := m.pending[key]; !ok {
		m.order = append(m.order, key)
	}
	m.pending[key] = append(m.pending[key], n)
	if len(naiveNet(m.pending[key])) > 0 {
		return 0
	}
	cancelled = naiveInitialAdds(m.pending[key])
	m.order = slices.DeleteFunc(m.order, func(k string) bool { return k == key })
	delete(m.pending, key)
	return cancelled
}

// naiveInitialAdds counts the initial adds of ns.
func naiveInitialAdds(ns []notification) int {
	count := 0
	for _, n := range ns {
		if n.isInitialAdd() {
			count++
		}
	}
	return count
}

// naiveNet spells out the contract of Coalesce: the notifications that take
// a handler from its view before ns to the state after them.
func naiveNet(ns []notification) []notification {
	first, last := ns[0], ns[len(ns)-1]
	hadBefore := first.kind != addNotification
	present := last.kind != deleteNotification
	var firstDelete any
	for _, n := range ns {
		if n.kind == deleteNotification && hadBefore {
			firstDelete = n.oldObj
			break
		}
	}
	initial := slices.ContainsFunc(ns, func(n notification) bool { return n.isInitialAdd() })
	add := notification{kind: addNotification, isInInitialList: initial, newObj: last.newObj}
	switch {
	case !hadBefore && !present:
		return nil
	case !hadBefore:
		return []notification{add}
	case !present:
		return []notification{{kind: deleteNotification, oldObj: firstDelete}}
	case firstDelete != nil:
		return []notification{{kind: deleteNotification, oldObj: firstDelete}, add}
	default:
		return []notification{{kind: updateNotification, oldObj: first.oldObj, newObj: last.newObj}}
	}
}

// testObjects is the state the model tests change: per key, the object or
// nothing, with increasing resource versions.
type testObjects struct {
	rng  *rand.Rand
	objs map[string]any
	rv   int
}

// next returns a notification consistent with the objects so far, for a
// random one of keys objects, and applies it.
func (s *testObjects) next(keys int, initial bool) (string, notification) {
	name := fmt.Sprintf("o%d", s.rng.IntN(keys))
	key := testNamespace + "/" + name
	s.rv++
	cur, ok := s.objs[key]
	var n notification
	switch r := s.rng.IntN(10); {
	case !ok:
		n = notification{kind: addNotification, isInInitialList: initial, newObj: pom(name, fmt.Sprint(s.rv))}
	case r < 5:
		n = notification{kind: updateNotification, oldObj: cur, newObj: pom(name, fmt.Sprint(s.rv))}
	case r < 7:
		n = notification{kind: updateNotification, oldObj: cur, newObj: cur} // resync
	case r < 9:
		n = notification{kind: deleteNotification, oldObj: cur}
	default:
		n = notification{kind: deleteNotification, oldObj: DeletedFinalStateUnknown{Key: key, Obj: cur}}
	}
	if n.kind == deleteNotification {
		delete(s.objs, key)
	} else {
		s.objs[key] = n.newObj
	}
	return key, n
}

func TestCoalescingBacklogAgainstNaiveModel(t *testing.T) {
	for seed := range uint64(200) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 13))
			objs := &testObjects{rng: rng, objs: map[string]any{}}
			keys := 1 + rng.IntN(8)
			var b coalescingBacklog
			m := naiveBacklog{pending: map[string][]notification{}}
			for step := range 300 {
				if rng.IntN(3) > 0 {
					key, n := objs.next(keys, step < 50)
					if got, want := b.add(key, n), m.add(key, n); got != want {
						t.Fatalf("step %d: %s cancelled %d initial adds, want %d", step, key, got, want)
					}
				} else if len(m.order) > 0 {
					key := m.order[0]
					pending := m.pending[key]
					want := naiveNet(pending)
					m.order = m.order[1:]
					delete(m.pending, key)
					if e := b.front(); e == nil || e.key != key {
						t.Fatalf("step %d: the oldest entry is %v, want that of %s", step, e, key)
					}
					got, finished := takeEntry(&b)
					if diff := cmp.Diff(describeNotifications(want), describeNotifications(got)); diff != "" {
						t.Fatalf("step %d: notifications of %s (-want +got):\n%s", step, key, diff)
					}
					if want := naiveInitialAdds(pending) - naiveInitialAdds(want); finished != want {
						t.Fatalf("step %d: %s finished %d initial adds without a call, want %d", step, key, finished, want)
					}
				}
				wantLen := 0
				for _, key := range m.order {
					wantLen += len(naiveNet(m.pending[key]))
				}
				if b.len() != wantLen || len(b.entries) != len(m.order) {
					t.Fatalf("step %d: len %d with %d entries, want %d with %d", step, b.len(), len(b.entries), wantLen, len(m.order))
				}
				if b.len() > 2*keys {
					t.Fatalf("step %d: %d notifications pending for %d keys", step, b.len(), keys)
				}
			}
		})
	}
}

func TestCoalescingBacklogGivesBackItsMapAfterABurst(t *testing.T) {
	tests := []struct {
		name    string
		keys    int
		wantMap bool
	}{
		{name: "small burst: the map is kept", keys: backlogDrainedReset, wantMap: true},
		{name: "large burst: the map is given back", keys: backlogDrainedReset + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b coalescingBacklog
			for i := range tc.keys {
				name := fmt.Sprint(i)
				b.add(name, notification{kind: updateNotification, oldObj: pom(name, "1"), newObj: pom(name, "2")})
			}
			drainBacklog(&b, nil)
			if got := b.entries != nil; got != tc.wantMap {
				t.Errorf("map kept = %v, want %v", got, tc.wantMap)
			}
			// Either way the backlog works on.
			b.add("a", nUpdate("2", "3"))
			if out, _ := drainBacklog(&b, nil); len(out) != 1 {
				t.Errorf("after the burst: %d notifications, want 1", len(out))
			}
		})
	}
}
