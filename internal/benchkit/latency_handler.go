package benchkit

import (
	"slices"
	"sync/atomic"
	"time"
)

// clockBase is the time base of Now.
var clockBase = time.Now()

// Now returns the nanoseconds since the process started measuring, on the
// monotonic clock; a [Sender] records it when it sends an update, and a
// [LatencyHandler] when it is called.
func Now() int64 { return int64(time.Since(clockBase)) }

// generationer is the accessor of an update's sequence number; every
// [metav1.Object] has it.
type generationer interface{ GetGeneration() int64 }

// LatencyHandler is an event handler (its methods fit the handler interfaces
// of this library and of client-go) that counts its calls, signals when the
// count reaches a target, and records the latency of updates against the
// time their event was sent. An update's object must be one of
// [Kind.Updates], whose Generation indexes sentAt.
//
// The handler's methods must be called from one goroutine at a time, as an
// informer does; Expect, Calls, Reached and Wait may be called from
// another, and Percentiles once the handler was waited for.
type LatencyHandler struct {
	calls     atomic.Int64
	target    atomic.Int64
	reached   chan struct{} // capacity 1
	sentAt    []int64       // written by the sender before it sends
	latencies []int64       // appended to by the handler's goroutine, up to its capacity
}

// NewLatencyHandler returns a handler that reads send times from sentAt and
// records the latencies of up to samples updates, or no latency when sentAt
// is nil.
func NewLatencyHandler(sentAt []int64, samples int) *LatencyHandler {
	h := &LatencyHandler{reached: make(chan struct{}, 1), sentAt: sentAt}
	if sentAt != nil {
		h.latencies = make([]int64, 0, samples)
	}
	return h
}

// Expect arms the handler to signal once its call count reaches n.
func (h *LatencyHandler) Expect(n int64) {
	h.target.Store(n)
	if h.calls.Load() >= n {
		h.signal()
	}
}

// Calls returns the number of calls so far.
func (h *LatencyHandler) Calls() int64 { return h.calls.Load() }

// Reached returns the channel that receives a value when the count set by
// Expect is reached.
func (h *LatencyHandler) Reached() <-chan struct{} { return h.reached }

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
	if h.sentAt != nil && len(h.latencies) < cap(h.latencies) {
		seq := newObj.(generationer).GetGeneration()
		h.latencies = append(h.latencies, Now()-h.sentAt[seq])
	}
	h.called()
}

// OnDelete counts the call.
func (h *LatencyHandler) OnDelete(any) { h.called() }

// Percentiles returns the p50 and p99 of the latencies of all hs, or zeros
// when none was recorded.
func Percentiles(hs []*LatencyHandler) (p50, p99 time.Duration) {
	var all []int64
	for _, h := range hs {
		all = append(all, h.latencies...)
	}
	if len(all) == 0 {
		return 0, 0
	}
	slices.Sort(all)
	return time.Duration(all[len(all)/2]), time.Duration(all[len(all)*99/100])
}

// TimeBoth waits until a and b are both ready and returns how long after
// began it saw each ready; ok is false if deadline came first. A benchmark
// uses it to time an informer's HasSynced and its handler's last call of
// the initial sync.
func TimeBoth[T any](began time.Time, a, b <-chan struct{}, deadline <-chan T) (ta, tb time.Duration, ok bool) {
	for a != nil || b != nil {
		select {
		case <-a:
			ta, a = time.Since(began), nil
		case <-b:
			tb, b = time.Since(began), nil
		case <-deadline:
			return ta, tb, false
		}
	}
	return ta, tb, true
}
