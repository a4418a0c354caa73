package cache

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type typedPOM = *metav1.PartialObjectMetadata

func TestDeletedObject(t *testing.T) {
	clusterScoped := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "node"}}
	for _, tc := range []struct {
		name    string
		deleted DeletedObject[typedPOM]
		wantKey string
		want    ObjectName
	}{
		{name: "final state", deleted: DeletedObject[typedPOM]{OptionalObj: pom("a", "1")}, wantKey: "ns/a", want: ObjectName{Namespace: "ns", Name: "a"}},
		{name: "cluster-scoped final state", deleted: DeletedObject[typedPOM]{OptionalObj: clusterScoped}, wantKey: "node", want: ObjectName{Name: "node"}},
		{name: "nothing known", deleted: DeletedObject[typedPOM]{}, wantKey: "", want: ObjectName{}},
		{
			name:    "tombstone without object",
			deleted: DeletedObject[typedPOM]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "ns/gone"}},
			wantKey: "ns/gone", want: ObjectName{Namespace: "ns", Name: "gone"},
		},
		{
			name:    "tombstone key wins over a stale object",
			deleted: DeletedObject[typedPOM]{OptionalObj: pom("stale", "1"), FinalStateUnknown: &DeletedFinalStateUnknown{Key: "other/name"}},
			wantKey: "other/name", want: ObjectName{Namespace: "other", Name: "name"},
		},
		{
			name:    "tombstone key without namespace",
			deleted: DeletedObject[typedPOM]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "node"}},
			wantKey: "node", want: ObjectName{Name: "node"},
		},
		{
			name:    "extra slashes stay in the name",
			deleted: DeletedObject[typedPOM]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "ns/a/b"}},
			wantKey: "ns/a/b", want: ObjectName{Namespace: "ns", Name: "a/b"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.deleted.GetKey(); got != tc.wantKey {
				t.Errorf("GetKey() = %q, want %q", got, tc.wantKey)
			}
			if diff := cmp.Diff(tc.want, tc.deleted.GetObjectName()); diff != "" {
				t.Errorf("GetObjectName() (-want +got):\n%s", diff)
			}
			if got := tc.deleted.GetName(); got != tc.want.Name {
				t.Errorf("GetName() = %q, want %q", got, tc.want.Name)
			}
			if got := tc.deleted.GetNamespace(); got != tc.want.Namespace {
				t.Errorf("GetNamespace() = %q, want %q", got, tc.want.Namespace)
			}
		})
	}
}

// typedRecorder records typed calls as strings.
type typedRecorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *typedRecorder) log(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, fmt.Sprintf(format, args...))
}

func (r *typedRecorder) recorded() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

func (r *typedRecorder) OnAdd(obj typedPOM, isInInitialList bool) {
	r.log("add %s initial=%v", obj.Name, isInInitialList)
}

func (r *typedRecorder) OnUpdate(oldObj, newObj typedPOM) {
	r.log("update %s %s->%s", newObj.Name, oldObj.ResourceVersion, newObj.ResourceVersion)
}

func (r *typedRecorder) OnDelete(obj DeletedObject[typedPOM]) {
	r.log("delete key=%s obj=%v tombstone=%v", obj.GetKey(), obj.OptionalObj != nil, obj.FinalStateUnknown != nil)
}

