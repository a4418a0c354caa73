package benchkit

import (
	"context"
	"sync"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/apimachinery/pkg/watch"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestSender sends more events than there are updates, paced and with send
// times, to a handler: the handler gets every event, with a latency for
// each.
func TestSender(t *testing.T) {
	const count = 50
	ups := Metadata.Updates(2, 4)
	sentAt := make([]int64, len(ups))
	h := NewLatencyHandler(sentAt, count)
	h.Expect(count)
	events := make(chan watch.Event) // unbuffered: the sender waits for the handler
	var wg sync.WaitGroup
	wg.Go(func() { // exits when events is closed
		for e := range events {
			h.OnUpdate(nil, e.Object)
		}
	})
	s := &Sender{Events: events, Updates: ups, SentAt: sentAt, Handlers: []*LatencyHandler{h}, Rate: 10_000}
	if sent := s.Send(context.Background(), count); sent != count {
		t.Errorf("sent %d events, want %d", sent, count)
	}
	h.Wait()
	close(events)
	wg.Wait()
	if got := len(h.latencies); got != count {
		t.Errorf("%d latencies, want %d", got, count)
	}
	if p50, p99 := Percentiles([]*LatencyHandler{h}); p50 <= 0 || p99 < p50 {
		t.Errorf("p50 %v, p99 %v: want 0 < p50 <= p99", p50, p99)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if sent := s.Send(ctx, count); sent != 0 {
		t.Errorf("sent %d events after the context ended, want 0", sent)
	}
}
