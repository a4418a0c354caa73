package cache

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// shutdownHandler is a handler of a shutdown scene. In its first call (the
// add of the scene's object) it waits until every handler of the scene that
// shuts down, holds or blocks is in its first call, sleeps delay, shuts
// down the handler named shutsDown, if any, sleeps holds and then, if
// blocks, waits until the scene releases the handlers. Its later calls each
// take callTakes.
type shutdownHandler struct {
	name      string
	informer  int // which of the scene's two informers it is added to
	shutsDown string
	delay     time.Duration
	holds     time.Duration
	blocks    bool
	callTakes time.Duration
}

// shutdownScene is one case of TestShutDownEventHandlerFromHandlers.
type shutdownScene struct {
	name     string
	handlers []shutdownHandler
	// outside names the handler the test itself shuts down once the
	// handlers are in their first calls ("" for none).
	outside string
	// release is how long after the start the blocked handlers are
	// released.
	release time.Duration
	// churn makes the test change a second object every ten seconds for
	// five minutes.
	churn bool
	// want is, per caller of ShutDownEventHandler ("outside" or a
	// handler's name), its outcome and when it returned, virtual time from
	// the start: "nil@10m0s", "err@1m30s", or "any@1m30s" where the caller
	// that gives up depends on the order of the waits; wantErrs counts the
	// errors then.
	want     map[string]string
	wantErrs int
}

// TestShutDownEventHandlerFromHandlers checks when ShutDownEventHandler
// waits, as client-go does, and when it gives up because the wait looks like
// a deadlock among handlers (see shutdownWatch), on virtual time.
func TestShutDownEventHandlerFromHandlers(t *testing.T) {
	stalemate := shutdownStalemate.String()
	tests := []shutdownScene{{
		name:     "a handler shuts itself down",
		handlers: []shutdownHandler{{name: "A", shutsDown: "A"}},
		want:     map[string]string{"A": "err@" + stalemate},
	}, {
		name:     "A shuts down B in a long call",
		handlers: []shutdownHandler{{name: "A", shutsDown: "B"}, {name: "B", blocks: true}},
		release:  10 * time.Minute,
		want:     map[string]string{"A": "nil@10m0s"},
	}, {
		name:     "A shuts down B not in a call",
		handlers: []shutdownHandler{{name: "A", shutsDown: "B", delay: time.Second}, {name: "B"}},
		want:     map[string]string{"A": "nil@1s"},
	}, {
		name:     "A and B shut each other down",
		handlers: []shutdownHandler{{name: "A", shutsDown: "B"}, {name: "B", shutsDown: "A"}},
		want:     map[string]string{"A": "any@" + stalemate, "B": "any@" + stalemate},
		wantErrs: 1,
	}, {
		name:     "A, B and C shut each other down in a cycle",
		handlers: []shutdownHandler{{name: "A", shutsDown: "B"}, {name: "B", shutsDown: "C"}, {name: "C", shutsDown: "A"}},
		want:     map[string]string{"A": "any@" + stalemate, "B": "any@" + stalemate, "C": "any@" + stalemate},
		wantErrs: 1,
	}, {
		name:     "a chain ending in a long call",
		handlers: []shutdownHandler{{name: "A", shutsDown: "B"}, {name: "B", shutsDown: "C"}, {name: "C", blocks: true}},
		release:  5 * time.Minute,
		want:     map[string]string{"A": "nil@5m0s", "B": "nil@5m0s"},
	}, {
		name:     "two handlers shut down one in a long call",
		handlers: []shutdownHandler{{name: "A", shutsDown: "C"}, {name: "B", shutsDown: "C"}, {name: "C", blocks: true}},
		release:  5 * time.Minute,
		want:     map[string]string{"A": "nil@5m0s", "B": "nil@5m0s"},
	}, {
		name:     "the test shuts down B in a call",
		handlers: []shutdownHandler{{name: "B", blocks: true}},
		outside:  "B",
		release:  30 * time.Second,
		want:     map[string]string{"outside": "nil@30s"},
	}, {
		name:     "the test shuts down B not in a call",
		handlers: []shutdownHandler{{name: "B"}},
		outside:  "B",
		want:     map[string]string{"outside": "nil@0s"},
	}, {
		name:     "the test shuts down B in a long call while another call that began before lasts",
		handlers: []shutdownHandler{{name: "B", blocks: true}, {name: "C", blocks: true}},
		outside:  "B",
		release:  10 * time.Minute,
		want:     map[string]string{"outside": "nil@10m0s"},
	}, {
		// Counts cannot tell this from B shutting itself down: the one
		// case where a caller outside the handlers does not wait as long
		// as client-go would.
		name:     "the test shuts down B, alone in a call longer than the stalemate",
		handlers: []shutdownHandler{{name: "B", blocks: true}},
		outside:  "B",
		release:  10 * time.Minute,
		want:     map[string]string{"outside": "err@" + stalemate},
	}, {
		// The stalemate (both calls may wait) begins at once; when C's
		// call returns, B's wait ends, and the one left starts over.
		name:     "the test shuts down B, which waits for C: a call returning starts the stalemate over",
		handlers: []shutdownHandler{{name: "B", shutsDown: "C", holds: time.Minute}, {name: "C", holds: time.Minute}},
		outside:  "B",
		want:     map[string]string{"B": "nil@1m0s", "outside": "nil@2m0s"},
	}, {
		name:     "a handler shuts itself down while another call that began before lasts",
		handlers: []shutdownHandler{{name: "A", shutsDown: "A"}, {name: "C", blocks: true}},
		release:  10 * time.Minute,
		want:     map[string]string{"A": "err@" + (10*time.Minute + shutdownStalemate).String()},
	}, {
		name:     "a handler shuts itself down while another keeps starting calls",
		handlers: []shutdownHandler{{name: "A", shutsDown: "A"}, {name: "D", callTakes: 5 * time.Second}},
		churn:    true,
		want:     map[string]string{"A": "err@" + stalemate},
	}, {
		name:     "a handler shuts itself down while a handler of another informer is in a long call",
		handlers: []shutdownHandler{{name: "A", shutsDown: "A"}, {name: "C", informer: 1, blocks: true}},
		release:  10 * time.Minute,
		want:     map[string]string{"A": "err@" + stalemate},
	}, {
		// Each informer counts its own handlers: seen from B's informer,
		// A is a caller outside its handlers.
		name:     "a handler of another informer shuts down B, alone in a call longer than the stalemate",
		handlers: []shutdownHandler{{name: "A", informer: 1, shutsDown: "B"}, {name: "B", blocks: true}},
		release:  10 * time.Minute,
		want:     map[string]string{"A": "err@" + stalemate},
	}}
	for _, mode := range queueModes {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { tc.run(t, mode.inOrder) })
			})
		}
	}
}