func TestTypedResourceEventHandlerAdapter(t *testing.T) {
	rec := &typedRecorder{}
	h := typedResourceEventHandler[typedPOM]{rec}
	h.OnAdd(pom("a", "1"), true)
	h.OnUpdate(pom("a", "1"), pom("a", "2"))
	h.OnDelete(pom("a", "3"))
	h.OnDelete(DeletedFinalStateUnknown{Key: "ns/b", Obj: pom("b", "1")})
	h.OnDelete(DeletedFinalStateUnknown{Key: "ns/c"})
	// Wrong types are reported, not delivered, except deletions, which keep
	// their key.
	h.OnAdd("not an object", false)
	h.OnUpdate(pom("a", "3"), &metav1.ObjectMeta{Name: "a"})
	h.OnDelete(DeletedFinalStateUnknown{Key: "ns/d", Obj: 42})
	h.OnDelete(&metav1.ObjectMeta{Namespace: "ns", Name: "e"})
	h.OnDelete(42)
	want := []string{
		"add a initial=true",
		"update a 1->2",
		"delete key=ns/a obj=true tombstone=false",
		"delete key=ns/b obj=true tombstone=true",
		"delete key=ns/c obj=false tombstone=true",
		"delete key=ns/d obj=false tombstone=true",
		"delete key=ns/e obj=false tombstone=true",
	}
	if diff := cmp.Diff(want, rec.recorded()); diff != "" {
		t.Errorf("typed calls (-want +got):\n%s", diff)
	}
}

