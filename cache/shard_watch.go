package cache

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache/internal/shard"
)

// streamState is what the goroutine of a shard stream works with; only
// that goroutine uses it once the stream runs.
type streamState struct {
	// inner is the server's watch; nil while a handover is pending.
	inner watch.Interface
	// stream is the shard the reader holds and inner watches, the phase
	// and the resourceVersion the reader reached.
	stream shard.Stream
	// changed is closed when the target shard changes after the one this
	// stream last moved to.
	changed <-chan struct{}
	// pendingHandover asks for a handover before anything else.
	pendingHandover bool
}

// shardStream is the watch a [ShardedListWatch] returns: one goroutine
// reads the server's watch, drops the events of objects outside the shard
// and forwards the rest, and hands over when the shard changes.
type shardStream struct {
	owner *ShardedListWatch
	// options are the reader's options, reused for the watches of
	// handovers.
	options metav1.ListOptions
	result  chan watch.Event
	cancel  context.CancelFunc
}

var _ watch.Interface = (*shardStream)(nil)

// startStream starts the goroutine of a new stream; it exits when the
// stream is stopped, ctx ends, the server's watch closes, or after an
// error it sent.
func (s *ShardedListWatch) startStream(ctx context.Context, options metav1.ListOptions, st streamState) *shardStream {
	ctx, cancel := context.WithCancel(ctx)
	w := &shardStream{owner: s, options: options, result: make(chan watch.Event), cancel: cancel}
	go w.run(ctx, st) // exits on ctx.Done() (Stop cancels it) or when the stream ends
	return w
}

// ResultChan returns the channel of the shard's events. It is closed when
// the stream ends.
func (w *shardStream) ResultChan() <-chan watch.Event {
	return w.result
}

// Stop ends the stream and the server's watch under it. It does not block
// and may be called more than once.
func (w *shardStream) Stop() {
	w.cancel()
}

func (w *shardStream) run(ctx context.Context, st streamState) {
	defer close(w.result)
	defer w.cancel()
	defer func() {
		if st.inner != nil {
			st.inner.Stop()
		}
	}()
	defer utilruntime.HandleCrashWithContext(ctx)

	for {
		if st.pendingHandover {
			st.pendingHandover = false
			if !w.handover(ctx, &st) {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-st.changed:
			if !st.stream.CanHandOver() {
				w.fail(ctx, apierrors.NewResourceExpired("the shard selector changed before the watch reached a known resourceVersion: relist"))
				return
			}
			st.pendingHandover = true
		case ev, ok := <-st.inner.ResultChan():
			if !ok {
				return
			}
			if !w.forward(ctx, &st, ev) {
				return
			}
		}
	}
}

// forward passes one event of the server's watch on, unless its object is
// outside the shard, and tracks the resourceVersion the reader reached. It
// reports false when ctx ended.
func (w *shardStream) forward(ctx context.Context, st *streamState, ev watch.Event) bool {
	forward, held := st.stream.Event(ev)
	if !forward {
		w.owner.observe(ctx, true)
		return true
	}
	if held {
		w.owner.setHeld(st.stream.Filter().Set())
	}
	return w.send(ctx, ev)
}

// send delivers ev to the reader; false when ctx ended first.
func (w *shardStream) send(ctx context.Context, ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}

// fail sends an ERROR event carrying err's status, ending the stream.
func (w *shardStream) fail(ctx context.Context, err apierrors.APIStatus) {
	status := err.Status()
	w.send(ctx, watch.Event{Type: watch.Error, Object: &status})
}

// relistError is the error that makes the reader relist after a handover
// that could not be done.
func relistError(reason error) *apierrors.StatusError {
	return apierrors.NewResourceExpired(fmt.Sprintf("the shard selector changed and the watch cannot hand over (%v): relist", reason))
}
