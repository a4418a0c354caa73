package benchkit

import (
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// clockBase is the time base of Now.
var clockBase = time.Now()

// Now returns the nanoseconds since the process started measuring; senders
// record it in the sentAt slice a LatencyHandler reads.
func Now() int64 { return int64(time.Since(clockBase)) }

// LatencyHandler is an event handler (its methods fit the handler interfaces
// of this library and of client-go) that counts its calls, signals when the
// count reaches a target, and records the latency of every update against
// the time its event was sent. An update's object must be a
// *metav1.PartialObjectMetadata whose Generation indexes sentAt.
//
// The handler's methods must be called from one goroutine at a time, as an
// informer does; Expect, Calls and Wait may be called from another.
type LatencyHandler struct {
	calls     atomic.Int64
	target    atomic.Int64
	reached   chan struct{} // capacity 1
	sentAt    []int64       // written by the sender before it sends
	latencies []int64       // written by the handler's goroutine
}

// NewLatencyHandler returns a handler that reads send times from sentAt,
// or records no latency when sentAt is nil.
func NewLatencyHandler(sentAt []int64) *LatencyHandler {
	return &LatencyHandler{reached: make(chan struct{}, 1), sentAt: sentAt, latencies: make([]int64, len(sentAt))}
}

// Expect arms the handler to signal Wait once its call count reaches n.
func (h *LatencyHandler) Expect(n int64) {
	h.target.Store(n)
	if h.calls.Load() >= n {
		h.signal()
	}
}

// Calls returns the number of calls so far.
func (h *LatencyHandler) Calls() int64 { return h.calls.Load() }

// Wait blocks until the target set by Expect was reached. It has no timeout
// of its own, so that waiting does not allocate; go test's -timeout ends a
// stuck benchmark.
func (h *LatencyHandler) Wait() { <-h.reached }

func (h *LatencyHandler) signal() {
	select {
	case h.reached <- struct{}{}:
	default:
	}
}

func (h *LatencyHandler) called() {
	if h.calls.Add(1) == h.target.Load() {
		h.signal()
	}
}

// OnAdd counts the call.
func (h *LatencyHandler) OnAdd(any, bool) { h.called() }

// OnUpdate records the latency of newObj's event and counts the call.
func (h *LatencyHandler) OnUpdate(_, newObj any) {
	if h.sentAt != nil {
		seq := newObj.(*metav1.PartialObjectMetadata).Generation
		h.latencies[seq] = Now() - h.sentAt[seq]
	}
	h.called()
}

// OnDelete counts the call.
func (h *LatencyHandler) OnDelete(any) { h.called() }
