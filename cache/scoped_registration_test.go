package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestAddEventHandlerWithContextRemovesTheHandlerWhenTheContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, srv := runSyncedInformer(t, 2)
		rec := newRecorder()
		ctx, cancel := context.WithCancel(t.Context())
		reg, err := AddEventHandlerWithContext(ctx, inf, rec, HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !reg.HasSynced() || rec.count() != 2 {
			t.Fatalf("synced %v after %d calls, want synced after the 2 objects", reg.HasSynced(), rec.count())
		}
		if isClosed(reg.Done()) {
			t.Fatal("Done is closed while the context lasts")
		}

		cancel()
		synctest.Wait()
		if !isClosed(reg.Done()) {
			t.Fatal("Done is not closed after the context ended")
		}
		if got := inf.processor.listenerCount(); got != 0 {
			t.Errorf("%d handlers registered after the context ended, want 0", got)
		}
		touch(t, srv, "o0", "after")
		synctest.Wait()
		if got := rec.count(); got != 2 {
			t.Errorf("the handler was called %d times, want 2: none after Done", got)
		}
	})
}

func TestAddEventHandlerWithContextDoneWaitsForTheLastCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf, _ := runSyncedInformer(t, 2)
		release := make(chan struct{})
		var returned atomic.Bool
		ctx, cancel := context.WithCancel(t.Context())
		reg, err := AddEventHandlerWithContext(ctx, inf, ResourceEventHandlerFuncs{
			AddFunc: func(any) {
				<-release
				returned.Store(true)
			},
		}, HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the handler is in its first call
		cancel()
		synctest.Wait()
		if isClosed(reg.Done()) {
			t.Fatal("Done closed while the handler was still in a call")
		}
		close(release)
		<-reg.Done()
		if !returned.Load() {
			t.Error("Done closed before the handler's call returned")
		}
	})
}

func TestAddEventHandlerWithContextRemovalFromInsideTheHandler(t *testing.T) {
	tests := []struct {
		name string
		// remove is what the handler does in its first call.
		remove func(inf SharedInformer, reg ResourceEventHandlerRegistration, cancel context.CancelFunc) error
	}{
		{name: "cancel", remove: func(_ SharedInformer, _ ResourceEventHandlerRegistration, cancel context.CancelFunc) error {
			cancel()
			return nil
		}},
		{name: "RemoveEventHandler", remove: func(inf SharedInformer, reg ResourceEventHandlerRegistration, _ context.CancelFunc) error {
			return inf.RemoveEventHandler(reg)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				inf, _ := runSyncedInformer(t, 2)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				registered := make(chan ResourceEventHandlerRegistration, 1)
				var calls atomic.Int32
				var removeErr error
				reg, err := AddEventHandlerWithContext(ctx, inf, ResourceEventHandlerFuncs{
					AddFunc: func(any) {
						if calls.Add(1) == 1 {
							removeErr = tc.remove(inf, <-registered, cancel)
						}
					},
				}, HandlerOptions{})
				if err != nil {
					t.Fatal(err)
				}
				registered <- reg
				<-reg.Done() // a deadlock would leave the bubble blocked
				if removeErr != nil {
					t.Errorf("removing from inside the handler: %v", removeErr)
				}
				if got := calls.Load(); got > 2 {
					t.Errorf("the handler was called %d times", got)
				}
			})
		})
	}
}

// foreignInformer is a SharedInformer of another package: its registrations
// are its own.
type foreignInformer struct {
	SharedInformer
	removed int
}

type wrappedRegistration struct {
	ResourceEventHandlerRegistration
}

func (f *foreignInformer) AddEventHandlerWithOptions(handler ResourceEventHandler, options HandlerOptions) (ResourceEventHandlerRegistration, error) {
	reg, err := f.SharedInformer.AddEventHandlerWithOptions(handler, options)
	return wrappedRegistration{reg}, err
}

