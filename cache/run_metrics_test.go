package cache

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"

	framework "github.com/informer-go/informer/cache/testing"
)

// seriesProvider is a RunMetricsProvider that keeps series the way a
// Prometheus adapter does: one per metric name and full label set, created
// on first use, deleted when the last handle of its label set is released.
type seriesProvider struct {
	mu     sync.Mutex
	series map[string]float64 // "<metric>{<labels>}" -> value; guarded by mu
	refs   map[string]int     // label set -> live handles; guarded by mu
	peak   int                // most series at once; guarded by mu
}

func newSeriesProvider() *seriesProvider {
	return &seriesProvider{series: map[string]float64{}, refs: map[string]int{}}
}

func (p *seriesProvider) NewInformerRunMetrics(labels InformerMetricLabels) InformerRunMetrics {
	return p.handle(fmt.Sprintf("informer=%q,resource=%q,type=%q", labels.Name, labels.Resource, labels.Type))
}

func (p *seriesProvider) NewHandlerRunMetrics(labels HandlerMetricLabels) HandlerRunMetrics {
	return p.handle(fmt.Sprintf("informer=%q,resource=%q,type=%q,handler=%q", labels.Name, labels.Resource, labels.Type, labels.Handler))
}

func (p *seriesProvider) handle(labels string) *seriesHandle {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refs[labels]++
	return &seriesHandle{p: p, labels: labels}
}

// liveSeries returns the number of series.
func (p *seriesProvider) liveSeries() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.series)
}

// values returns the series whose label set is labels, by metric name.
func (p *seriesProvider) values(labels string) map[string]float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]float64{}
	for k, v := range p.series {
		if name, l, _ := strings.Cut(k, "|"); l == labels {
			out[name] = v
		}
	}
	return out
}

// seriesHandle is the InformerRunMetrics and HandlerRunMetrics of one label
// set.
type seriesHandle struct {
	p        *seriesProvider
	labels   string
	released bool // guarded by p.mu
}

func (h *seriesHandle) update(metric string, f func(float64) float64) {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	if h.released {
		panic("metric " + metric + " updated after Release")
	}
	k := metric + "|" + h.labels
	h.p.series[k] = f(h.p.series[k])
	h.p.peak = max(h.p.peak, len(h.p.series))
}

func (h *seriesHandle) add(metric string, d float64) {
	h.update(metric, func(v float64) float64 { return v + d })
}

func (h *seriesHandle) set(metric string, v float64) {
	h.update(metric, func(float64) float64 { return v })
}

func (h *seriesHandle) ObserveList(method ListMethod, _ time.Duration, items int, err error) {
	result := "success"
	if err != nil {
		result = "error"
	}
	h.add("lists/"+string(method)+"/"+result, 1)
	h.add("list_items/"+string(method), float64(items))
}
func (h *seriesHandle) ObserveWatchStart(err error) {
	if err != nil {
		h.add("watch_starts/error", 1)
		return
	}
	h.add("watch_starts/success", 1)
}
func (h *seriesHandle) ObserveWatch(_ time.Duration, events int) {
	h.add("watches", 1)
	h.add("watch_events", float64(events))
}
func (h *seriesHandle) IncRelists(reason RelistReason) { h.add("relists/"+string(reason), 1) }
func (h *seriesHandle) IncWatchRestarts(cause WatchRestartCause) {
	h.add("watch_restarts/"+string(cause), 1)
}
func (h *seriesHandle) IncEvents(t watch.EventType)           { h.add("events/"+string(t), 1) }
func (h *seriesHandle) SetStoreObjects(n int)                 { h.set("store_objects", float64(n)) }
func (h *seriesHandle) SetLastSyncResourceVersion(rv float64) { h.set("last_rv", rv) }
func (h *seriesHandle) SetFirstSyncDuration(d time.Duration) {
	h.set("first_sync_seconds", d.Seconds())
}
func (h *seriesHandle) SetBacklog(n int)                { h.set("backlog", float64(n)) }
func (h *seriesHandle) ObserveDelivery(d time.Duration) { h.add("deliveries", 1) }
func (h *seriesHandle) IncPanics()                      { h.add("panics", 1) }
func (h *seriesHandle) Release() {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	if h.released {
		panic("released twice")
	}
	h.released = true
	if h.p.refs[h.labels]--; h.p.refs[h.labels] > 0 {
		return
	}
	delete(h.p.refs, h.labels)
	for k := range h.p.series {
		if _, l, _ := strings.Cut(k, "|"); l == h.labels {
			delete(h.p.series, k)
		}
	}
}