// run plays the scene in one pipeline; it must run in a synctest bubble.
func (tc shutdownScene) run(t *testing.T, inOrder bool) {
	start := time.Now()
	srv := newTestServer(t)
	create(t, srv, "a")
	infs := []*sharedIndexInformer{
		newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder}),
		newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder}),
	}
	type outcome struct {
		caller string
		err    error
		after  time.Duration
	}
	outcomes := make(chan outcome, len(tc.handlers)+1)
	shutDown := func(caller, target string, inf SharedInformer, reg ResourceEventHandlerRegistration) {
		err := ShutDownEventHandler(inf, reg)
		outcomes <- outcome{caller: caller, err: err, after: time.Since(start)}
	}
	var (
		regs    sync.Map // handler name -> ResourceEventHandlerRegistration
		inPlace sync.WaitGroup
		release = make(chan struct{})
		calls   = map[string]*atomic.Int32{}
	)
	infOf := map[string]*sharedIndexInformer{}
	for _, h := range tc.handlers {
		infOf[h.name] = infs[h.informer]
		calls[h.name] = new(atomic.Int32)
	}
	lookup := func(name string) ResourceEventHandlerRegistration {
		reg, _ := regs.Load(name)
		return reg.(ResourceEventHandlerRegistration)
	}
	for _, h := range tc.handlers {
		joins := h.shutsDown != "" || h.holds > 0 || h.blocks
		if joins {
			inPlace.Add(1)
		}
		n := calls[h.name]
		handler := ResourceEventHandlerFuncs{
			AddFunc: func(any) {
				if n.Add(1) > 1 {
					time.Sleep(h.callTakes)
					return
				}
				if !joins {
					return
				}
				inPlace.Done()
				inPlace.Wait()
				time.Sleep(h.delay)
				if h.shutsDown != "" {
					shutDown(h.name, h.shutsDown, infOf[h.shutsDown], lookup(h.shutsDown))
				}
				time.Sleep(h.holds)
				if h.blocks {
					<-release
				}
			},
			UpdateFunc: func(any, any) {
				n.Add(1)
				time.Sleep(h.callTakes)
			},
		}
		reg, err := infOf[h.name].AddEventHandler(handler)
		if err != nil {
			t.Fatal(err)
		}
		regs.Store(h.name, reg)
	}
	for _, inf := range infs {
		runSharedInformer(t, inf)
	}
	synctest.Wait() // every handler is in its first call, or done with it
	if tc.outside != "" {
		go shutDown("outside", tc.outside, infOf[tc.outside], lookup(tc.outside))
	}
	churned := make(chan struct{})
	if !tc.churn {
		close(churned)
	} else {
		go func() {
			defer close(churned)
			create(t, srv, "b")
			for i := range 30 {
				time.Sleep(10 * time.Second)
				touch(t, srv, "b", fmt.Sprint(i))
			}
		}()
	}
	go func() {
		time.Sleep(tc.release)
		close(release)
	}()

	got := map[string]string{}
	errs := 0
	for range tc.want {
		select {
		case o := <-outcomes:
			result := "nil"
			if o.err != nil {
				if !errors.Is(o.err, errShutdownFromHandler) {
					t.Errorf("%s: ShutDownEventHandler: %v", o.caller, o.err)
				}
				result = "err"
				errs++
			}
			got[o.caller] = fmt.Sprintf("%s@%s", result, o.after)
		case <-time.After(time.Hour):
			t.Fatalf("an hour on, only %v of the ShutDownEventHandler calls returned", got)
		}
	}
	want := map[string]string{}
	for caller, w := range tc.want {
		want[caller] = w
		if when, ok := strings.CutPrefix(w, "any@"); ok {
			want[caller] = when
			got[caller] = got[caller][len("nil@"):]
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ShutDownEventHandler calls (-want +got):\n%s", diff)
	}
	if tc.wantErrs > 0 && errs != tc.wantErrs {
		t.Errorf("%d calls gave up, want %d", errs, tc.wantErrs)
	}

	// Every handler shut down is called no more, once its call returns.
	<-release
	<-churned
	synctest.Wait()
	var targets []string
	for _, h := range tc.handlers {
		if h.shutsDown != "" {
			targets = append(targets, h.shutsDown)
		}
	}
	if tc.outside != "" {
		targets = append(targets, tc.outside)
	}
	before := map[string]int32{}
	for _, name := range targets {
		if !isClosed(lookup(name).(*processorListener).ShutdownChan()) {
			t.Errorf("%s was shut down, but its ShutdownChan is open", name)
		}
		before[name] = calls[name].Load()
	}
	touch(t, srv, "a", "after")
	synctest.Wait()
	for _, name := range slices.Compact(slices.Sorted(slices.Values(targets))) {
		if got := calls[name].Load(); got != before[name] {
			t.Errorf("%s was called %d times after it was shut down", name, got-before[name])
		}
	}
}

