package cache

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"

	framework "github.com/informer-go/informer/cache/testing"
)

// memoryModes are the memory options every memory test runs with, beside
// the two queue modes.
var memoryModes = []struct {
	name   string
	memory *MemoryOptions
}{
	{"none", nil},
	{"trim", &MemoryOptions{DropManagedFields: true}},
	{"keep", &MemoryOptions{Keep: []string{"spec.nodeName", "status.phase"}}},
	{"share", &MemoryOptions{Share: true}},
	{"trim+keep+share", &MemoryOptions{DropManagedFields: true, Keep: []string{"spec.nodeName", "status.phase"}, Share: true}},
	{"encode", &MemoryOptions{Encode: true}},
	{"trim+encode", &MemoryOptions{DropManagedFields: true, Encode: true, DecodedCacheSize: 1}},
	{"keep+encode", &MemoryOptions{Keep: []string{"spec.nodeName", "status.phase"}, Encode: true}},
}

// chaosMemoryMode is a memory dimension of the chaos test (TestChaos):
// seed s runs with chaosMemoryModes[s%len], in both pipelines.
type chaosMemoryMode struct {
	name    string
	options *MemoryOptions
}

// chaosMemoryModes are the memory options of the chaos test, for its
// objects, PartialObjectMetadata (Keep keeps metadata whole, but projects:
// the objects are marked).
var chaosMemoryModes = []chaosMemoryMode{
	{"none", nil},
	{"trim", &MemoryOptions{DropManagedFields: true}},
	{"keep", &MemoryOptions{Keep: []string{"metadata.labels"}}},
	{"share", &MemoryOptions{Share: true}},
	{"trim+keep+share", &MemoryOptions{DropManagedFields: true, Keep: []string{"metadata"}, Share: true}},
	{"encode", &MemoryOptions{Encode: true}},
	{"trim+encode", &MemoryOptions{DropManagedFields: true, Encode: true, DecodedCacheSize: 2}},
}

// podLike returns an unstructured Pod of Deployment "web" on node, with
// managedFields and a spec and status the projections of memoryModes
// drop in part.
func podLike(name, node, phase string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Pod",
		"metadata": map[string]any{
			"name":      name,
			"namespace": testNamespace,
			"labels":    map[string]any{"app": "web", "pod-template-hash": "5d8f7c9b4"},
			"managedFields": []any{map[string]any{
				"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
				"fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:metadata": map[string]any{}},
			}},
		},
		"spec": map[string]any{
			"nodeName":   node,
			"containers": []any{map[string]any{"name": "web", "image": "registry.example.com/web:1.2.3"}},
		},
		"status": map[string]any{"phase": phase, "podIP": "10.0.0.1"},
	}}
}

// objectRecorder is a handler that keeps the objects it is handed.
type objectRecorder struct {
	mu      sync.Mutex
	adds    []*unstructured.Unstructured
	updates [][2]*unstructured.Unstructured // old, new
}

func (r *objectRecorder) OnAdd(obj any, _ bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.adds = append(r.adds, obj.(*unstructured.Unstructured))
}

func (r *objectRecorder) OnUpdate(oldObj, newObj any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, [2]*unstructured.Unstructured{oldObj.(*unstructured.Unstructured), newObj.(*unstructured.Unstructured)})
}

func (r *objectRecorder) OnDelete(any) {}

func (r *objectRecorder) counts() (adds, updates int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.adds), len(r.updates)
}

// nodeIndex indexes unstructured Pods by spec.nodeName.
func nodeIndex(obj any) ([]string, error) {
	node, _, _ := unstructured.NestedString(obj.(*unstructured.Unstructured).Object, "spec", "nodeName")
	return []string{node}, nil
}

