package store

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testObj is what the model tests store: tags are its indexed values (with
// duplicates now and then), and an index function fails on it when bad is
// set.
type testObj struct {
	id   int
	tags []string
	bad  bool
}

// The index functions of the tests: "first" yields an object's first tag
// (none without tags), "tags" every tag, "count" the number of tags, and
// "strict" fails on a bad object.
var testIndexFuncs = map[string]IndexFunc{
	"first": func(obj any) ([]string, error) {
		return obj.(*testObj).tags[:min(1, len(obj.(*testObj).tags))], nil
	},
	"tags": func(obj any) ([]string, error) { return obj.(*testObj).tags, nil },
	"count": func(obj any) ([]string, error) {
		return []string{strconv.Itoa(len(obj.(*testObj).tags))}, nil
	},
	"strict": func(obj any) ([]string, error) {
		if obj.(*testObj).bad {
			return nil, errors.New("bad object")
		}
		return []string{"ok"}, nil
	},
}

// contentsModel is the naive reference: a map, and a linear scan for every
// query.
type contentsModel struct {
	items   map[string]*testObj
	indexes map[string]IndexFunc
}

// values returns the set of values of obj in the named index.
func (m *contentsModel) values(name string, obj *testObj) map[string]bool {
	vs, _ := m.indexes[name](obj)
	out := map[string]bool{}
	for _, v := range vs {
		out[v] = true
	}
	return out
}

// storable reports whether no index function fails on obj.
func (m *contentsModel) storable(obj *testObj) bool {
	for _, fn := range m.indexes {
		if _, err := fn(obj); err != nil {
			return false
		}
	}
	return true
}

// inverted returns the named index as the model sees it: each value
// present, with the sorted keys of the objects that have it.
func (m *contentsModel) inverted(name string) map[string][]string {
	out := map[string][]string{}
	for key, obj := range m.items {
		for v := range m.values(name, obj) {
			out[v] = append(out[v], key)
		}
	}
	for _, keys := range out {
		slices.Sort(keys)
	}
	return out
}

// keysWith returns, sorted, the keys that inv, an inverted index, has under
// any of values.
func keysWith(inv map[string][]string, values ...string) []string {
	keys := []string{}
	for _, v := range slices.Compact(sortedCopy(values)) {
		keys = append(keys, inv[v]...)
	}
	return slices.Compact(sortedCopy(keys))
}

// sortedCopy returns s sorted, in a new slice; empty, not nil, for none.
func sortedCopy(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

// contentsGen makes random keys and objects from next.
type contentsGen struct {
	next func(n int) int
	ids  *int
}

func (g contentsGen) key() string { return "ns/" + strconv.Itoa(g.next(40)) }

func (g contentsGen) obj() *testObj {
	*g.ids++
	o := &testObj{id: *g.ids, bad: g.next(12) == 0}
	for range g.next(4) {
		o.tags = append(o.tags, "t"+strconv.Itoa(g.next(6))) // duplicates now and then
	}
	return o
}

// contentsUnderTest holds the contents being checked, which a Build
// replaces.
type contentsUnderTest struct {
	c *Contents
}

// contentsStep applies one random operation to c and to the model.
func contentsStep(t *testing.T, g contentsGen, m *contentsModel, sut *contentsUnderTest) string {
	t.Helper()
	c := sut.c
	switch op := g.next(16); {
	case op < 8:
		key, obj := g.key(), g.obj()
		values, err := c.IndexSet().Compute(key, obj, 0, nil)
		if (err == nil) != m.storable(obj) {
			t.Fatalf("Compute(%q, bad=%v) = %v", key, obj.bad, err)
		}
		if err != nil {
			return fmt.Sprintf("put %s refused", key)
		}
		old, existed := c.Put(key, obj, values)
		want, wantExisted := m.items[key]
		if existed != wantExisted || (existed && old != want) {
			t.Fatalf("Put(%q) = %v, %v; want %v, %v", key, old, existed, want, wantExisted)
		}
		m.items[key] = obj
		return fmt.Sprintf("put %s %v", key, obj.tags)
	case op < 12:
		key := g.key()
		old, existed := c.Delete(key)
		want, wantExisted := m.items[key]
		if existed != wantExisted || (existed && old != want) {
			t.Fatalf("Delete(%q) = %v, %v; want %v, %v", key, old, existed, want, wantExisted)
		}
		delete(m.items, key)
		return "delete " + key
	case op == 12:
		n := g.next(50)
		c.Reserve(n)
		return fmt.Sprintf("reserve %d", n)
	case op == 13 || op == 14:
		// Build new contents from a list with repeated keys, and now and
		// then a nil object.
		var keys []string
		var objs []*testObj
		for range g.next(30) {
			keys = append(keys, g.key())
			if g.next(25) == 0 {
				objs = append(objs, nil)
			} else {
				objs = append(objs, g.obj())
			}
		}
		last := map[string]*testObj{}
		for i, key := range keys {
			last[key] = objs[i]
		}
		wantErr := false
		for _, obj := range last {
			wantErr = wantErr || obj == nil || !m.storable(obj)
		}
		built, err := Build(c.IndexSet(), len(keys), func(yield func(string, any) bool) {
			for i, key := range keys {
				var obj any
				if objs[i] != nil {
					obj = objs[i]
				}
				if !yield(key, obj) {
					return
				}
			}
		})
		if (err != nil) != wantErr {
			t.Fatalf("Build of %d items: error %v, want one: %v", len(keys), err, wantErr)
		}
		if err != nil {
			var nilErr *NilItemError
			if errors.As(err, &nilErr) && (last[nilErr.Key] != nil || !errors.Is(err, ErrNilObject)) {
				t.Fatalf("Build: %v, but the last object of %q is not nil", err, nilErr.Key)
			}
			return fmt.Sprintf("build of %d refused", len(keys))
		}
		sut.c = built
		m.items = last
		return fmt.Sprintf("build of %d", len(keys))
	default:
		// Add a copy of an index under a new name, or try a name in use.
		base := slices.Sorted(maps.Keys(testIndexFuncs))[g.next(len(testIndexFuncs))]
		name := base + strconv.Itoa(g.next(3))
		if g.next(4) == 0 {
			name = slices.Sorted(maps.Keys(m.indexes))[g.next(len(m.indexes))]
		}
		set, err := c.IndexSet().With(map[string]IndexFunc{name: testIndexFuncs[base]})
		if _, used := m.indexes[name]; used != (err != nil) {
			t.Fatalf("With(%q): %v, name in use: %v", name, err, used)
		}
		if err != nil {
			return "add index " + name + " refused"
		}
		wantErr := false
		for _, obj := range m.items {
			_, err := testIndexFuncs[base](obj)
			wantErr = wantErr || err != nil
		}
		if err := c.AddIndexes(set); (err != nil) != wantErr {
			t.Fatalf("AddIndexes(%q): error %v, want one: %v", name, err, wantErr)
		} else if err != nil {
			return "add index " + name + " failed"
		}
		m.indexes[name] = testIndexFuncs[base]
		// Later writes compute with the new set.
		if c.IndexSet() != set {
			t.Fatalf("AddIndexes(%q) did not take the set", name)
		}
		return "add index " + name
	}
}

// contentsCompare checks every query of c against the model, and the
// invariants of the table and the indexes.
func contentsCompare(c *Contents, m *contentsModel) error {
	var errs []error
	diff := func(what string, want, got []string) {
		if !slices.Equal(want, got) {
			errs = append(errs, fmt.Errorf("%s (-want +got):\n%s", what, cmp.Diff(want, got)))
		}
	}
	keyOf := map[*testObj]string{}
	for key, obj := range m.items {
		keyOf[obj] = key
	}
	keysOf := func(objs []any) []string {
		keys := []string{}
		for _, o := range objs {
			key, ok := keyOf[o.(*testObj)]
			if !ok {
				key = fmt.Sprintf("<not stored: %v>", o)
			}
			keys = append(keys, key)
		}
		slices.Sort(keys)
		return keys
	}
	if c.Len() != len(m.items) {
		errs = append(errs, fmt.Errorf("Len() = %d, want %d", c.Len(), len(m.items)))
	}
	wantKeys := slices.Sorted(maps.Keys(m.items))
	if wantKeys == nil {
		wantKeys = []string{}
	}
	diff("Keys", wantKeys, sortedCopy(c.Keys()))
	diff("List", wantKeys, keysOf(c.List()))
	for _, key := range append(wantKeys, "absent") {
		want, wantOK := m.items[key]
		got, ok := c.Get(key)
		if ok != wantOK || (ok && got != want) {
			errs = append(errs, fmt.Errorf("Get(%q) = %v, %v; want %v, %v", key, got, ok, want, wantOK))
		}
		got, ok = c.GetBytes([]byte(key))
		if ok != wantOK || (ok && got != want) {
			errs = append(errs, fmt.Errorf("GetBytes(%q) = %v, %v; want %v, %v", key, got, ok, want, wantOK))
		}
	}
	diff("index names", slices.Sorted(maps.Keys(m.indexes)), slices.Sorted(func(yield func(string) bool) {
		for name := range c.IndexSet().All {
			if !yield(name) {
				return
			}
		}
	}))
	for name := range m.indexes {
		inv := m.inverted(name)
		values := sortedCopy(slices.Collect(maps.Keys(inv)))
		diff("IndexValues("+name+")", values, sortedCopy(c.IndexValues(name)))
		for _, v := range append(values, "absent") {
			keys, err := c.IndexKeys(name, v)
			if err != nil {
				errs = append(errs, err)
			}
			diff(fmt.Sprintf("IndexKeys(%q, %q)", name, v), keysWith(inv, v), keys)
			objs, err := c.ByIndex(name, v)
			if err != nil {
				errs = append(errs, err)
			}
			diff(fmt.Sprintf("ByIndex(%q, %q)", name, v), keysWith(inv, v), keysOf(objs))
		}
		for _, vs := range [][]string{nil, {"t1", "t2", "t1"}, {"0", "1", "absent"}, append(values, values...)} {
			objs, err := c.ByValues(name, vs)
			if err != nil {
				errs = append(errs, err)
			}
			diff(fmt.Sprintf("ByValues(%q, %q)", name, vs), keysWith(inv, vs...), keysOf(objs))
		}
	}
	for _, query := range []func() error{
		func() error { _, err := c.ByIndex("absent-index", "x"); return err },
		func() error { _, err := c.IndexKeys("absent-index", "x"); return err },
		func() error { _, err := c.ByValues("absent-index", []string{"x"}); return err },
		func() error { _, err := c.IndexSet().Values("absent-index", &testObj{}); return err },
	} {
		if err := query(); err == nil || err.Error() != "index with name absent-index does not exist" {
			errs = append(errs, fmt.Errorf("a query of an unknown index: %v", err))
		}
	}
	if vs := c.IndexValues("absent-index"); vs == nil || len(vs) != 0 {
		errs = append(errs, fmt.Errorf("IndexValues of an unknown index = %#v, want empty", vs))
	}
	if err := c.table.check(); err != nil {
		errs = append(errs, err)
	}
	if err := c.index.check(&c.table); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// runContents applies n random operations, from next, to new contents and
// to the model, comparing them after each.
func runContents(t *testing.T, next func(n int) int, n int) {
	initial := map[string]IndexFunc{"first": testIndexFuncs["first"], "tags": testIndexFuncs["tags"]}
	set, err := NewIndexSet(initial)
	if err != nil {
		t.Fatal(err)
	}
	sut := &contentsUnderTest{c: New(set, next(20))}
	m := &contentsModel{items: map[string]*testObj{}, indexes: maps.Clone(initial)}
	g := contentsGen{next: next, ids: new(int)}
	var ops []string
	for range n {
		ops = append(ops, contentsStep(t, g, m, sut))
		if err := contentsCompare(sut.c, m); err != nil {
			t.Fatalf("after %q: %v", ops, err)
		}
	}
}

func TestContentsMatchModel(t *testing.T) {
	for seed := range uint64(16) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0xc0de))
			runContents(t, rng.IntN, 150)
		})
	}
}