func TestTypedHandlerFuncs(t *testing.T) {
	rec := &typedRecorder{}
	for _, h := range []TypedResourceEventHandler[typedPOM]{
		TypedResourceEventHandlerFuncs[typedPOM]{},
		TypedResourceEventHandlerDetailedFuncs[typedPOM]{},
		TypedFilteringResourceEventHandler[typedPOM]{},
	} {
		// Nil functions and handlers ignore their events.
		h.OnAdd(pom("a", "1"), true)
		h.OnUpdate(pom("a", "1"), pom("a", "2"))
		h.OnDelete(DeletedObject[typedPOM]{})
	}
	funcs := TypedResourceEventHandlerFuncs[typedPOM]{
		AddFunc:    func(obj typedPOM) { rec.log("funcs add %s", obj.Name) },
		UpdateFunc: func(_, obj typedPOM) { rec.log("funcs update %s", obj.Name) },
		DeleteFunc: func(obj DeletedObject[typedPOM]) { rec.log("funcs delete %s", obj.GetName()) },
	}
	detailed := TypedResourceEventHandlerDetailedFuncs[typedPOM]{
		AddFunc:    func(obj typedPOM, initial bool) { rec.log("detailed add %s %v", obj.Name, initial) },
		UpdateFunc: func(_, obj typedPOM) { rec.log("detailed update %s", obj.Name) },
		DeleteFunc: func(obj DeletedObject[typedPOM]) { rec.log("detailed delete %s", obj.GetName()) },
	}
	for _, h := range []TypedResourceEventHandler[typedPOM]{funcs, detailed} {
		h.OnAdd(pom("a", "1"), true)
		h.OnUpdate(pom("a", "1"), pom("a", "2"))
		h.OnDelete(DeletedObject[typedPOM]{OptionalObj: pom("a", "2")})
	}
	want := []string{
		"funcs add a", "funcs update a", "funcs delete a",
		"detailed add a true", "detailed update a", "detailed delete a",
	}
	if diff := cmp.Diff(want, rec.recorded()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestTypedFilteringResourceEventHandler(t *testing.T) {
	matches := func(obj typedPOM) bool { return obj != nil && obj.Labels["match"] == "yes" }
	in := func(name string) typedPOM {
		o := pom(name, "1")
		o.Labels = map[string]string{"match": "yes"}
		return o
	}
	out := func(name string) typedPOM { return pom(name, "1") }
	for _, tc := range []struct {
		name string
		call func(h TypedResourceEventHandler[typedPOM])
		want []string
	}{
		{name: "add in", call: func(h TypedResourceEventHandler[typedPOM]) { h.OnAdd(in("a"), true) }, want: []string{"add a initial=true"}},
		{name: "add out", call: func(h TypedResourceEventHandler[typedPOM]) { h.OnAdd(out("a"), true) }},
		{name: "update in->in", call: func(h TypedResourceEventHandler[typedPOM]) { h.OnUpdate(in("a"), in("a")) }, want: []string{"update a 1->1"}},
		{name: "update out->in", call: func(h TypedResourceEventHandler[typedPOM]) { h.OnUpdate(out("a"), in("a")) }, want: []string{"add a initial=false"}},
		{name: "update in->out", call: func(h TypedResourceEventHandler[typedPOM]) { h.OnUpdate(in("a"), out("a")) }, want: []string{"delete key=ns/a obj=true tombstone=false"}},
		{name: "update out->out", call: func(h TypedResourceEventHandler[typedPOM]) { h.OnUpdate(out("a"), out("a")) }},
		{name: "delete in", call: func(h TypedResourceEventHandler[typedPOM]) { h.OnDelete(DeletedObject[typedPOM]{OptionalObj: in("a")}) }, want: []string{"delete key=ns/a obj=true tombstone=false"}},
		{
			name: "delete without object",
			call: func(h TypedResourceEventHandler[typedPOM]) {
				h.OnDelete(DeletedObject[typedPOM]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: "ns/a"}})
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &typedRecorder{}
			tc.call(TypedFilteringResourceEventHandler[typedPOM]{FilterFunc: matches, Handler: rec})
			if diff := cmp.Diff(tc.want, rec.recorded()); diff != "" {
				t.Errorf("forwarded calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTypedSharedIndexInformer(t *testing.T) {
	srv := newTestServer(t)
	a := create(t, srv, "a")
	a.Labels = map[string]string{"team": "x"}
	a.ResourceVersion = ""
	if _, err := srv.Update(a); err != nil {
		t.Fatal(err)
	}
	create(t, srv, "b")
	inf := NewTypedSharedIndexInformer[typedPOM](newTestInformer(srv, SharedIndexInformerOptions{
		Indexers: TypedIndexersToIndexers(TypedIndexers[typedPOM]{
			"name": func(obj typedPOM) ([]string, error) { return []string{obj.Name}, nil },
		}),
	}))
	rec := &typedRecorder{}
	if _, err := inf.AddTypedEventHandler(rec, HandlerOptions{}, HandlerOptions{}); err == nil {
		t.Error("two HandlerOptions accepted")
	}
	if _, err := inf.AddTypedEventHandler(nil); err == nil {
		t.Error("a nil handler accepted")
	}
	gotDelete := make(chan DeletedObject[typedPOM], 1)
	reg, err := inf.AddTypedEventHandler(rec)
	if err != nil {
		t.Fatal(err)
	}
	funcsReg, err := inf.AddTypedEventHandler(TypedResourceEventHandlerFuncs[typedPOM]{
		DeleteFunc: func(obj DeletedObject[typedPOM]) { gotDelete <- obj },
	})
	if err != nil {
		t.Fatal(err)
	}
	if name := funcsReg.HasSyncedChecker().Name(); strings.Contains(name, "typedResourceEventHandler") || !strings.Contains(name, "TestTypedSharedIndexInformer") {
		t.Errorf("the registration is named %q, not after the typed handler's functions", name)
	}
	if err := inf.AddTypedIndexers(TypedIndexers[typedPOM]{
		"team": func(obj typedPOM) ([]string, error) { return []string{obj.Labels["team"]}, nil },
	}); err != nil {
		t.Fatal(err)
	}
	runSharedInformer(t, inf)
	waitForSync(t, reg.HasSyncedChecker(), funcsReg.HasSyncedChecker())

	remove(t, srv, "b")
	deleted := <-gotDelete
	if deleted.GetKey() != "ns/b" || deleted.OptionalObj == nil || deleted.FinalStateUnknown != nil {
		t.Errorf("delete delivered as %+v", deleted)
	}

	indexer := inf.GetTypedIndexer()
	byTeam, err := indexer.ByTypedIndex("team", "x")
	if err != nil || len(byTeam) != 1 || byTeam[0].Name != "a" {
		t.Errorf("ByTypedIndex(team, x) = %v, %v", byTeam, err)
	}
	byName, err := indexer.TypedIndex("name", pom("a", ""))
	if err != nil || len(byName) != 1 || byName[0].Name != "a" {
		t.Errorf("TypedIndex(name, a) = %v, %v", byName, err)
	}
	if _, err := indexer.ByTypedIndex("missing", "x"); err == nil {
		t.Error("ByTypedIndex of a missing index succeeded")
	}
	if _, err := indexer.TypedIndex("missing", pom("a", "")); err == nil {
		t.Error("TypedIndex of a missing index succeeded")
	}
	if err := indexer.AddTypedIndexers(TypedIndexers[typedPOM]{"late": func(typedPOM) ([]string, error) { return nil, nil }}); err != nil {
		t.Errorf("AddTypedIndexers after start: %v", err)
	}
	waitFor(t, "the typed handler to see the delete", func() bool { return len(rec.recorded()) >= 3 })
	if diff := cmp.Diff([]string{"add a initial=true", "add b initial=true", "delete key=ns/b obj=true tombstone=false"}, sortedFirst(rec.recorded(), 2)); diff != "" {
		t.Errorf("typed calls (-want +got):\n%s", diff)
	}
}

// sortedFirst sorts the first n elements of s in place and returns s.
func sortedFirst(s []string, n int) []string {
	slices.Sort(s[:min(n, len(s))])
	return s
}

func TestTypedIndexerWrongTypes(t *testing.T) {
	indexer := typedIndexer[typedPOM]{NewIndexer(MetaNamespaceKeyFunc, Indexers{
		"all": func(any) ([]string, error) { return []string{"all"}, nil },
	})}
	if err := indexer.Add(&metav1.ObjectMeta{Namespace: "ns", Name: "foreign"}); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.ByTypedIndex("all", "all"); err == nil {
		t.Error("ByTypedIndex returned a foreign object without error")
	}
	if _, err := indexer.TypedIndex("all", pom("a", "")); err == nil {
		t.Error("TypedIndex returned a foreign object without error")
	}

	f := TypedIndexerFuncToIndexerFunc(func(obj typedPOM) ([]string, error) { return []string{obj.Name}, nil })
	if got, err := f(pom("a", "")); err != nil || !cmp.Equal(got, []string{"a"}) {
		t.Errorf("index of a typed object: %v, %v", got, err)
	}
	if _, err := f("foreign"); err == nil {
		t.Error("index of a foreign object succeeded")
	}
	if TypedIndexerFuncToIndexerFunc[typedPOM](nil) != nil {
		t.Error("a nil function did not convert to nil")
	}
	if got := TypedIndexersToIndexers(TypedIndexers[typedPOM]{"a": nil, "b": func(typedPOM) ([]string, error) { return nil, nil }}); len(got) != 2 || got["a"] != nil || got["b"] == nil {
		t.Errorf("TypedIndexersToIndexers() = %v", got)
	}
}

func TestNewTypedSharedIndexInformerNil(t *testing.T) {
	inf := NewTypedSharedIndexInformer[typedPOM](nil)
	if !inf.IsStopped() {
		t.Error("the stand-in for a nil informer is not stopped")
	}
	if _, err := inf.AddTypedEventHandler(&typedRecorder{}); err == nil {
		t.Error("the stand-in for a nil informer accepted a handler")
	}
	inf.Run(make(chan struct{})) // returns at once
}

func TestAddTypedEventHandlerRejectsNilHandlers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler TypedResourceEventHandler[typedPOM]
	}{
		{name: "nil", handler: nil},
		{name: "nil *TypedResourceEventHandlerFuncs", handler: (*TypedResourceEventHandlerFuncs[typedPOM])(nil)},
		{name: "nil *TypedResourceEventHandlerDetailedFuncs", handler: (*TypedResourceEventHandlerDetailedFuncs[typedPOM])(nil)},
		{name: "nil *TypedFilteringResourceEventHandler", handler: (*TypedFilteringResourceEventHandler[typedPOM])(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inf := NewTypedSharedIndexInformer[typedPOM](newTestInformer(newTestServer(t), SharedIndexInformerOptions{}))
			if _, err := inf.AddTypedEventHandler(tc.handler); err == nil {
				t.Error("AddTypedEventHandler() accepted a handler that panics on every call")
			}
		})
	}
}
