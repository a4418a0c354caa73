package conformance

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache"
)

// recorder makes the writes of one scenario and keeps them in order: the
// history its lists and watches are checked against. A cut c, 0 <= c <=
// len(changes), names the state after the first c writes; a read that may
// be served from a watch cache shows the state at some cut, and the
// scenario checks which cuts the apiserver allows (see [recorder.checkList]
// and [stream]).
type recorder struct {
	t       *testing.T
	target  Target
	changes []change
}

// change is one write of the scenario.
type change struct {
	typ watch.EventType // Added, Modified or Deleted
	// obj is the object after the write; for Deleted, its last state with
	// an empty resourceVersion: the writer does not learn the deletion's.
	obj item
	// prev is the object before the write; nil for Added.
	prev *item
}

func (c change) String() string {
	return fmt.Sprintf("%s %s rv=%s labels=%v annotations=%v", c.typ, c.obj.Name, c.obj.RV, c.obj.Labels, c.obj.Annotations)
}

func record(t *testing.T, target Target) *recorder {
	return &recorder{t: t, target: target}
}

// create creates an object and records the write.
func (r *recorder) create(name string, labels map[string]string) item {
	r.t.Helper()
	obj, err := r.target.Create(r.t.Context(), &metav1.ObjectMeta{Name: name, Labels: labels})
	if err != nil {
		r.t.Fatalf("create %s: %v", name, err)
	}
	created := itemOfMeta(obj)
	r.changes = append(r.changes, change{typ: watch.Added, obj: created})
	return created
}

// update replaces the labels and annotations of an object the scenario
// created and records the write.
func (r *recorder) update(name string, labels, annotations map[string]string) item {
	r.t.Helper()
	prev := r.current(name)
	obj, err := r.target.Update(r.t.Context(), &metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations})
	if err != nil {
		r.t.Fatalf("update %s: %v", name, err)
	}
	updated := itemOfMeta(obj)
	r.changes = append(r.changes, change{typ: watch.Modified, obj: updated, prev: &prev})
	return updated
}

// remove deletes an object the scenario created and records the write.
func (r *recorder) remove(name string) {
	r.t.Helper()
	prev := r.current(name)
	if err := r.target.Delete(r.t.Context(), name); err != nil {
		r.t.Fatalf("delete %s: %v", name, err)
	}
	last := prev
	last.RV = ""
	r.changes = append(r.changes, change{typ: watch.Deleted, obj: last, prev: &prev})
}

// current returns the object as the scenario's last write left it.
func (r *recorder) current(name string) item {
	r.t.Helper()
	it, ok := r.stateAt(r.mark())[name]
	if !ok {
		r.t.Fatalf("the scenario wrote no object %s that still exists", name)
	}
	return it
}

// mark returns the cut after every write so far: the oldest state a read
// that starts now may show when it must be current.
func (r *recorder) mark() int {
	return len(r.changes)
}

// after returns the cut right after the write that returned rv: the oldest
// state a read not older than rv may show.
func (r *recorder) after(rv string) int {
	r.t.Helper()
	for i, c := range r.changes {
		if c.obj.RV == rv {
			return i + 1
		}
	}
	r.t.Fatalf("no write of the scenario returned resourceVersion %s", rv)
	return 0
}

// stateAt returns the objects at cut c by name.
func (r *recorder) stateAt(c int) map[string]item {
	state := map[string]item{}
	for _, ch := range r.changes[:c] {
		if ch.typ == watch.Deleted {
			delete(state, ch.obj.Name)
		} else {
			state[ch.obj.Name] = ch.obj
		}
	}
	return state
}

// selectedAt returns the objects at cut c that sel selects, sorted by name.
func (r *recorder) selectedAt(c int, sel matcher) []item {
	var items []item
	for _, it := range r.stateAt(c) {
		if sel(it) {
			items = append(items, it)
		}
	}
	sortItems(items)
	return items
}

// rvFits checks that rv, the resourceVersion of a list or a bookmark that
// shows the state at cut c, lies in that state's span: not older than the
// last write before the cut, older than the first one after it. Where
// resourceVersions are not integers it checks nothing: they are then opaque.
func (r *recorder) rvFits(c int, rv string) error {
	n, ok := rvNumber(rv)
	if !ok {
		return nil
	}
	for i := c - 1; i >= 0; i-- {
		if w, ok := rvNumber(r.changes[i].obj.RV); ok {
			if n < w {
				return fmt.Errorf("resourceVersion %s is older than write %d (%s)", rv, i+1, r.changes[i])
			}
			break
		}
	}
	for i := c; i < len(r.changes); i++ {
		if w, ok := rvNumber(r.changes[i].obj.RV); ok {
			if n >= w {
				return fmt.Errorf("resourceVersion %s is not older than write %d (%s)", rv, i+1, r.changes[i])
			}
			break
		}
	}
	return nil
}

