package prometheus

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// series returns the series of families whose name starts with prefix, as
// "name{label=value,...}" -> value (counters, gauges) or sample count
// (histograms).
func series(t *testing.T, g prometheus.Gatherer, prefix string) map[string]float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if !strings.HasPrefix(f.GetName(), prefix) {
			continue
		}
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			sort.Strings(labels)
			out[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = value(f.GetType(), m)
		}
	}
	return out
}

func value(t dto.MetricType, m *dto.Metric) float64 {
	switch t {
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue()
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue()
	case dto.MetricType_HISTOGRAM:
		return float64(m.GetHistogram().GetSampleCount())
	}
	return 0
}

// TestProvider runs informers with handlers on the in-memory apiserver and
// checks their series: labelled as configured, counting what happened, and
// gone once the informers stopped.
func TestProvider(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(map[bool]string{false: "DeltaFIFO", true: "InOrder"}[inOrder], func(t *testing.T) {
			reg := prometheus.NewRegistry()
			p, err := NewProvider(reg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewProvider(reg, Options{}); err == nil {
				t.Error("a second provider registered the same metrics")
			}
			srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
			defer srv.Close()
			if _, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}}); err != nil {
				t.Fatal(err)
			}
			name, err := cache.NewInformerName("test-" + t.Name())
			if err != nil {
				t.Fatal(err)
			}
			defer name.Release()
			informer := cache.NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, cache.SharedIndexInformerOptions{
				InOrder:            inOrder,
				Identifier:         name.WithResource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}),
				RunMetricsProvider: p,
			})
			if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{}); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				informer.RunWithContext(ctx)
			}()
			waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
			defer waitCancel()
			if err := cache.WaitForSync(waitCtx, cache.WaitForSyncOptions{}, informer); err != nil {
				t.Fatal(err)
			}
			deleted, err := srv.Delete("ns", "a")
			if err != nil {
				t.Fatal(err)
			}
			if err := cache.WaitForResourceVersion(waitCtx, informer, deleted.ResourceVersion); err != nil {
				t.Fatal(err)
			}

			got := series(t, reg, "informer_")
			key := func(name string, extra ...string) string {
				labels := append([]string{"informer=test-" + t.Name(), "resource=deployments.apps", "type=*v1.PartialObjectMetadata"}, extra...)
				sort.Strings(labels)
				return name + "{" + strings.Join(labels, ",") + "}"
			}
			for key, want := range map[string]float64{
				key("informer_lists_total", "method=streaming", "result=success"): 1,
				key("informer_list_items", "method=streaming"):                    1,
				key("informer_events_total", "event_type=DELETED"):                1,
				key("informer_store_objects"):                                     0,
				key("informer_last_sync_resource_version"):                        3,
			} {
				if g, ok := got[key]; !ok || g != want {
					t.Errorf("%s = %v (present: %v), want %v", key, g, ok, want)
				}
			}
			handlerSeries := 0
			for key := range got {
				if strings.HasPrefix(key, "informer_handler_") {
					handlerSeries++
				}
			}
			if handlerSeries != 3 { // backlog, latency, panics
				t.Errorf("%d handler series, want 3: %v", handlerSeries, got)
			}

			cancel()
			<-done
			if left := series(t, reg, "informer_"); len(left) != 0 {
				t.Errorf("series left after the informer stopped: %v", left)
			}
		})
	}
}