// testInformerLabels is the label set of the informers of newTestInformer.
const testInformerLabels = `informer="",resource="",type="*v1.PartialObjectMetadata"`

// TestRunMetrics runs an informer through writes, an expired watch and a
// panicking handler, and checks what its metrics say: relists by reason,
// watch restarts by cause, events by type, the store, the handler.
func TestRunMetrics(t *testing.T) {
	defer func(old bool) { utilruntime.ReallyCrash = old }(utilruntime.ReallyCrash)
	utilruntime.ReallyCrash = false
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		srv := framework.NewServer(opts)
		defer srv.Close()
		create(t, srv, "a")
		create(t, srv, "b")
		p := newSeriesProvider()
		inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder, RunMetricsProvider: p})
		rec := newRecorder()
		if _, err := inf.AddEventHandler(rec); err != nil {
			t.Fatal(err)
		}
		panicky := ResourceEventHandlerFuncs{UpdateFunc: func(_, obj any) {
			if obj.(*metav1.PartialObjectMetadata).Name == "b" {
				panic("handler bug")
			}
		}}
		if _, err := inf.AddEventHandler(panicky); err != nil {
			t.Fatal(err)
		}
		stop := runSharedInformer(t, inf)
		time.Sleep(time.Second) // time to the first sync
		synctest.Wait()

		touch(t, srv, "a", "1")
		touch(t, srv, "b", "1")
		remove(t, srv, "a")
		synctest.Wait()
		// An expired watch: the informer relists.
		srv.FailNextWatchStreams(1, errExpired)
		srv.CloseWatchStreams()
		time.Sleep(time.Minute) // the backoff delay
		synctest.Wait()

		listMethod := "streaming"
		if opts.WatchListUnsupported {
			listMethod = "paginated"
		}
		got := p.values(testInformerLabels)
		want := map[string]float64{
			"lists/" + listMethod + "/success": 2,
			"list_items/" + listMethod:         3, // a and b, then b
			"relists/expired":                  1,
			"watch_restarts/closed":            1,
			"watch_restarts/expired":           1,
			"watch_starts/success":             1, // the watch after the closed one
			"watches":                          2, // the third is open
			"watch_events":                     3,
			"events/MODIFIED":                  2,
			"events/DELETED":                   1,
			"store_objects":                    1,
			"last_rv":                          6,
			"first_sync_seconds":               0,
		}
		if opts.WatchListUnsupported {
			// Each list is followed by a watch of its own.
			want["watch_starts/success"] = 3
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("informer metrics (-want +got):\n%s", diff)
		}
		handlerLabels := func(h ResourceEventHandler) string {
			return fmt.Sprintf("%s,handler=%q", testInformerLabels, nameForHandler(h))
		}
		if got := p.values(handlerLabels(panicky)); got["panics"] != 2 || got["deliveries"] != 6 || got["backlog"] != 0 {
			// Two adds, two updates, a delete and the relist's update of
			// b: the updates of b panic.
			t.Errorf("panicking handler's metrics %v, want 2 panics in 6 deliveries and no backlog", got)
		}
		if got := p.values(handlerLabels(rec)); got["panics"] != 0 || got["deliveries"] != 6 {
			t.Errorf("recorder's metrics %v, want 6 deliveries", got)
		}

		stop()
		if n := p.liveSeries(); n != 0 {
			t.Errorf("%d series live after the informer stopped", n)
		}
	})
}