// TestMemoryModes runs an informer of unstructured Pods in every memory
// mode and both pipelines, with an index, a user transform, a handler, a
// lister and a typed view, and checks what each reader sees.
func TestMemoryModes(t *testing.T) {
	for _, qm := range queueModes {
		for _, mm := range memoryModes {
			t.Run(qm.name+"/"+mm.name, func(t *testing.T) {
				srv := framework.NewServer(framework.Options[*unstructured.Unstructured]{
					GroupVersionKind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
					WatchBufferSize:  1000,
				})
				t.Cleanup(srv.Close)
				for i := range 3 {
					if _, err := srv.Create(podLike(fmt.Sprint("web-", i), fmt.Sprint("node-", i%2), "Pending")); err != nil {
						t.Fatal(err)
					}
				}
				inf := NewSharedIndexInformerWithOptions(srv, &unstructured.Unstructured{}, SharedIndexInformerOptions{
					InOrder:  qm.inOrder,
					Indexers: Indexers{"node": nodeIndex, NamespaceIndex: MetaNamespaceIndexFunc},
					Memory:   mm.memory,
				})
				var sawManagedFields sync.Map
				if err := inf.SetTransform(func(obj any) (any, error) {
					u := obj.(*unstructured.Unstructured)
					if _, ok, _ := unstructured.NestedSlice(u.Object, "metadata", "managedFields"); ok {
						sawManagedFields.Store(u.GetName(), true)
					}
					l := u.GetLabels()
					l["transformed"] = "yes"
					u.SetLabels(l)
					return u, nil
				}); err != nil {
					t.Fatal(err)
				}
				rec := &objectRecorder{}
				if _, err := inf.AddEventHandler(rec); err != nil {
					t.Fatal(err)
				}
				runSharedInformer(t, inf)
				waitForSync(t, inf.HasSyncedChecker())
				if encode := mm.memory != nil && mm.memory.Encode; encode {
					if _, ok := inf.GetIndexer().(*cache).cacheStorage.(*encodedStore); !ok {
						t.Fatal("Encode: the informer's store does not keep its objects encoded")
					}
					a, _, _ := inf.GetIndexer().GetByKey(testNamespace + "/web-0")
					b, _, _ := inf.GetIndexer().GetByKey(testNamespace + "/web-0")
					if a == nil || a == b {
						t.Fatalf("Encode: two reads returned %p and %p, want two objects of the caller's own", a, b)
					}
				}

				obj, err := srv.Get(testNamespace, "web-1")
				if err != nil {
					t.Fatal(err)
				}
				if err := unstructured.SetNestedField(obj.Object, "Running", "status", "phase"); err != nil {
					t.Fatal(err)
				}
				if _, err := srv.Update(obj); err != nil {
					t.Fatal(err)
				}
				waitFor(t, "three adds and an update", func() bool {
					adds, updates := rec.counts()
					return adds == 3 && updates == 1
				})

				trim := mm.memory != nil && mm.memory.DropManagedFields
				keep := mm.memory != nil && len(mm.memory.Keep) > 0
				check := func(where string, u *unstructured.Unstructured, phase string) {
					t.Helper()
					if _, ok := sawManagedFields.Load(u.GetName()); !ok {
						t.Errorf("%s: the user transform did not see managedFields: it must run first", where)
					}
					if got := u.GetLabels()["transformed"]; got != "yes" {
						t.Errorf("%s: label transformed=%q, want the user transform's yes", where, got)
					}
					if _, has, _ := unstructured.NestedSlice(u.Object, "metadata", "managedFields"); has == trim {
						t.Errorf("%s: has managedFields %v, want %v", where, has, !trim)
					}
					if got, _, _ := unstructured.NestedString(u.Object, "status", "phase"); got != phase {
						t.Errorf("%s: status.phase %q, want %q", where, got, phase)
					}
					_, hasIP, _ := unstructured.NestedString(u.Object, "status", "podIP")
					_, hasContainers, _ := unstructured.NestedSlice(u.Object, "spec", "containers")
					if hasIP == keep || hasContainers == keep {
						t.Errorf("%s: podIP kept %v, containers kept %v, want %v", where, hasIP, hasContainers, !keep)
					}
					if IsProjected(u) != keep {
						t.Errorf("%s: IsProjected %v, want %v", where, IsProjected(u), keep)
					}
					if err := CheckWritable(u.DeepCopy()); keep != errors.Is(err, ErrProjected) {
						t.Errorf("%s: CheckWritable of a copy: %v, want ErrProjected %v", where, err, keep)
					}
				}

				// Readers: Get, List, ByIndex, a generic lister, a typed view.
				item, exists, err := inf.GetIndexer().GetByKey(testNamespace + "/web-1")
				if err != nil || !exists {
					t.Fatalf("GetByKey: %v, %v", exists, err)
				}
				check("GetByKey", item.(*unstructured.Unstructured), "Running")
				for _, o := range inf.GetIndexer().List() {
					u := o.(*unstructured.Unstructured)
					check("List "+u.GetName(), u, map[bool]string{true: "Running", false: "Pending"}[u.GetName() == "web-1"])
				}
				onNode0, err := inf.GetIndexer().ByIndex("node", "node-0")
				if err != nil || len(onNode0) != 2 {
					t.Errorf("ByIndex(node, node-0): %d objects, %v; want web-0 and web-2", len(onNode0), err)
				}
				listed, err := NewGenericLister(inf.GetIndexer(), schema.GroupResource{Resource: "pods"}).ByNamespace(testNamespace).List(labels.SelectorFromSet(labels.Set{"app": "web"}))
				if err != nil || len(listed) != 3 {
					t.Errorf("lister: %d objects, %v; want 3", len(listed), err)
				}
				typed := NewTypedSharedIndexInformer[*unstructured.Unstructured](inf)
				byNode, err := typed.GetTypedIndexer().ByTypedIndex("node", "node-1")
				if err != nil || len(byNode) != 1 {
					t.Fatalf("typed ByTypedIndex(node, node-1): %d objects, %v; want web-1", len(byNode), err)
				}
				check("typed", byNode[0], "Running")

				// Handlers: adds, and both sides of the update.
				rec.mu.Lock()
				defer rec.mu.Unlock()
				for _, a := range rec.adds {
					check("add "+a.GetName(), a, "Pending")
				}
				check("update old", rec.updates[0][0], "Pending")
				check("update new", rec.updates[0][1], "Running")

				if mm.memory != nil && mm.memory.Share {
					st := inf.(*sharedIndexInformer).memory.table.Stats()
					if st.Replaced == 0 {
						t.Errorf("Share replaced nothing: %+v", st)
					}
				}
			})
		}
	}
}

