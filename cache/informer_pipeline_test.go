package cache

import (
	"testing"
	"time"

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
