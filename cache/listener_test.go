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

func TestProcessorHeldWakeups(t *testing.T) {
	tests := []struct {
		name string
		// changes are distributed before act.
		changes int
		// act ends the hold: releaseWakeups, or stop.
		act func(p *sharedProcessor)
		// delivered is how many changes reach the handler before act, and
		// after it.
		before, after int
	}{
		{name: "released when the queue drains", changes: 3, act: (*sharedProcessor).releaseWakeups, before: 0, after: 3},
		{name: "released every maxHeldChanges", changes: maxHeldChanges, act: (*sharedProcessor).releaseWakeups, before: maxHeldChanges, after: maxHeldChanges},
		{name: "stop wakes a held listener", changes: 3, act: (*sharedProcessor).stop, before: 0, after: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				p := newSharedProcessor(realClock)
				p.holdWakeups = true
				rec := newRecorder()
				l := newTestListener(rec)
				p.addListener(l, resyncSchedule{})
				p.run()
				synctest.Wait() // the listener waits for a wake-up
				for i := range tc.changes {
					p.distribute(addOf(fmt.Sprint(i), false))
				}
				synctest.Wait()
				if got := rec.count(); got != tc.before {
					t.Errorf("%d calls before the hold ends, want %d", got, tc.before)
				}
				tc.act(p)
				synctest.Wait()
				if got := rec.count(); got != tc.after {
					t.Errorf("%d calls after the hold ends, want %d", got, tc.after)
				}
				p.stop() // returns: the listener's goroutine has exited
				waitClosed(t, "ShutdownChan", l.ShutdownChan())
			})
		})
	}
}
