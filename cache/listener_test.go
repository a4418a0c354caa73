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
	testingclock "k8s.io/utils/clock/testing"

	"github.com/informer-go/informer/wait"
)

// newTestListener returns a listener for handler without resync, with a
// registration named after "test".
func newTestListener(handler ResourceEventHandler) *processorListener {
	return newProcessorListener(klog.Background(), handler, 0, 0, realClock, "test")
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

func TestListenerShrinksAfterBurst(t *testing.T) {
	const burst = 50_000
	h := newBlockingHandler()
	l := newTestListener(h)
	var wg sync.WaitGroup
	l.start(&wg)
	defer func() {
		l.stop()
		wg.Wait()
	}()
	l.add(addOf("first", false))
	h.waitEntered(t)
	for i := range burst {
		l.add(addOf(fmt.Sprintf("o%d", i), false))
	}
	capacity := func() int {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.pending.Cap()
	}
	if c := capacity(); c < burst {
		t.Fatalf("buffer capacity %d after a burst of %d", c, burst)
	}
	close(h.release)
	h.waitForCount(t, burst+1)
	// A trickle of single notifications drains the buffer every time; after
	// a few drains the oversized buffer is given back.
	for i := range shrinkAfterDrains + 1 {
		l.add(addOf(fmt.Sprintf("trickle%d", i), false))
		h.waitForCount(t, burst+2+i)
	}
	if c := capacity(); c > listenerNormalBufferSize {
		t.Errorf("buffer capacity %d after the burst drained, want at most %d", c, listenerNormalBufferSize)
	}
}

func TestListenerSyncTracking(t *testing.T) {
	h := newBlockingHandler()
	l := newTestListener(h)
	var wg sync.WaitGroup
	l.start(&wg)
	defer func() {
		l.stop()
		wg.Wait()
	}()
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

func TestProcessorDistributesSyncsOnlyToSyncingListeners(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	p := newSharedProcessor(clk)
	logger := klog.Background()
	type spec struct {
		name   string
		period time.Duration
	}
	specs := []spec{{"never", 0}, {"second", time.Second}, {"minute", time.Minute}}
	recs := map[string]*recorder{}
	for _, s := range specs {
		recs[s.name] = newRecorder()
		p.addListener(newProcessorListener(logger, recs[s.name], s.period, s.period, clk, "test"))
	}
	p.run()
	defer p.stop()

	counts := func() map[string]int {
		got := map[string]int{}
		for name, r := range recs {
			got[name] = r.count()
		}
		return got
	}
	sync := notification{kind: updateNotification, oldObj: pom("a", "1"), newObj: pom("a", "1")}
	total := 0
	distributeSync := func() {
		p.distribute(sync, true)
		p.distribute(notification{kind: addNotification, newObj: pom("marker", "1")}, false)
		total++
		for _, r := range recs {
			r.waitFor(t, "marker", func(e []event) bool {
				n := 0
				for _, ev := range e {
					if ev.Key == "ns/marker" {
						n++
					}
				}
				return n == total
			})
		}
	}

	// Listeners start out syncing: before the first resync check, syncs
	// reach everybody (as after a relist with resync disabled).
	distributeSync()
	if diff := cmp.Diff(map[string]int{"never": 2, "second": 2, "minute": 2}, counts()); diff != "" {
		t.Errorf("calls before any resync check (-want +got):\n%s", diff)
	}

	steps := []struct {
		advance time.Duration
		due     bool
		want    map[string]int
	}{
		{advance: 0, due: false, want: map[string]int{"never": 3, "second": 3, "minute": 3}},
		{advance: time.Second, due: true, want: map[string]int{"never": 4, "second": 5, "minute": 4}},
		{advance: 500 * time.Millisecond, due: false, want: map[string]int{"never": 5, "second": 6, "minute": 5}},
		{advance: time.Minute, due: true, want: map[string]int{"never": 6, "second": 8, "minute": 7}},
	}
	for i, step := range steps {
		clk.Step(step.advance)
		if due := p.shouldResync(); due != step.due {
			t.Errorf("step %d: shouldResync() = %v, want %v", i, due, step.due)
		}
		distributeSync()
		if diff := cmp.Diff(step.want, counts()); diff != "" {
			t.Errorf("step %d: calls (-want +got):\n%s", i, diff)
		}
	}
}

func TestProcessorRemoveListener(t *testing.T) {
	p := newSharedProcessor(realClock)
	ls := make([]*processorListener, 5)
	for i := range ls {
		ls[i] = newTestListener(newRecorder())
		p.addListener(ls[i])
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
	if p.addListener(newTestListener(newRecorder())) {
		t.Error("a stopped processor accepted a listener")
	}
}