func (f *foreignInformer) RemoveEventHandler(reg ResourceEventHandlerRegistration) error {
	f.removed++
	return f.SharedInformer.RemoveEventHandler(reg.(wrappedRegistration).ResourceEventHandlerRegistration)
}

func TestAddEventHandlerWithContextRejectsBadInput(t *testing.T) {
	ended, cancel := context.WithCancelCause(context.Background())
	errGaveUp := errors.New("gave up")
	cancel(errGaveUp)
	stopped := newStoppedInformer(errors.New("stopped for the test"))
	inf := newTestInformer(newTestServer(t), SharedIndexInformerOptions{})
	foreign := &foreignInformer{SharedInformer: inf}
	tests := []struct {
		name     string
		ctx      context.Context
		informer SharedInformer
		handler  ResourceEventHandler
		options  HandlerOptions
		want     error
	}{
		{name: "nil context", informer: inf, handler: newRecorder()},
		{name: "nil informer", ctx: t.Context(), handler: newRecorder()},
		{name: "ended context", ctx: ended, informer: inf, handler: newRecorder(), want: errGaveUp},
		{name: "nil handler", ctx: t.Context(), informer: inf},
		{name: "malformed options", ctx: t.Context(), informer: inf, handler: newRecorder(), options: HandlerOptions{MaxBacklog: -1}},
		{name: "stopped informer", ctx: t.Context(), informer: stopped, handler: newRecorder()},
		{name: "foreign informer", ctx: t.Context(), informer: foreign, handler: newRecorder()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := AddEventHandlerWithContext(tc.ctx, tc.informer, tc.handler, tc.options)
			if err == nil || reg != nil {
				t.Fatalf("AddEventHandlerWithContext = %v, %v; want an error and no registration", reg, err)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("error %v, want %v", err, tc.want)
			}
			if got := inf.processor.listenerCount(); got != 0 {
				t.Errorf("%d handlers registered, want 0", got)
			}
		})
	}
	if foreign.removed != 1 {
		t.Errorf("the foreign informer's handler was removed %d times, want 1", foreign.removed)
	}
}

// afterFuncContext is a context that counts the functions registered with
// context.AfterFunc on it that are still held.
type afterFuncContext struct {
	context.Context
	mu   sync.Mutex
	held int
}

func (c *afterFuncContext) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held++
	once := sync.OnceValue(func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.held--
		return true
	})
	stopParent := context.AfterFunc(c.Context, func() {
		if once() {
			f()
		}
	})
	return func() bool {
		stopParent()
		return once()
	}
}

// Value hides the wrapped context's values, among them the one through which
// the context package would register functions on the wrapped context
// directly instead of calling AfterFunc.
func (c *afterFuncContext) Value(any) any { return nil }

func (c *afterFuncContext) heldFuncs() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.held
}

func TestAddEventHandlerWithContextLetsGoOfTheContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newTestServer(t)
		inf := newTestInformer(srv, SharedIndexInformerOptions{})
		ctx := &afterFuncContext{Context: t.Context()}
		removed, err := AddEventHandlerWithContext(ctx, inf, newRecorder(), HandlerOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := AddEventHandlerWithContext(ctx, inf, newRecorder(), HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := ctx.heldFuncs(); got != 2 {
			t.Fatalf("the context holds %d functions, want 2", got)
		}
		if err := inf.RemoveEventHandler(removed); err != nil {
			t.Fatal(err)
		}
		if got := ctx.heldFuncs(); got != 1 {
			t.Errorf("after RemoveEventHandler the context holds %d functions, want 1", got)
		}
		stop := runSharedInformer(t, inf)
		synctest.Wait()
		stop()
		if got := ctx.heldFuncs(); got != 0 {
			t.Errorf("after the informer stopped the context holds %d functions, want 0", got)
		}
	})
}

