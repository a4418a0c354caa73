package benchkit

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// Sender plays the API server of a watch: it sends Modified events of
// Updates into Events, cycling over them.
//
// Cycling keeps the input small (a benchmark of 200,000 events needs only
// as many distinct updates as it has objects, times two), so that a large
// heap of prepared events does not make the garbage collector run less
// often than it would in a real program.
type Sender struct {
	// Events is the channel of the watch under test.
	Events chan<- watch.Event
	// Updates are the objects sent, in order and cycling; their Generation
	// is their index (see [Kind.Updates]).
	Updates []runtime.Object
	// SentAt, when not nil, has one entry per update and receives the time
	// ([Now]) each update is sent at. Before an update is sent again, the
	// sender waits until every one of Handlers got its previous send, so
	// that its send time is still there to be read.
	SentAt   []int64
	Handlers []*LatencyHandler
	// Rate is the number of events per second; 0 sends as fast as Events
	// takes them.
	Rate int
}

// Send sends count events, or fewer if ctx ends first, and returns how many
// it sent. It blocks while Events is full.
func (s *Sender) Send(ctx context.Context, count int) int {
	var base []int64 // call counts of the handlers before the first send
	if s.SentAt != nil {
		for _, h := range s.Handlers {
			base = append(base, h.Calls())
		}
	}
	start := Now()
	for k := range count {
		if k%64 == 0 && ctx.Err() != nil {
			return k
		}
		if s.Rate > 0 {
			if wait := start + int64(k)*int64(time.Second)/int64(s.Rate) - Now(); wait > 0 {
				time.Sleep(time.Duration(wait))
			}
		}
		u := k % len(s.Updates)
		if s.SentAt != nil {
			if k >= len(s.Updates) {
				s.awaitDelivery(ctx, base, int64(k-len(s.Updates)+1))
			}
			s.SentAt[u] = Now()
		}
		s.Events <- watch.Event{Type: watch.Modified, Object: s.Updates[u]}
	}
	return count
}

// awaitDelivery polls until every handler has got n events since base
// or ctx ends. It only waits when a handler lags a whole cycle behind.
func (s *Sender) awaitDelivery(ctx context.Context, base []int64, n int64) {
	for i, h := range s.Handlers {
		for h.Calls()-base[i] < n && ctx.Err() == nil {
			time.Sleep(50 * time.Microsecond)
		}
	}
}