// checkList checks that a list shows the objects sel selects at some cut
// in [from, to] (as a set), with a resourceVersion that fits that cut, and
// returns the cut.
func (r *recorder) checkList(what string, got listResult, sel matcher, from, to int) int {
	r.t.Helper()
	items := slices.Clone(got.Items)
	sortItems(items)
	var reasons []string
	for c := from; c <= to; c++ {
		want := r.selectedAt(c, sel)
		if !itemsEqual(want, items) {
			reasons = append(reasons, fmt.Sprintf("cut %d: want items %+v", c, want))
			continue
		}
		if err := r.rvFits(c, got.RV); err != nil {
			reasons = append(reasons, fmt.Sprintf("cut %d: %v", c, err))
			continue
		}
		return c
	}
	r.t.Errorf("%s: got items %+v at resourceVersion %s, want the state after %d to %d writes\nwrites: %s\n%s",
		what, items, got.RV, from, to, r.formatChanges(), strings.Join(reasons, "\n"))
	return -1
}

// expectedEvents returns the events a watch that selects with sel delivers
// for the writes after cut c: an object entering the selection is ADDED,
// one staying is MODIFIED, one leaving is DELETED with its previous state
// and the write's resourceVersion, a deleted one DELETED with its last
// state and the deletion's (unknown: the event's must only differ from the
// object's last one).
func (r *recorder) expectedEvents(c int, sel matcher) []expectedEvent {
	var events []expectedEvent
	for _, ch := range r.changes[c:] {
		was := ch.prev != nil && sel(*ch.prev)
		is := ch.typ != watch.Deleted && sel(ch.obj)
		switch {
		case is && was:
			events = append(events, expectedEvent{event: event{Type: watch.Modified, item: ch.obj}})
		case is:
			events = append(events, expectedEvent{event: event{Type: watch.Added, item: ch.obj}})
		case was && ch.typ == watch.Deleted:
			events = append(events, expectedEvent{event: event{Type: watch.Deleted, item: ch.obj}, staleRV: ch.prev.RV})
		case was:
			left := *ch.prev
			left.RV = ch.obj.RV
			events = append(events, expectedEvent{event: event{Type: watch.Deleted, item: left}})
		}
	}
	return events
}

func (r *recorder) formatChanges() string {
	var b strings.Builder
	for i, c := range r.changes {
		fmt.Fprintf(&b, "\n  %d: %s", i+1, c)
	}
	return b.String()
}

// expectedEvent is an event a watch must deliver. An empty resourceVersion
// (a deletion's) matches any resourceVersion but staleRV and "".
type expectedEvent struct {
	event
	staleRV string
}

func (e expectedEvent) matches(got event) bool {
	want := e.event
	if want.RV == "" {
		if got.RV == "" || got.RV == e.staleRV {
			return false
		}
		want.RV = got.RV
	}
	return eventsEqual(want, got)
}

func (e expectedEvent) String() string {
	if e.RV == "" {
		return strings.Replace(e.event.String(), "rv=", "rv=(new)", 1)
	}
	return e.event.String()
}

// matcher reports whether a list or watch selects an object.
type matcher func(item) bool

// all selects every object.
func all(item) bool { return true }

// matcherFor returns what the label, field and shard selectors of opts
// select in target's namespace, as apimachinery and this module evaluate
// them: the scenarios derive what a selective read shows from it.
func matcherFor(t *testing.T, target Target, opts metav1.ListOptions) matcher {
	t.Helper()
	labelSel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		t.Fatalf("label selector %q: %v", opts.LabelSelector, err)
	}
	fieldSel, err := fields.ParseSelector(opts.FieldSelector)
	if err != nil {
		t.Fatalf("field selector %q: %v", opts.FieldSelector, err)
	}
	shardSel := sharding.Everything()
	if opts.ShardSelector != "" {
		if shardSel, err = cache.ParseShardSelector(opts.ShardSelector); err != nil {
			t.Fatalf("shard selector %q: %v", opts.ShardSelector, err)
		}
	}
	namespace := target.Namespace()
	return func(it item) bool {
		if !labelSel.Matches(labels.Set(it.Labels)) {
			return false
		}
		if !fieldSel.Matches(fields.Set{"metadata.name": it.Name, "metadata.namespace": namespace}) {
			return false
		}
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: it.Name, Namespace: namespace, UID: it.UID}}
		matches, err := shardSel.Matches(obj)
		return err == nil && matches
	}
}

// rvNumber parses an integer resourceVersion. Both kube-apiserver's and
// the fake's are integers that grow with every write; a server with
// another form makes the scenarios skip the comparisons by value.
func rvNumber(rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}