// TestRunMetricsReleased checks that starting and stopping informers, and
// adding and removing handlers, leaves no series behind: after 1,000
// start/stop cycles the live series count is back at its baseline.
func TestRunMetricsReleased(t *testing.T) {
	for _, qm := range queueModes {
		t.Run(qm.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
				defer srv.Close()
				create(t, srv, "a")
				p := newSeriesProvider()
				baseline := p.liveSeries()
				for i := range 1000 {
					inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: qm.inOrder, RunMetricsProvider: p})
					reg, err := inf.AddEventHandler(newRecorder())
					if err != nil {
						t.Fatal(err)
					}
					removed, err := inf.AddEventHandler(ResourceEventHandlerFuncs{})
					if err != nil {
						t.Fatal(err)
					}
					stop := runSharedInformer(t, inf)
					synctest.Wait()
					if !reg.HasSynced() {
						t.Fatalf("cycle %d: not synced", i)
					}
					if i == 0 && p.liveSeries() == baseline {
						t.Fatal("a running informer has no series")
					}
					if err := ShutDownEventHandler(inf, removed); err != nil {
						t.Fatal(err)
					}
					stop()
				}
				if n := p.liveSeries(); n != baseline {
					t.Errorf("%d series live after 1,000 cycles, baseline %d (peak %d)", n, baseline, p.peak)
				}
				if n := len(p.refs); n != 0 {
					t.Errorf("%d label sets still referenced", n)
				}
			})
		})
	}
}

// firstSyncProvider counts the SetFirstSyncDuration calls of the informers
// it makes metrics for, and notes a call made after Release.
type firstSyncProvider struct {
	mu      sync.Mutex
	reports int  // guarded by mu
	late    bool // a call after Release; guarded by mu
}

func (p *firstSyncProvider) NewInformerRunMetrics(InformerMetricLabels) InformerRunMetrics {
	return &firstSyncHandle{p: p}
}

func (p *firstSyncProvider) NewHandlerRunMetrics(HandlerMetricLabels) HandlerRunMetrics {
	return noopHandlerRunMetrics{}
}

// counts returns the number of reports and whether one came after Release.
func (p *firstSyncProvider) counts() (reports int, late bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reports, p.late
}

type firstSyncHandle struct {
	noopRunMetrics
	p        *firstSyncProvider
	released bool // guarded by p.mu
}

func (h *firstSyncHandle) SetFirstSyncDuration(time.Duration) {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	h.p.reports++
	h.p.late = h.p.late || h.released
}

func (h *firstSyncHandle) Release() {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	h.released = true
}

type noopHandlerRunMetrics struct{}

func (noopHandlerRunMetrics) SetBacklog(int)                {}
func (noopHandlerRunMetrics) ObserveDelivery(time.Duration) {}
func (noopHandlerRunMetrics) IncPanics()                    {}
func (noopHandlerRunMetrics) Release()                      {}

// TestRunMetricsFirstSyncOnStop checks that an informer that syncs as it
// stops reports the time to its first sync exactly once, before its metrics
// are released: the stop is requested while the informer applies the last
// object of its initial list, so that the sync and the stop race. Each run
// of the race is lost with even odds or more by a reporter that takes
// whichever comes first, so 100 runs per pipeline catch it.
func TestRunMetricsFirstSyncOnStop(t *testing.T) {
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		srv := framework.NewServer(opts)
		defer srv.Close()
		create(t, srv, "a")
		for i := range 100 {
			p := &firstSyncProvider{}
			ctx, cancel := context.WithCancel(testContext(t))
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder, RunMetricsProvider: p, Indexers: Indexers{
				"stop": func(any) ([]string, error) {
					cancel()
					return nil, nil
				},
			}})
			inf.RunWithContext(ctx)
			// The controller's queue: the informer's own HasSynced
			// follows it on a goroutine of its own, which the stop may
			// end first, as in client-go.
			if !inf.controller.HasSynced() {
				t.Fatalf("run %d: the informer did not sync", i)
			}
			if reports, late := p.counts(); reports != 1 || late {
				t.Fatalf("run %d: time to first sync reported %d times (after Release: %v), want once", i, reports, late)
			}
		}
	})
}

// TestRunMetricsFirstSyncNever checks that an informer that never synced
// never reports the time to its first sync.
func TestRunMetricsFirstSyncNever(t *testing.T) {
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		srv := framework.NewServer(opts)
		defer srv.Close()
		create(t, srv, "a")
		failLists(srv, 1000, errRBACForbidden)
		p := &firstSyncProvider{}
		inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder, RunMetricsProvider: p})
		stop := runSharedInformer(t, inf)
		time.Sleep(time.Minute) // several failed lists
		synctest.Wait()
		stop()
		if inf.controller.HasSynced() {
			t.Fatal("the informer synced")
		}
		if reports, _ := p.counts(); reports != 0 {
			t.Errorf("time to first sync reported %d times by an informer that never synced", reports)
		}
	})
}
