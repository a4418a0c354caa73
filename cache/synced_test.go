package cache

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

// fakeChecker is a DoneChecker closed by the test.
type fakeChecker struct {
	name string
	ch   chan struct{}
}

func newFakeChecker(name string) *fakeChecker {
	return &fakeChecker{name: name, ch: make(chan struct{})}
}

func (c *fakeChecker) Name() string          { return c.name }
func (c *fakeChecker) Done() <-chan struct{} { return c.ch }

func doneChecker(name string) *fakeChecker {
	c := newFakeChecker(name)
	close(c.ch)
	return c
}

// syncedAfter returns an InformerSynced that reports true from its n-th call
// on, and a counter of its calls.
func syncedAfter(n int32) (InformerSynced, *atomic.Int32) {
	var calls atomic.Int32
	return func() bool { return calls.Add(1) >= n }, &calls
}

func TestWaitForCacheSync(t *testing.T) {
	for _, tc := range []struct {
		name      string
		syncedAt  []int32 // per function: the call from which it reports true; 0: never
		stopAfter time.Duration
		want      bool
		wantTime  time.Duration
	}{
		{name: "no functions", want: true},
		{name: "synced at once", syncedAt: []int32{1, 1}, want: true},
		{name: "polls every 100ms", syncedAt: []int32{3}, want: true, wantTime: 200 * time.Millisecond},
		{name: "stopped before sync", syncedAt: []int32{0, 1}, stopAfter: time.Second, want: false, wantTime: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var funcs []InformerSynced
				for _, at := range tc.syncedAt {
					if at == 0 {
						funcs = append(funcs, func() bool { return false })
						continue
					}
					f, _ := syncedAfter(at)
					funcs = append(funcs, f)
				}
				stop := make(chan struct{})
				if tc.stopAfter > 0 {
					time.AfterFunc(tc.stopAfter, func() { close(stop) })
				}
				start := time.Now()
				if got := WaitForCacheSync(stop, funcs...); got != tc.want {
					t.Errorf("WaitForCacheSync() = %v, want %v", got, tc.want)
				}
				if got := time.Since(start); got != tc.wantTime {
					t.Errorf("returned after %v, want %v", got, tc.wantTime)
				}
			})
		})
	}
}

func TestWaitForCacheSyncNilFunction(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	if WaitForCacheSync(stop, func() bool { return true }, nil) {
		t.Error("a nil function counted as synced")
	}
}

// bufferedContext returns a context whose logger records into a buffer, and
// a function returning what was logged.
func bufferedContext(t *testing.T) (context.Context, func() string) {
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
	return klog.NewContext(context.Background(), logger), func() string {
		return logger.GetSink().(ktesting.Underlier).GetBuffer().String()
	}
}

func TestWaitForNamedCacheSyncWithContext(t *testing.T) {
	ctx, logs := bufferedContext(t)
	f, _ := syncedAfter(1)
	if !WaitForNamedCacheSyncWithContext(ctx, f) {
		t.Fatal("not synced")
	}
	for _, want := range []string{"Waiting for caches to sync", "Caches are synced"} {
		if !strings.Contains(logs(), want) {
			t.Errorf("log lacks %q:\n%s", want, logs())
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	cancel()
	if WaitForNamedCacheSyncWithContext(ctx, func() bool { return false }) {
		t.Error("synced after the context ended")
	}
	stop := make(chan struct{})
	close(stop)
	if WaitForNamedCacheSync("test-controller", stop, func() bool { return false }) {
		t.Error("WaitForNamedCacheSync synced after stop")
	}
	if !WaitForNamedCacheSync("test-controller", stop) {
		t.Error("WaitForNamedCacheSync without functions did not sync")
	}
}

func TestWaitFor(t *testing.T) {
	for _, tc := range []struct {
		name        string
		checkers    func() []DoneChecker
		what        string
		want        bool
		wantLogs    []string
		notWantLogs []string
	}{
		{name: "nothing to wait for", checkers: func() []DoneChecker { return nil }, what: "caches", want: true},
		{
			name:     "all done",
			checkers: func() []DoneChecker { return []DoneChecker{doneChecker("a"), doneChecker("b")} },
			what:     "caches",
			want:     true,
			wantLogs: []string{`Waiting for="caches"`, `Done waiting for="caches" instance="a"`, `Done waiting for="caches" instance="b"`},
		},
		{
			name: "names what did not finish",
			checkers: func() []DoneChecker {
				return []DoneChecker{doneChecker("synced"), newFakeChecker("z-pending"), newFakeChecker("a-pending"), nil}
			},
			what:        "caches",
			want:        false,
			wantLogs:    []string{`Timed out waiting for="caches" cause="test deadline" instances=["\u003cnil\u003e","a-pending","z-pending"]`},
			notWantLogs: []string{`Done waiting for="caches" instance="a-pending"`},
		},
		{
			name:        "silent without what",
			checkers:    func() []DoneChecker { return []DoneChecker{doneChecker("a"), newFakeChecker("b")} },
			want:        false,
			notWantLogs: []string{"Waiting", "Timed out"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, logs := bufferedContext(t)
			ctx, cancel := context.WithTimeoutCause(ctx, 100*time.Millisecond, errors.New("test deadline"))
			defer cancel()
			if got := WaitFor(ctx, tc.what, tc.checkers()...); got != tc.want {
				t.Errorf("WaitFor() = %v, want %v", got, tc.want)
			}
			for _, want := range tc.wantLogs {
				if !strings.Contains(logs(), want) {
					t.Errorf("log lacks %s:\n%s", want, logs())
				}
			}
			for _, unwanted := range tc.notWantLogs {
				if strings.Contains(logs(), unwanted) {
					t.Errorf("log has %s:\n%s", unwanted, logs())
				}
			}
		})
	}
}

func TestWaitForCountsCheckersDoneWhenContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		late := newFakeChecker("late")
		ctx, cancel := context.WithCancel(context.Background())
		result := make(chan bool)
		go func() { result <- WaitFor(ctx, "", late) }()
		synctest.Wait()
		close(late.ch)
		cancel()
		if !<-result {
			t.Error("a checker done when the context ended did not count")
		}
	})
}

func TestIsDone(t *testing.T) {
	c := newFakeChecker("c")
	if IsDone(c) {
		t.Error("done before closing")
	}
	close(c.ch)
	if !IsDone(c) {
		t.Error("not done after closing")
	}
}

func TestSyncResultAsError(t *testing.T) {
	type a struct{}
	type b struct{}
	cause := errors.New("context canceled by test")
	for _, tc := range []struct {
		name   string
		result SyncResult
		want   string
	}{
		{name: "synced", result: SyncResult{Synced: map[reflect.Type]bool{reflect.TypeFor[a](): true}}},
		{
			name: "not synced",
			result: SyncResult{Err: cause, Synced: map[reflect.Type]bool{
				reflect.TypeFor[b](): false, reflect.TypeFor[a](): false, reflect.TypeFor[int](): true,
			}},
			want: "failed to sync all caches: cache.a, cache.b: context canceled by test",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.result.AsError()
			var got string
			if err != nil {
				got = err.Error()
				if !errors.Is(err, cause) {
					t.Errorf("%v does not wrap the cause", err)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("AsError() (-want +got):\n%s", diff)
			}
		})
	}
}