// TestMemoryShareStructures checks that typed objects of one informer share
// their equal label maps, in both pipelines.
func TestMemoryShareStructures(t *testing.T) {
	for _, qm := range queueModes {
		t.Run(qm.name, func(t *testing.T) {
			srv := newTestServer(t)
			for i := range 5 {
				o := pom(fmt.Sprint("o", i), "")
				o.Labels = map[string]string{"app": "web", "tier": "frontend"}
				if _, err := srv.Create(o); err != nil {
					t.Fatal(err)
				}
			}
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: qm.inOrder, Memory: &MemoryOptions{Share: true}})
			updates := make(chan [2]*metav1.PartialObjectMetadata, 10)
			if _, err := inf.AddEventHandler(ResourceEventHandlerFuncs{UpdateFunc: func(oldObj, newObj any) {
				updates <- [2]*metav1.PartialObjectMetadata{oldObj.(*metav1.PartialObjectMetadata), newObj.(*metav1.PartialObjectMetadata)}
			}}); err != nil {
				t.Fatal(err)
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())
			// An update hands the handler the old object as it was and the
			// new one with its own labels.
			o4, err := srv.Get(testNamespace, "o4")
			if err != nil {
				t.Fatal(err)
			}
			o4.Labels = map[string]string{"app": "web", "tier": "backend"}
			if _, err := srv.Update(o4); err != nil {
				t.Fatal(err)
			}
			select {
			case u := <-updates:
				if u[0].Labels["tier"] != "frontend" || u[1].Labels["tier"] != "backend" {
					t.Errorf("update from labels %v to %v, want tier frontend to backend", u[0].Labels, u[1].Labels)
				}
			case <-time.After(wait.ForeverTestTimeout):
				t.Fatal("no update")
			}
			maps := map[uintptr]int{}
			for _, o := range inf.GetIndexer().List() {
				p := o.(*metav1.PartialObjectMetadata)
				if p.Labels["app"] != "web" || len(p.Labels) != 2 {
					t.Fatalf("labels of %s: %v", p.Name, p.Labels)
				}
				if p.Labels["tier"] == "frontend" {
					maps[uintptr(reflect.ValueOf(p.Labels).UnsafePointer())]++
				}
			}
			// The first object keeps its own map, so does the second (whose
			// strings become canonical then); the others share one.
			if len(maps) > 3 {
				t.Errorf("4 equal label maps are %d maps, want at most 3", len(maps))
			}
		})
	}
}

// noCodec is a runtime.Object with metadata and no codec.
type noCodec struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (n *noCodec) DeepCopyObject() runtime.Object { c := *n; return &c }

