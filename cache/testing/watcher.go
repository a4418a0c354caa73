package framework

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// preTimeoutBookmark is how long before its timeout a watch that allows
// bookmarks gets one, as from the apiserver's cache watchers.
const preTimeoutBookmark = 2 * time.Second

// delivery is one event queued for a stream.
type delivery struct {
	typ watch.EventType
	// obj is shared with the server's state and never mutated; the client
	// receives a deep copy.
	obj runtime.Object
	// stampRV, when non-zero, is set as the resourceVersion of the copy (a
	// DELETED event for an object that left the selector carries the
	// previous state with the event's resourceVersion).
	stampRV uint64
}

// event returns the watch event the client receives: a deep copy.
func (d delivery) event() watch.Event {
	obj := d.obj.DeepCopyObject()
	if d.stampRV != 0 {
		if accessor, err := meta.Accessor(obj); err == nil {
			accessor.SetResourceVersion(formatRV(d.stampRV))
		}
	}
	return watch.Event{Type: d.typ, Object: obj}
}

// WatchStream is the server side of one open watch, and the watch.Interface
// its client holds. Besides ResultChan and Stop it lets a test inspect the
// request and inject faults into this one stream. All methods are safe for
// concurrent use.
//
// Events reach the client in resourceVersion order through an unbuffered
// result channel fed by one goroutine. Live events wait in a buffer of
// [Options.WatchBufferSize] events while the client does not receive; when
// one more arrives the server closes the stream, as the apiserver closes a
// cache watcher that cannot keep up, dropping what was buffered. The client
// then sees its result channel closed without an error and must resume from
// the last resourceVersion it received.
type WatchStream struct {
	id        uint64
	namespace string
	options   metav1.ListOptions
	filter    filter
	// bookmarks reports whether the client allows BOOKMARK events.
	bookmarks        bool
	bookmarkInterval time.Duration
	bufferSize       int
	timeout          time.Duration
	clock            clock.Clock
	logger           klog.Logger
	// onBookmark queues a periodic bookmark through the server, which holds
	// its lock so that no older event can be queued after it.
	onBookmark func(*WatchStream)
	// onExit unregisters the stream from the server.
	onExit func(*WatchStream)

	result   chan watch.Event
	wake     chan struct{} // capacity 1: something was queued or thawed
	stopCh   chan struct{} // closed once by stop
	stopOnce sync.Once
	done     chan struct{} // closed when the goroutine has exited

	mu sync.Mutex
	// initial holds the events sent before any live one: synthetic ADDED
	// events and the initial-events-end bookmark, replayed history, or a
	// single ERROR. They do not count against the buffer. Guarded by mu.
	initial []delivery
	// queue holds live events, at most bufferSize. Guarded by mu.
	queue []delivery
	// finishAfterInitial closes the stream once initial is sent (a stream
	// that only reports an error). Guarded by mu.
	finishAfterInitial bool
	// startRV: only events and bookmarks with a newer resourceVersion are
	// sent live. Guarded by mu.
	startRV  uint64
	frozen   bool // guarded by mu
	dropNext int  // guarded by mu
	stopped  bool // guarded by mu
}

var _ watch.Interface = (*WatchStream)(nil)

// ResultChan returns the channel the events arrive on. It is closed when the
// stream ends: after Stop, a server-side close, a timeout, a cancelled
// request context, or an overflowing buffer.
func (w *WatchStream) ResultChan() <-chan watch.Event {
	return w.result
}

// Stop ends the stream, from either side: the client stopping its watch or
// the server closing it. Undelivered events are dropped and the result
// channel is closed shortly after. It does not block and is idempotent.
func (w *WatchStream) Stop() {
	w.stop()
}

// Done returns a channel closed once the stream has ended and its result
// channel is closed.
func (w *WatchStream) Done() <-chan struct{} {
	return w.done
}

// Namespace returns the namespace the stream watches; "" means all.
func (w *WatchStream) Namespace() string {
	return w.namespace
}

// Options returns a copy of the options the watch was opened with, as the
// client sent them.
func (w *WatchStream) Options() metav1.ListOptions {
	return *w.options.DeepCopy()
}

// Freeze makes the stream silent while it stays open, like a connection that
// hangs: nothing is sent until [WatchStream.Thaw]. Live events keep being
// buffered, so a frozen stream is closed once its buffer overflows, and a
// timeout still closes it.
func (w *WatchStream) Freeze() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.frozen = true
}

// Thaw resumes sending after [WatchStream.Freeze].
func (w *WatchStream) Thaw() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.frozen = false
	w.signalLocked()
}

// DropNextEvents makes the stream silently lose the next n live object
// events it would deliver (bookmarks are not counted), like a proxy that
// loses messages. n <= 0 cancels a pending drop.
func (w *WatchStream) DropNextEvents(n int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.dropNext = max(n, 0)
}

// Fail ends the stream with an error found after the watch was accepted, as
// the apiserver does when, say, its watch cache can no longer serve the
// stream's resourceVersion: the events already queued are sent, then one
// ERROR event carrying err's status (a 500 Internal Error if err has none,
// as for [Server.FailNextWatchStreams]), then the result channel closes.
// Later changes are not sent. A frozen stream sends all of it once thawed.
// It does nothing on a stream that has ended or was failed already.
func (w *WatchStream) Fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.finishAfterInitial {
		return
	}
	w.initial = append(append(w.initial, w.queue...), errorDelivery(err))
	w.queue = nil
	w.finishAfterInitial = true
	w.signalLocked()
}

