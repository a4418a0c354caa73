package cache

import (
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2/ktesting"
	testingclock "k8s.io/utils/clock/testing"
)

// TestInformerQueueUsesInformerClock checks that the clock given to a shared
// informer reaches its queue, which times processing with it, in both
// pipelines.
func TestInformerQueueUsesInformerClock(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inOrder bool
	}{
		{name: "DeltaFIFO"},
		{name: "InOrder", inOrder: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := ktesting.NewTestContext(t)
			clk := testingclock.NewFakeClock(time.Now())
			inf := newSharedIndexInformer(nil, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{InOrder: tc.inOrder}, clk)
			ctrl, ok := inf.start(logger)
			if !ok {
				t.Fatal("the informer did not start")
			}
			var got any
			switch q := ctrl.(*controller).config.Queue.(type) {
			case *DeltaFIFO:
				got = q.clock
			case *RealFIFO:
				got = q.clock
			default:
				t.Fatalf("unexpected queue %T", q)
			}
			if got != any(clk) {
				t.Errorf("the queue's clock is %T, not the informer's", got)
			}
		})
	}
}

// TestInformerPipelineStoresQueueKeys checks that the store of an informer
// keeps the key string its queue computed for an object, rather than an
// equal copy, in both pipelines; and that when a transform renames the object
// after the queue keyed it, the store keys it by its new name, as it would
// without the queue's key.
func TestInformerPipelineStoresQueueKeys(t *testing.T) {
	rename := func(obj any) (any, error) {
		o := obj.(*metav1.PartialObjectMetadata).DeepCopy()
		o.Name = "renamed"
		return o, nil
	}
	for _, tc := range []struct {
		name      string
		inOrder   bool
		transform TransformFunc
		wantKey   string
		wantSame  bool // the store holds the queue's string
	}{
		{name: "DeltaFIFO", wantKey: qkey("a"), wantSame: true},
		{name: "InOrder", inOrder: true, wantKey: qkey("a"), wantSame: true},
		{name: "DeltaFIFO/renamed", transform: rename, wantKey: qkey("renamed")},
		{name: "InOrder/renamed", inOrder: true, transform: rename, wantKey: qkey("renamed")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logger, _ := ktesting.NewTestContext(t)
			store := newCache(DeletionHandlingMetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, nil)
			p := newInformerPipeline(pipelineConfig{
				logger:     logger,
				objectType: &metav1.PartialObjectMetadata{},
				clock:      realClock,
				store:      store,
				handler:    ResourceEventHandlerFuncs{},
				transform:  tc.transform,
				inOrder:    tc.inOrder,
			})
			for _, rv := range []string{"1", "2"} { // an add, then an update
				if err := p.queue.Update(qobj("a", rv)); err != nil {
					t.Fatal(err)
				}
				var queued string
				var err error
				switch q := p.queue.(type) {
				case *DeltaFIFO:
					queued = q.queue[0]
				case *RealFIFO:
					queued = q.items[0].key
				}
				if err = p.pop(); err != nil {
					t.Fatal(err)
				}
				keys := store.ListKeys()
				if diff := cmp.Diff([]string{tc.wantKey}, keys); diff != "" {
					t.Fatalf("store keys (-want +got):\n%s", diff)
				}
				if same := unsafe.StringData(keys[0]) == unsafe.StringData(queued); same != tc.wantSame {
					t.Errorf("rv %s: the store holds the queue's key string: %v, want %v", rv, same, tc.wantSame)
				}
			}
		})
	}
}

// newNotingPipeline returns the pipeline of an informer of store whose
// handler calls note with "add", "update" or "delete" and the object.
func newNotingPipeline(t *testing.T, store *cache, inOrder bool, note func(what string, obj any)) informerPipeline {
	logger, _ := ktesting.NewTestContext(t)
	return newInformerPipeline(pipelineConfig{
		logger:     logger,
		objectType: &metav1.PartialObjectMetadata{},
		clock:      realClock,
		store:      store,
		handler: ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { note("add", obj) },
			UpdateFunc: func(_, obj any) { note("update", obj) },
			DeleteFunc: func(obj any) { note("delete", obj) },
		},
		inOrder: inOrder,
	})
}

