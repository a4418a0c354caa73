package cache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	framework "github.com/informer-go/informer/cache/testing"
)

// mapSource is a backlogSource over a map, for listeners driven by one
// goroutine; lock, when set, is held around fn as an informer holds
// blockDeltas.
type mapSource struct {
	lock sync.Locker
	objs map[string]any
}

func (s *mapSource) whileQuiet(fn func(get func(key string) (any, bool))) {
	if s.lock != nil {
		s.lock.Lock()
		defer s.lock.Unlock()
	}
	fn(func(key string) (any, bool) {
		obj, ok := s.objs[key]
		return obj, ok
	})
}

// newBoundedTestListener returns a listener for handler with bounds, reading
// stale entries from objs.
func newBoundedTestListener(handler ResourceEventHandler, bounds backlogBounds, source backlogSource) *processorListener {
	l := newTestListener(handler)
	l.setBacklog(bounds, DeletionHandlingMetaNamespaceKeyFunc, source)
	return l
}

// backlog returns l's pending notifications.
func (l *processorListener) backlog() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.backlogLocked()
}

// takeOnce does what one round of run does, without the goroutine: it takes
// a batch (refreshing stale entries) and delivers it. The listener must have
// something pending; it may turn out to be nothing to deliver.
func (l *processorListener) takeOnce(t *testing.T) {
	t.Helper()
	batch, _, state := l.next(make([]notification, 0, deliveryBatchSize))
	switch state {
	case nextStopped:
		t.Fatal("the listener stopped")
	case nextStale:
		var ok bool
		if batch, ok = l.takeStale(batch); !ok {
			t.Fatal("the listener stopped")
		}
	}
	for i := range batch {
		if l.keyed != nil && !l.flight.claim(i) {
			t.Fatal("the listener's batch was taken back")
		}
		l.deliver(&batch[i])
	}
}

func TestListenerBacklogAgainstModel(t *testing.T) {
	const keys = 6
	tests := []struct {
		name   string
		bounds backlogBounds
		// most is the largest backlog allowed.
		most int
	}{
		{name: "coalesce at once", bounds: backlogBounds{coalesce: true}, most: 2 * keys},
		{name: "coalesce after 5", bounds: backlogBounds{coalesce: true, coalesceAfter: 5}, most: 5 + 2*keys},
		{name: "cap 8", bounds: backlogBounds{max: 8}, most: 8},
		{name: "cap 3 below the keys", bounds: backlogBounds{max: 3}, most: keys},
		{name: "coalesce after 2 and cap 4", bounds: backlogBounds{coalesce: true, coalesceAfter: 2, max: 4}, most: keys},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(100) {
				rng := rand.New(rand.NewPCG(seed, 42))
				objs := &testObjects{rng: rng, objs: map[string]any{}}
				view := newReplayView()
				l := newBoundedTestListener(view, tc.bounds, &mapSource{objs: objs.objs})
				for step := range 400 {
					if step == 60 {
						l.upstreamHasSynced()
					}
					if l.backlog() == 0 || rng.IntN(3) > 0 {
						_, n := objs.next(keys, step < 60)
						l.add(n)
					} else {
						l.takeOnce(t)
					}
					if got := l.backlog(); got > tc.most {
						t.Fatalf("seed %d, step %d: backlog %d, want at most %d", seed, step, got, tc.most)
					}
				}
				for l.backlog() > 0 {
					l.takeOnce(t)
				}
				got, _, problems := view.snapshot()
				if len(problems) > 0 {
					t.Fatalf("seed %d: the handler got inconsistent calls:\n%v", seed, problems)
				}
				if diff := cmp.Diff(objectsView(objs.objs), got); diff != "" {
					t.Fatalf("seed %d: the handler's view is not the objects' (-want +got):\n%s", seed, diff)
				}
				if !l.HasSynced() {
					t.Fatalf("seed %d: the registration did not sync", seed)
				}
			}
		})
	}
}

// objectsView returns the key to resource version map of objs.
func objectsView(objs map[string]any) map[string]string {
	view := map[string]string{}
	for _, obj := range objs {
		key, rv := describeObject(obj)
		view[key] = rv
	}
	return view
}