// stop closes stopCh once; the goroutine then exits.
func (w *WatchStream) stop() {
	w.stopOnce.Do(func() {
		w.mu.Lock()
		w.stopped = true
		w.initial, w.queue = nil, nil
		w.mu.Unlock()
		close(w.stopCh)
	})
}

// terminate is a server-side close.
func (w *WatchStream) terminate() {
	w.stop()
}

func (w *WatchStream) signalLocked() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// offer queues the live event for c if the stream's filter passes it. It
// reports false if the buffer is full; the caller then closes the stream.
// The server calls it with its lock held, in resourceVersion order.
func (w *WatchStream) offer(c change) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.finishAfterInitial || c.rv <= w.startRV {
		return true
	}
	d, ok := convertChange(c, w.filter)
	if !ok {
		return true
	}
	if w.dropNext > 0 {
		w.dropNext--
		return true
	}
	if len(w.queue) >= w.bufferSize {
		return false
	}
	w.queue = append(w.queue, d)
	w.signalLocked()
	return true
}

// offerBookmark queues a BOOKMARK at rv unless the stream already started at
// or after rv or its buffer is full: bookmarks never close a stream. The
// server calls it with its lock held.
func (w *WatchStream) offerBookmark(obj runtime.Object, rv uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped || w.finishAfterInitial || rv <= w.startRV || len(w.queue) >= w.bufferSize {
		return
	}
	w.queue = append(w.queue, delivery{typ: watch.Bookmark, obj: obj})
	w.signalLocked()
}

// next returns the next event to send, if any, and whether the stream has
// nothing more to send ever.
func (w *WatchStream) next() (d delivery, ok, finished bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.frozen {
		return delivery{}, false, false
	}
	if len(w.initial) > 0 {
		d = w.initial[0]
		w.initial[0] = delivery{}
		w.initial = w.initial[1:]
		return d, true, false
	}
	if w.finishAfterInitial {
		return delivery{}, false, true
	}
	if len(w.queue) > 0 {
		d = w.queue[0]
		w.queue[0] = delivery{}
		w.queue = w.queue[1:]
		return d, true, false
	}
	return delivery{}, false, false
}

// run feeds the result channel until the stream ends. The server starts it
// (tracked by its WaitGroup); it exits on stop, ctx cancellation, the
// timeout, or after the last event of an error stream.
func (w *WatchStream) run(ctx context.Context) {
	defer utilruntime.HandleCrashWithLogger(w.logger)
	defer close(w.done)
	defer close(w.result)
	defer w.onExit(w)

	var timeoutC <-chan time.Time
	start := w.clock.Now()
	if w.timeout > 0 {
		timer := w.clock.NewTimer(w.timeout)
		defer timer.Stop()
		timeoutC = timer.C()
	}
	var bookmarkTimer clock.Timer
	var bookmarkC <-chan time.Time
	if w.bookmarks {
		if delay, ok := w.nextBookmarkDelay(start, w.clock.Now()); ok {
			bookmarkTimer = w.clock.NewTimer(delay)
			defer bookmarkTimer.Stop()
			bookmarkC = bookmarkTimer.C()
		}
	}

	for {
		select {
		case <-w.stopCh:
			return
		default:
		}
		d, ok, finished := w.next()
		if finished {
			return
		}
		if ok {
			select {
			case w.result <- d.event():
				continue
			case <-w.stopCh:
				return
			case <-ctx.Done():
				return
			case <-timeoutC:
				w.logger.V(4).Info("Watch timed out", "watch", w.id)
				return
			}
		}
		select {
		case <-w.wake:
		case <-w.stopCh:
			return
		case <-ctx.Done():
			return
		case <-timeoutC:
			w.logger.V(4).Info("Watch timed out", "watch", w.id)
			return
		case <-bookmarkC:
			w.onBookmark(w)
			if delay, ok := w.nextBookmarkDelay(start, w.clock.Now()); ok {
				bookmarkTimer.Reset(delay)
			} else {
				bookmarkC = nil
			}
		}
	}
}

// nextBookmarkDelay returns when the next periodic bookmark is due: one
// interval from now, or 2s before the timeout if that is sooner; none once
// that moment has passed.
func (w *WatchStream) nextBookmarkDelay(start, now time.Time) (time.Duration, bool) {
	delay := w.bookmarkInterval
	if w.timeout > 0 {
		preTimeout := start.Add(w.timeout - preTimeoutBookmark).Sub(now)
		if preTimeout < delay {
			delay = preTimeout
		}
	}
	if delay <= 0 {
		return 0, false
	}
	return delay, true
}

// convertChange returns the event a watcher with filter f sees for c: an
// object entering the selection is ADDED, one leaving it is DELETED with its
// previous state and c's resourceVersion, one staying is MODIFIED.
func convertChange(c change, f filter) (delivery, bool) {
	curPasses := c.typ != watch.Deleted && f.matches(c.obj)
	prevPasses := c.prev != nil && f.matches(c.prev)
	switch {
	case curPasses && !prevPasses:
		return delivery{typ: watch.Added, obj: c.obj.obj}, true
	case curPasses && prevPasses:
		return delivery{typ: watch.Modified, obj: c.obj.obj}, true
	case prevPasses:
		return delivery{typ: watch.Deleted, obj: c.prev.obj, stampRV: c.rv}, true
	default:
		return delivery{}, false
	}
}
