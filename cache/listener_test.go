package cache

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/wait"
)

// newTestListener returns a listener for handler without resync, with a
// registration named after "test".
func newTestListener(handler ResourceEventHandler) *processorListener {
	return newProcessorListener(klog.Background(), handler, realClock, "test")
}

// startTestListener starts a listener for handler, stopped and waited for
// when the test ends.
func startTestListener(t *testing.T, handler ResourceEventHandler) *processorListener {
	t.Helper()
	l := newTestListener(handler)
	var wg sync.WaitGroup
	l.start(&wg)
	t.Cleanup(func() {
		l.stop()
		wg.Wait()
	})
	return l
}

// addOf returns an add notification for a test object named name.
func addOf(name string, initial bool) notification {
	return notification{kind: addNotification, isInInitialList: initial, newObj: pom(name, "1")}
}

// blockingHandler records calls like a recorder and, while gate is set,
// blocks every call until gate is closed.
type blockingHandler struct {
	*recorder
	entered chan struct{} // receives one value per call, before blocking
	release chan struct{} // closed to let calls through
}

func newBlockingHandler() *blockingHandler {
	return &blockingHandler{recorder: newRecorder(), entered: make(chan struct{}, 1<<16), release: make(chan struct{})}
}

func (h *blockingHandler) OnAdd(obj any, isInInitialList bool) {
	h.entered <- struct{}{}
	<-h.release
	h.recorder.OnAdd(obj, isInInitialList)
}

func (h *blockingHandler) OnUpdate(oldObj, newObj any) {
	h.entered <- struct{}{}
	<-h.release
	h.recorder.OnUpdate(oldObj, newObj)
}

func (h *blockingHandler) OnDelete(obj any) {
	h.entered <- struct{}{}
	<-h.release
	h.recorder.OnDelete(obj)
}

// waitEntered waits until the handler is inside a call.
func (h *blockingHandler) waitEntered(t *testing.T) {
	t.Helper()
	select {
	case <-h.entered:
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the handler was not called")
	}
}