func FuzzContents(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func(n int) int {
			if len(data) == 0 {
				return 0
			}
			v := int(data[0]) % n
			data = data[1:]
			return v
		}
		runContents(t, next, len(data)/3)
	})
}

func TestIndexSetWith(t *testing.T) {
	set, err := NewIndexSet(map[string]IndexFunc{"b": testIndexFuncs["tags"], "a": testIndexFuncs["first"]})
	if err != nil {
		t.Fatal(err)
	}
	same, err := set.With(nil)
	if err != nil || same != set {
		t.Errorf("With(nil) = %p, %v; want the set itself", same, err)
	}
	if _, err := set.With(map[string]IndexFunc{"c": nil}); err == nil || err.Error() != `index function "c" is nil` {
		t.Errorf("With a nil function: %v", err)
	}
	if _, err := set.With(map[string]IndexFunc{"b": testIndexFuncs["count"], "a": testIndexFuncs["count"], "z": testIndexFuncs["count"]}); err == nil || err.Error() != "indexer conflict: [a b]" {
		t.Errorf("With names in use: %v", err)
	}
	more, err := set.With(map[string]IndexFunc{"d": testIndexFuncs["count"], "c": testIndexFuncs["strict"]})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range more.All {
		names = append(names, name)
	}
	// The set's own names first, in name order, then the added ones.
	if diff := cmp.Diff([]string{"a", "b", "c", "d"}, names); diff != "" || more.Len() != 4 || set.Len() != 2 {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	values, err := more.Compute("k", &testObj{tags: []string{"x", "y"}}, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"ok"}, {"2"}}, values); diff != "" {
		t.Errorf("Compute from position 2 (-want +got):\n%s", diff)
	}
	_, err = more.Compute("ns/k", &testObj{bad: true}, 0, nil)
	if err == nil || err.Error() != `unable to calculate an index entry for key "ns/k" on index "c": bad object` {
		t.Errorf("Compute of a bad object: %v", err)
	}
}