// TestShutdownWatchSeesEveryBatchThatBeginsWhileAWaitStarts races a
// listener beginning (or ending) a batch of calls against the first wait of
// its informer's watch: whichever comes first, once both are done the watch
// must know whether the listener is in a call.
func TestShutdownWatchSeesEveryBatchThatBeginsWhileAWaitStarts(t *testing.T) {
	for _, begins := range []bool{true, false} {
		t.Run(fmt.Sprintf("begins=%v", begins), func(t *testing.T) {
			for range 2000 {
				w := newShutdownWatch()
				l, target := newTestListener(nil), newTestListener(nil)
				w.started(l)
				w.started(target)
				target.delivering.Store(true)
				w.batch(target, true)
				l.delivering.Store(!begins)
				var wg sync.WaitGroup
				wg.Go(func() {
					l.delivering.Store(begins)
					w.batch(l, begins)
				})
				sw := w.add(target)
				wg.Wait()
				w.mu.Lock()
				inCall := l.watched.inCall
				w.mu.Unlock()
				if inCall != begins {
					t.Fatalf("the watch has the listener in a call: %v, want %v", inCall, begins)
				}
				w.drop(sw)
				w.mu.Lock()
				if w.timer != nil || w.active.Load() || w.waiting != 0 || w.involved != 0 {
					t.Fatalf("with no wait pending the watch is active %v, with a timer %v, waiting %d, involved %d", w.active.Load(), w.timer != nil, w.waiting, w.involved)
				}
				w.mu.Unlock()
			}
		})
	}
}