func waitClosed(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestListenerDeliversInOrderWhileAdding(t *testing.T) {
	const n = 20_000
	rec := newRecorder()
	l := newTestListener(rec)
	var wg sync.WaitGroup
	l.start(&wg)
	// Adding never blocks, whatever the handler does.
	for i := range n {
		l.add(addOf(fmt.Sprintf("o%d", i), false))
	}
	events := rec.waitForCount(t, n)
	for i, e := range events {
		if want := fmt.Sprintf("ns/o%d", i); e.Key != want {
			t.Fatalf("call %d is for %s, want %s", i, e.Key, want)
		}
	}
	l.stop()
	wg.Wait()
	waitClosed(t, "ShutdownChan", l.ShutdownChan())
}

func TestListenerStopDropsPendingAndFinishesCallInProgress(t *testing.T) {
	h := newBlockingHandler()
	l := newTestListener(h)
	var wg sync.WaitGroup
	l.start(&wg)
	l.add(addOf("first", false))
	h.waitEntered(t)
	for i := range 10 {
		l.add(addOf(fmt.Sprintf("dropped%d", i), false))
	}
	l.stop()
	l.add(addOf("after-stop", false))
	select {
	case <-l.ShutdownChan():
		t.Fatal("ShutdownChan closed while the handler was still running")
	default:
	}
	close(h.release)
	waitClosed(t, "ShutdownChan", l.ShutdownChan())
	wg.Wait()
	if diff := cmp.Diff([]event{{Kind: "add", Key: "ns/first", RV: "1"}}, h.recorded()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestListenerStopBeforeStart(t *testing.T) {
	l := newTestListener(newRecorder())
	l.add(addOf("a", true))
	l.stop()
	waitClosed(t, "ShutdownChan", l.ShutdownChan())
	var wg sync.WaitGroup
	l.start(&wg) // does nothing after stop
	wg.Wait()
	l.stop() // idempotent
}

// heldChunks returns the number of chunks l's buffer holds.
func heldChunks(l *processorListener) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pending.chunks
}

// TestListenerGivesBackBurstMemory checks that a listener's buffer holds a
// chunk per notificationChunkSize pending notifications during a burst, an
// initial list or not, and one chunk once its handler caught up.
func TestListenerGivesBackBurstMemory(t *testing.T) {
	const burst = 50_000
	for _, initial := range []bool{false, true} {
		t.Run(fmt.Sprintf("initial=%v", initial), func(t *testing.T) {
			h := newBlockingHandler()
			l := startTestListener(t, h)
			l.add(addOf("first", false))
			h.waitEntered(t)
			objs := make([]any, burst)
			for i := range objs {
				objs[i] = pom(fmt.Sprintf("o%d", i), "1")
			}
			if initial {
				l.addInitial(objs)
			} else {
				for _, obj := range objs {
					l.add(notification{kind: addNotification, newObj: obj})
				}
			}
			if got, want := heldChunks(l), burst/notificationChunkSize; got < want {
				t.Fatalf("%d chunks held for a backlog of %d, want at least %d", got, burst, want)
			}
			close(h.release)
			h.waitForCount(t, burst+1)
			waitFor(t, "the listener to go idle", func() bool {
				l.mu.Lock()
				defer l.mu.Unlock()
				return l.idle
			})
			if got := heldChunks(l); got != 1 {
				t.Errorf("%d chunks held once the handler caught up, want 1", got)
			}
		})
	}
}

func TestListenerSyncTracking(t *testing.T) {
	h := newBlockingHandler()
	l := startTestListener(t, h)
	l.addInitial([]any{pom("a", "1"), pom("b", "2")})
	l.add(addOf("c", true))
	l.add(addOf("d", false)) // not initial: does not count
	l.upstreamHasSynced()
	for range 3 {
		h.waitEntered(t)
		if l.HasSynced() {
			t.Fatal("synced before the handler returned from every initial add")
		}
		h.release <- struct{}{}
	}
	waitClosed(t, "registration sync", l.HasSyncedChecker().Done())
	h.waitEntered(t)
	close(h.release)
	if got, want := l.HasSyncedChecker().Name(), "test + event handler github.com/informer-go/informer/cache.blockingHandler"; got != want {
		t.Errorf("checker name %q, want %q", got, want)
	}
}

// panickingHandler panics on the adds of objects in panicOn and records
// every call.
type panickingHandler struct {
	*recorder
	panicOn map[string]bool
}

func (h *panickingHandler) OnAdd(obj any, isInInitialList bool) {
	h.recorder.OnAdd(obj, isInInitialList)
	if key, _ := describeObject(obj); h.panicOn[key] {
		panic("handler failure for " + key)
	}
}

func TestListenerRecoversFromPanics(t *testing.T) {
	defer func(old bool) { utilruntime.ReallyCrash = old }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = false
	synctest.Test(t, func(t *testing.T) {
		h := &panickingHandler{recorder: newRecorder(), panicOn: map[string]bool{"ns/a": true, "ns/b": true}}
		l := newTestListener(h)
		var wg sync.WaitGroup
		l.start(&wg)
		l.addInitial([]any{pom("a", "1"), pom("b", "1"), pom("c", "1")})
		l.upstreamHasSynced()
		start := time.Now()
		<-l.HasSyncedChecker().Done()
		// Each panic pauses delivery for crashPause.
		if got, want := time.Since(start), 2*crashPause; got != want {
			t.Errorf("synced after %v, want %v", got, want)
		}
		want := []event{
			{Kind: "add", Key: "ns/a", RV: "1", Initial: true},
			{Kind: "add", Key: "ns/b", RV: "1", Initial: true},
			{Kind: "add", Key: "ns/c", RV: "1", Initial: true},
		}
		if diff := cmp.Diff(want, h.recorded()); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
		// Stopping interrupts the pause after a panic.
		l.add(addOf("a", false))
		synctest.Wait()
		l.stop()
		wg.Wait()
	})
}

func TestProcessorRemoveListener(t *testing.T) {
	p := newSharedProcessor(realClock)
	ls := make([]*processorListener, 5)
	for i := range ls {
		ls[i] = newTestListener(newRecorder())
		p.addListener(ls[i], resyncSchedule{})
	}
	if err := p.removeListener(ls[1]); err != nil {
		t.Fatal(err)
	}
	if err := p.removeListener(ls[1]); err != nil {
		t.Errorf("removing twice: %v", err)
	}
	if err := p.removeListener(ResourceEventHandlerRegistration(nil)); err == nil {
		t.Error("removing a nil handle succeeded")
	}
	if err := p.removeListener(ls[4]); err != nil {
		t.Fatal(err)
	}
	if got := p.listenerCount(); got != 3 {
		t.Errorf("%d listeners left, want 3", got)
	}
	waitClosed(t, "ShutdownChan of a listener removed before start", ls[1].ShutdownChan())
	p.run()
	p.stop()
	for i, l := range ls {
		waitClosed(t, fmt.Sprintf("ShutdownChan of listener %d", i), l.ShutdownChan())
	}
	if p.addListener(newTestListener(newRecorder()), resyncSchedule{}) {
		t.Error("a stopped processor accepted a listener")
	}
}

func TestProcessorHoldsRuns(t *testing.T) {
	type calls struct{ First, Second int }
	update := func(name string) notification {
		return notification{kind: updateNotification, oldObj: pom(name, "1"), newObj: pom(name, "2")}
	}
	tests := []struct {
		name string
		// act distributes through p, whose first listener is first;
		// second, unless bounded, is added by act or not at all.
		act     func(p *sharedProcessor, second *processorListener)
		bounded bool
		// before is what the handlers got before the run is released,
		// after what they got once it was.
		before, after calls
	}{
		{
			name: "released when the queue drains",
			act: func(p *sharedProcessor, _ *processorListener) {
				for i := range 3 {
					p.distributeUpdate(pom(fmt.Sprint(i), "1"), pom(fmt.Sprint(i), "2"))
				}
			},
			before: calls{0, 0}, after: calls{3, 0},
		},
		{
			name: "released every maxRunLength changes",
			act: func(p *sharedProcessor, _ *processorListener) {
				for i := range maxRunLength + 1 {
					p.distribute(update(fmt.Sprint(i)))
				}
			},
			before: calls{maxRunLength, 0}, after: calls{maxRunLength + 1, 0},
		},
		{
			name: "initial adds are not held, and come after what was",
			act: func(p *sharedProcessor, _ *processorListener) {
				p.distribute(update("a"))
				p.distribute(addOf("b", true))
			},
			before: calls{2, 0}, after: calls{2, 0},
		},
		{
			name: "a listener added later does not get the run",
			act: func(p *sharedProcessor, second *processorListener) {
				p.distribute(update("a"))
				p.addListener(second, resyncSchedule{})
				p.distribute(update("b"))
			},
			before: calls{1, 0}, after: calls{2, 1},
		},
		{
			name:    "a bounded listener gets changes at once",
			bounded: true,
			act: func(p *sharedProcessor, _ *processorListener) {
				p.distribute(update("a"))
			},
			before: calls{0, 1}, after: calls{1, 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newSharedProcessor(realClock)
				p.holdRuns = true
				first, second := newRecorder(), newRecorder()
				p.addListener(newTestListener(first), resyncSchedule{})
				l2 := newTestListener(second)
				if tc.bounded {
					l2.setBacklog(backlogBounds{max: 100}, MetaNamespaceKeyFunc, nil)
					p.addListener(l2, resyncSchedule{})
				}
				p.run()
				defer p.stop()
				tc.act(p, l2)
				synctest.Wait()
				if diff := cmp.Diff(tc.before, calls{first.count(), second.count()}); diff != "" {
					t.Errorf("calls before the release (-want +got):\n%s", diff)
				}
				p.releaseRun()
				synctest.Wait()
				if diff := cmp.Diff(tc.after, calls{first.count(), second.count()}); diff != "" {
					t.Errorf("calls after the release (-want +got):\n%s", diff)
				}
			})
		})
	}
}