func TestAddEventHandlerWithContextTenThousandHandlersLeaveNothingBehind(t *testing.T) {
	const handlers = 10_000
	inf, srv := runSyncedInformer(t, 10)
	baseGoroutines := goleak.IgnoreCurrent()

	// addAndCancel adds the handlers to the running informer and removes
	// them. Half of them have a context of their own that is cancelled; the
	// other half share one that outlives them, and are removed.
	shared := t.Context()
	addAndCancel := func() {
		regs := make([]ScopedHandlerRegistration, handlers)
		cancels := make([]context.CancelFunc, handlers)
		for i := range handlers {
			ctx := shared
			if i%2 == 0 {
				ctx, cancels[i] = context.WithCancel(shared)
			}
			var err error
			if regs[i], err = AddEventHandlerWithContext(ctx, inf, ResourceEventHandlerFuncs{}, HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			if i == handlers/2 {
				touch(t, srv, "o1", fmt.Sprint(i))
			}
		}
		for i, reg := range regs {
			if cancels[i] != nil {
				cancels[i]()
			} else if err := inf.RemoveEventHandler(reg); err != nil {
				t.Fatal(err)
			}
		}
		for _, reg := range regs {
			waitClosed(t, "Done", reg.Done())
		}
		if got := inf.processor.listenerCount(); got != 0 {
			t.Errorf("%d handlers still registered", got)
		}
	}

	// The first round grows what the runtime and the processor keep for
	// reuse (goroutine descriptors, the processor's index); the second
	// must not grow the heap beyond it.
	addAndCancel()
	goleak.VerifyNone(t, baseGoroutines)
	baseHeap := liveHeap()
	addAndCancel()
	goleak.VerifyNone(t, baseGoroutines)
	const slack = 1 << 20
	if heap := liveHeap(); heap > baseHeap+slack {
		t.Errorf("the live heap grew by %.1f MiB after %d more handlers came and went, want at most %d MiB", float64(heap-baseHeap)/(1<<20), handlers, slack>>20)
	}
}

// TestAddEventHandlerWithContextCancelledStopsAtOnce checks that a
// handler that cancels its context, with 200 notifications queued behind the
// call, is not called again, and that Done closes when that call returns,
// in both pipelines, on virtual and on real time. It also cancels from
// another goroutine while the handler is in a call: only that call may
// follow.
func TestAddEventHandlerWithContextCancelledStopsAtOnce(t *testing.T) {
	const queued = 200
	for _, mode := range queueModes {
		for _, clock := range []string{"virtual", "real"} {
			for _, from := range []string{"inside", "outside"} {
				t.Run(fmt.Sprintf("%s/%s time/cancelled from %s", mode.name, clock, from), func(t *testing.T) {
					body := func(t *testing.T) {
						srv := newTestServer(t)
						for i := range queued + 1 {
							create(t, srv, fmt.Sprintf("o%d", i))
						}
						inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder})
						runSharedInformer(t, inf)
						waitForSync(t, inf.HasSyncedChecker())

						ctx, cancel := context.WithCancel(t.Context())
						defer cancel()
						var calls atomic.Int32
						inFirst, release := make(chan struct{}), make(chan struct{})
						returned := make(chan struct{})
						reg, err := AddEventHandlerWithContext(ctx, inf, ResourceEventHandlerFuncs{
							AddFunc: func(any) {
								if calls.Add(1) > 1 {
									return
								}
								close(inFirst)
								<-release // the replay of the other objects is queued
								if from == "inside" {
									cancel()
								}
								close(returned)
							},
						}, HandlerOptions{})
						if err != nil {
							t.Fatal(err)
						}
						<-inFirst
						if from == "outside" {
							cancel()
						}
						close(release)
						<-returned
						waitClosed(t, "Done after the cancelling call returned", reg.Done())
						if got := calls.Load(); got != 1 {
							t.Errorf("the handler was called %d times, want 1: none after the call in which its context ended", got)
						}
					}
					if clock == "virtual" {
						synctest.Test(t, body)
					} else {
						body(t)
					}
				})
			}
		}
	}
}