func TestListenerBacklogKeepsTheRingBelowItsBounds(t *testing.T) {
	tests := []struct {
		name   string
		bounds backlogBounds
		want   []string
	}{
		{
			name: "unbounded: every notification",
			want: []string{"update ns/a@2 from 1", "update ns/a@3 from 2", "update ns/a@4 from 3", "update ns/a@5 from 4"},
		},
		{
			name:   "coalesce after 2: two as they are, the rest merged",
			bounds: backlogBounds{coalesce: true, coalesceAfter: 2},
			want:   []string{"update ns/a@2 from 1", "update ns/a@3 from 2", "update ns/a@5 from 3"},
		},
		{
			name:   "cap 3: the store's state once past it",
			bounds: backlogBounds{max: 3},
			want:   []string{"update ns/a@9 from 1"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder()
			l := newBoundedTestListener(rec, tc.bounds, &mapSource{objs: map[string]any{"ns/a": pom("a", "9")}})
			for rv := 1; rv < 5; rv++ {
				l.add(nUpdate(fmt.Sprint(rv), fmt.Sprint(rv+1)))
			}
			for l.backlog() > 0 {
				l.takeOnce(t)
			}
			var got []string
			for _, e := range rec.recorded() {
				got = append(got, e.String())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListenerBacklogStopDropsTheCoalescedNotifications(t *testing.T) {
	rec := newRecorder()
	l := newBoundedTestListener(rec, backlogBounds{coalesce: true}, nil)
	l.add(nUpdate("1", "2"))
	l.stop()
	if got := l.backlog(); got != 0 {
		t.Errorf("backlog after stop = %d, want 0", got)
	}
	l.add(nUpdate("2", "3"))
	if got := l.backlog(); got != 0 {
		t.Errorf("backlog after an add after stop = %d, want 0", got)
	}
	if _, _, state := l.next(nil); state != nextStopped {
		t.Errorf("next after stop = %v, want nextStopped", state)
	}
}

func TestListenerBacklogResolvesWhileTheProducerWaits(t *testing.T) {
	// The producer adds under the source's lock, as the informer
	// distributes under blockDeltas: a stale entry is resolved against a
	// store that matches what the listener was told.
	var mu sync.Mutex
	objs := map[string]any{}
	view := newReplayView()
	l := newBoundedTestListener(view, backlogBounds{max: 10}, &mapSource{lock: &mu, objs: objs})
	var wg sync.WaitGroup
	l.start(&wg)
	release := make(chan struct{})
	var once sync.Once
	view.onCall = func() { once.Do(func() { <-release }) }

	objects := &testObjects{rng: rand.New(rand.NewPCG(1, 2)), objs: objs}
	for i := range 20_000 {
		mu.Lock()
		_, n := objects.next(50, false)
		l.add(n)
		mu.Unlock()
		if i == 10_000 {
			close(release)
		}
	}
	mu.Lock()
	want := objectsView(objs)
	mu.Unlock()
	waitFor(t, "the handler's view to match the objects", func() bool {
		got, _, _ := view.snapshot()
		return cmp.Equal(want, got) && l.backlog() == 0
	})
	l.stop()
	wg.Wait()
	if _, _, problems := view.snapshot(); len(problems) > 0 {
		t.Errorf("the handler got inconsistent calls:\n%v", problems)
	}
}

// backlogSampler is a RunMetricsProvider that records, in the order they
// happen, the backlog samples of the handler named handler and its calls
// (noted by the handler itself with call): both happen on the handler's
// delivery goroutine.
type backlogSampler struct {
	*seriesProvider
	handler string
	mu      sync.Mutex
	// timeline holds the samples, and -1 for each call. guarded by mu.
	timeline []int
}

func newBacklogSampler(handler string) *backlogSampler {
	return &backlogSampler{seriesProvider: newSeriesProvider(), handler: handler}
}

func (p *backlogSampler) NewHandlerRunMetrics(labels HandlerMetricLabels) HandlerRunMetrics {
	m := p.seriesProvider.NewHandlerRunMetrics(labels)
	if labels.Handler != p.handler {
		return m
	}
	return &sampledHandle{HandlerRunMetrics: m, p: p}
}

func (p *backlogSampler) note(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timeline = append(p.timeline, n)
}

// call notes a call of the handler.
func (p *backlogSampler) call() { p.note(-1) }

// since returns the timeline from position from on, and its length.
func (p *backlogSampler) since(from int) ([]int, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.timeline[from:]), len(p.timeline)
}

type sampledHandle struct {
	HandlerRunMetrics
	p *backlogSampler
}

func (h *sampledHandle) SetBacklog(n int) {
	h.p.note(n)
	h.HandlerRunMetrics.SetBacklog(n)
}

// stuckHandler records its calls and keeps a view of the objects from them.
type stuckHandler struct {
	*recorder
	view *replayView
}

func (h stuckHandler) OnAdd(obj any, isInInitialList bool) {
	h.view.OnAdd(obj, isInInitialList)
	h.recorder.OnAdd(obj, isInInitialList)
}

func (h stuckHandler) OnUpdate(oldObj, newObj any) {
	h.view.OnUpdate(oldObj, newObj)
	h.recorder.OnUpdate(oldObj, newObj)
}

func (h stuckHandler) OnDelete(obj any) {
	h.view.OnDelete(obj)
	h.recorder.OnDelete(obj)
}

// TestBoundedBacklogHoldsNothingOutsideItsBounds blocks a bounded handler in
// the first call of the replay of 102 objects (when it is added to a running
// informer), then changes the objects, and counts what reaches the handler
// once it is released: everything it had not been handed, which must be
// within the bounds, merged as HandlerOptions says, and what the backlog
// metric reported when the handler went on.
func TestBoundedBacklogHoldsNothingOutsideItsBounds(t *testing.T) {
	const objects = 102
	tests := []struct {
		name    string
		options HandlerOptions
		// change makes the changes while the handler is blocked.
		change func(t *testing.T, srv *framework.Server[*metav1.PartialObjectMetadata])
		// most is the most calls that may follow the blocked one.
		most int
		// check, when set, checks the calls that followed the blocked one.
		check func(t *testing.T, blocked event, after []event)
	}{{
		// CoalesceAfter one per event, then at most two per object.
		name:    "coalesce after 500",
		options: HandlerOptions{Coalesce: true, CoalesceAfter: 500},
		change: func(t *testing.T, srv *framework.Server[*metav1.PartialObjectMetadata]) {
			for i := range 500 {
				touch(t, srv, fmt.Sprintf("o%d", i%objects), fmt.Sprint(i))
			}
			for i := range objects {
				remove(t, srv, fmt.Sprintf("o%d", i))
				create(t, srv, fmt.Sprintf("o%d", i))
			}
		},
		most: 500 + 2*objects,
	}, {
		name:    "cap 500",
		options: HandlerOptions{MaxBacklog: 500},
		change: func(t *testing.T, srv *framework.Server[*metav1.PartialObjectMetadata]) {
			for i := range 450 {
				touch(t, srv, fmt.Sprintf("o%d", i%objects), fmt.Sprint(i))
			}
		},
		most: 500,
	}, {
		// The initial add of an object and its delete cancel out: each
		// object is added once, after the delete, not in the initial
		// list; the handler, blocked in the add of one of them, is told
		// that one was deleted and added.
		name:    "add, delete, add during the initial list",
		options: HandlerOptions{Coalesce: true},
		change: func(t *testing.T, srv *framework.Server[*metav1.PartialObjectMetadata]) {
			for i := range objects {
				remove(t, srv, fmt.Sprintf("o%d", i))
				create(t, srv, fmt.Sprintf("o%d", i))
			}
		},
		most: objects + 1,
		check: func(t *testing.T, blocked event, after []event) {
			got := map[string][]string{}
			want := map[string][]string{}
			for i := range objects {
				want[fmt.Sprintf("%s/o%d", testNamespace, i)] = []string{"add initial=false"}
			}
			want[blocked.Key] = []string{"delete initial=false", "add initial=false"}
			for _, e := range after {
				got[e.Key] = append(got[e.Key], fmt.Sprintf("%s initial=%v", e.Kind, e.Initial))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the calls per object once the handler went on (-want +got):\n%s", diff)
			}
		},
	}}
	for _, mode := range queueModes {
		for _, tc := range tests {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv := newTestServer(t)
					for i := range objects {
						create(t, srv, fmt.Sprintf("o%d", i))
					}
					release := make(chan struct{})
					stuck := stuckHandler{newRecorder(), newReplayView()}
					sampler := newBacklogSampler(handlerName(stuck))
					stuck.onEvent = func(event) {
						sampler.call()
						if stuck.count() == 1 {
							<-release
						}
					}
					inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder, RunMetricsProvider: sampler})
					runSharedInformer(t, inf)
					waitForSync(t, inf.HasSyncedChecker())

					reg, err := inf.AddEventHandlerWithOptions(stuck, tc.options)
					if err != nil {
						t.Fatal(err)
					}
					synctest.Wait() // blocked in the first add of the replay
					tc.change(t, srv)
					synctest.Wait()
					held := reg.(*processorListener).backlog()
					_, mark := sampler.since(0)
					close(release)
					synctest.Wait()

					calls := stuck.recorded()
					after := calls[1:]
					if len(after) > tc.most {
						t.Errorf("%d calls followed the blocked one: the handler held %d notifications, want at most %d", len(after), len(after), tc.most)
					}
					perObject := map[string]int{}
					for _, e := range after {
						perObject[e.Key]++
					}
					for key, n := range perObject {
						if n > 2 && tc.options.Coalesce && tc.options.CoalesceAfter == 0 {
							t.Errorf("%d notifications about %s were held, want at most 2", n, key)
						}
					}
					if held != len(after) {
						t.Errorf("the backlog counted %d notifications, want the %d that followed", held, len(after))
					}
					// The first sample after the release counts what the
					// calls before it left.
					timeline, _ := sampler.since(mark)
					before := 0
					for _, n := range timeline {
						if n >= 0 {
							if want := len(after) - before; n != want {
								t.Errorf("the backlog metric went on with %d after %d calls, want %d", n, before, want)
							}
							break
						}
						before++
					}
					if tc.check != nil {
						tc.check(t, calls[0], after)
					}
					view, _, problems := stuck.view.snapshot()
					if len(problems) > 0 {
						t.Errorf("the handler got inconsistent calls:\n%v", problems)
					}
					if diff := cmp.Diff(storeView(inf.GetStore()), view); diff != "" {
						t.Errorf("the handler's view is not the store's (-want +got):\n%s", diff)
					}
					if !reg.HasSynced() {
						t.Error("the registration did not sync")
					}
				})
			})
		}
	}
}