// TestInformerPipelineRelist checks how each pipeline applies a relist: the
// handler calls, and what the store held at the first of them. A relist that
// finds nothing queued writes the store in one step in both pipelines; the
// DeltaFIFO's, finding a change queued, goes object by object.
func TestInformerPipelineRelist(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inOrder bool
		queued  bool // an update of "a" is queued before the relist
		want    []string
		// wantFirstStore is what the store held at the first handler call.
		wantFirstStore []string
	}{
		{
			name:           "DeltaFIFO",
			want:           []string{"update ns/b", "add ns/c", "delete ns/a"},
			wantFirstStore: []string{qkey("b"), qkey("c")},
		},
		{
			name:           "DeltaFIFO, a change queued",
			queued:         true,
			want:           []string{"update ns/a", "delete ns/a", "update ns/b", "add ns/c"},
			wantFirstStore: []string{qkey("a"), qkey("b")},
		},
		{
			name:           "InOrder",
			inOrder:        true,
			want:           []string{"delete ns/a", "update ns/b", "add ns/c"},
			wantFirstStore: []string{qkey("b"), qkey("c")},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := newCache(DeletionHandlingMetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, nil)
			for _, name := range []string{"a", "b"} {
				if err := store.Add(qobj(name, "1")); err != nil {
					t.Fatal(err)
				}
			}
			var calls []string
			var firstStore []string
			note := func(what string, obj any) {
				if firstStore == nil {
					firstStore = store.ListKeys()
					slices.Sort(firstStore)
				}
				key, _ := DeletionHandlingMetaNamespaceKeyFunc(obj)
				calls = append(calls, what+" "+key)
			}
			p := newNotingPipeline(t, store, tc.inOrder, note)
			if tc.queued {
				if err := p.queue.Update(qobj("a", "2")); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.queue.Replace([]any{qobj("b", "3"), qobj("c", "3")}, "3"); err != nil {
				t.Fatal(err)
			}
			for len(calls) < len(tc.want) {
				if err := p.pop(); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tc.want, calls); diff != "" {
				t.Errorf("handler calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantFirstStore, firstStore); diff != "" {
				t.Errorf("store at the first call (-want +got):\n%s", diff)
			}
		})
	}
}

// TestInformerPipelineFirstListRepeatsKey checks that a first list naming an
// object twice reaches the handler, in both pipelines, as it would key by
// key: the first copy as an add, the second as an update from the first
// (InOrder: two adds, as client-go's atomic replace reports them), and that
// the store keeps the second copy.
func TestInformerPipelineFirstListRepeatsKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		inOrder bool
		want    []string
	}{
		{name: "DeltaFIFO", want: []string{"add ns/a 1", "add ns/b 1", "update ns/a 2"}},
		{name: "InOrder", inOrder: true, want: []string{"add ns/a 1", "add ns/b 1", "add ns/a 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := newCache(DeletionHandlingMetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, nil)
			var calls []string
			note := func(what string, obj any) {
				o := obj.(*metav1.PartialObjectMetadata)
				calls = append(calls, what+" "+o.Namespace+"/"+o.Name+" "+o.ResourceVersion)
			}
			p := newNotingPipeline(t, store, tc.inOrder, note)
			if err := p.queue.Replace([]any{qobj("a", "1"), qobj("b", "1"), qobj("a", "2")}, "2"); err != nil {
				t.Fatal(err)
			}
			if err := p.pop(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, calls); diff != "" {
				t.Errorf("handler calls (-want +got):\n%s", diff)
			}
			got, _, _ := store.GetByKey(qkey("a"))
			if rv := got.(*metav1.PartialObjectMetadata).ResourceVersion; rv != "2" {
				t.Errorf("the store holds a at %s, want the second copy", rv)
			}
		})
	}
}
