package cache

import (
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
			store := NewIndexer(DeletionHandlingMetaNamespaceKeyFunc, Indexers{NamespaceIndex: MetaNamespaceIndexFunc})
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
					err = q.popKeyed(p.keyed.processKeyed)
				case *RealFIFO:
					queued = q.items[0].key
					err = q.popBatchKeyed(p.keyed.processBatchKeyed, p.keyed.processKeyed)
				}
				if err != nil {
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