// TestMemoryOptionsValidate is the bad-input table of MemoryOptions.
func TestMemoryOptionsValidate(t *testing.T) {
	pomEx := &metav1.PartialObjectMetadata{}
	for _, tc := range []struct {
		name    string
		example runtime.Object
		opts    *MemoryOptions
		want    string // a substring of the error; empty for none
	}{
		{"nil options", pomEx, nil, ""},
		{"trim", pomEx, &MemoryOptions{DropManagedFields: true}, ""},
		{"keep metadata paths", pomEx, &MemoryOptions{Keep: []string{"metadata.labels"}}, ""},
		{"keep unstructured", &unstructured.Unstructured{}, &MemoryOptions{Keep: []string{"spec.anything"}}, ""},
		{"encode protobuf", pomEx, &MemoryOptions{Encode: true}, ""},
		{"malformed path", pomEx, &MemoryOptions{Keep: []string{"spec..nodeName"}}, "empty segment"},
		{"path with brackets", pomEx, &MemoryOptions{Keep: []string{"spec.containers[0]"}}, "not a field name"},
		{"unknown field", pomEx, &MemoryOptions{Keep: []string{"spec.nodeName"}}, "spec"},
		{"empty path", pomEx, &MemoryOptions{Keep: []string{""}}, "empty path"},
		{"keep on an object without metadata", &metav1.Status{}, &MemoryOptions{Keep: []string{"message"}}, "no object metadata"},
		{"keep without example", nil, &MemoryOptions{Keep: []string{"spec"}}, "example object"},
		{"encode without example", nil, &MemoryOptions{Encode: true}, "example object"},
		{"encode without codec", &noCodec{}, &MemoryOptions{Encode: true}, "no codec"},
		{"negative decoded cache", pomEx, &MemoryOptions{Encode: true, DecodedCacheSize: -1}, "must not be negative"},
		{"decoded cache without encode", pomEx, &MemoryOptions{DecodedCacheSize: 10}, "Encode is false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.Validate(tc.example)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Validate: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Validate: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestMemoryOptionsInvalidAtConstruction checks that the constructors that
// cannot return an error report invalid options and build an informer
// that keeps full objects, and that the factory returns the error.
func TestMemoryOptionsInvalidAtConstruction(t *testing.T) {
	handled := storeHandledErrors(t)

	bad := &MemoryOptions{Keep: []string{"spec.nodeName"}} // PartialObjectMetadata has no spec
	for _, qm := range queueModes {
		t.Run(qm.name, func(t *testing.T) {
			srv := newTestServer(t)
			create(t, srv, "o0")
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: qm.inOrder, Memory: bad})
			if inf.memory != nil {
				t.Fatal("an informer with invalid memory options has a memory mode")
			}
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())
			if n := len(inf.GetIndexer().ListKeys()); n != 1 {
				t.Errorf("%d objects, want 1", n)
			}
			_, ctrl := NewInformerWithOptions(InformerOptions{ListerWatcher: srv, ObjectType: &metav1.PartialObjectMetadata{}, InOrder: qm.inOrder, Memory: bad})
			if ctrl == nil {
				t.Fatal("no controller")
			}
		})
	}
	if reported := handled(); len(reported) < 2*len(queueModes) {
		t.Errorf("%d errors reported, want one per informer: %v", len(reported), reported)
	}

	f := NewInformerFactory(InformerFactoryOptions{Memory: bad})
	defer f.Shutdown()
	if _, err := f.InformerFor(&metav1.PartialObjectMetadata{}, InformerSelection{}, func(InformerSelection) ListerWatcher { return newTestServer(t) }); err == nil || !strings.Contains(err.Error(), "spec") {
		t.Errorf("factory InformerFor with invalid memory options: %v, want an error naming the path", err)
	}
	if _, err := NewInformerFactory(InformerFactoryOptions{Memory: &MemoryOptions{Share: true}}).InformerFor(&metav1.PartialObjectMetadata{}, InformerSelection{}, func(InformerSelection) ListerWatcher { return newTestServer(t) }); err != nil {
		t.Errorf("factory InformerFor with Share: %v", err)
	}
}

// TestMemoryWriteBadInput is the bad-input table of the memory mode's
// write step: it never panics, leaves what it cannot handle alone and
// refuses only an object the projection cannot project.
func TestMemoryWriteBadInput(t *testing.T) {
	all := &MemoryOptions{DropManagedFields: true, Keep: []string{"metadata"}, Share: true}
	mode, err := newMemoryMode(&metav1.PartialObjectMetadata{}, all, true)
	if err != nil {
		t.Fatal(err)
	}
	step := mode.transform(nil, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
	for _, tc := range []struct {
		name    string
		obj     any
		wantErr bool
	}{
		{"nil", nil, false},
		{"nil pointer", (*metav1.PartialObjectMetadata)(nil), false},
		{"no metadata", "a string", true},
		{"wrong type", &unstructured.Unstructured{Object: map[string]any{}}, true},
		{"tombstone", DeletedFinalStateUnknown{Key: "ns/x"}, true},
		{"ok", pom("x", ""), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := step(tc.obj)
			if (err != nil) != tc.wantErr {
				t.Errorf("transform: %v, want an error %v", err, tc.wantErr)
			}
		})
	}
}

// TestMemoryKeepIndexCheck checks that an index reading a field Keep drops
// is reported, once.
func TestMemoryKeepIndexCheck(t *testing.T) {
	handled := storeHandledErrors(t)
	mode, err := newMemoryMode(&unstructured.Unstructured{}, &MemoryOptions{Keep: []string{"status.phase"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	step := mode.transform(nil, Indexers{"node": nodeIndex, NamespaceIndex: MetaNamespaceIndexFunc})
	for i := range 3 {
		if _, err := step(podLike(fmt.Sprint("p", i), "node-1", "Running")); err != nil {
			t.Fatal(err)
		}
	}
	if reported := handled(); len(reported) != 1 || !strings.Contains(reported[0].Error(), `index "node"`) {
		t.Errorf("reported %v, want one error naming the node index", reported)
	}
}
