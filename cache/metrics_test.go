package cache

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

type countingGauge struct{ value float64 }

func (g *countingGauge) Set(v float64) { g.value = v }

type countingHistogram struct{ n int }

func (h *countingHistogram) Observe(float64) { h.n++ }

type recordingProvider struct {
	queued, rv *countingGauge
	latency    *countingHistogram
}

func newRecordingProvider() *recordingProvider {
	return &recordingProvider{queued: &countingGauge{}, rv: &countingGauge{}, latency: &countingHistogram{}}
}

func (p *recordingProvider) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric { return p.queued }
func (p *recordingProvider) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return p.latency
}
func (p *recordingProvider) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return p.rv
}

func TestMetricsOnlyForReservedIdentities(t *testing.T) {
	t.Cleanup(ResetInformerNamesForTesting)
	p := newRecordingProvider()

	unreserved := newFIFOMetrics(InformerNameAndResource{}, p)
	if _, ok := unreserved.queuedItems.(noopMetric); !ok {
		t.Fatal("unreserved identity got a real queue metric")
	}
	if _, ok := newStoreMetrics(InformerNameAndResource{}, p).resourceVersion.(noopMetric); !ok {
		t.Fatal("unreserved identity got a real store metric")
	}

	name, err := NewInformerName("metrics")
	if err != nil {
		t.Fatal(err)
	}
	id := name.WithResource(schema.GroupVersionResource{Resource: "things"})
	fm := newFIFOMetrics(id, p)
	fm.queuedItems.Set(3)
	fm.processingLatency.Observe(0.5)
	newStoreMetrics(id, p).resourceVersion.Set(42)
	if p.queued.value != 3 || p.latency.n != 1 || p.rv.value != 42 {
		t.Fatalf("metrics not wired to the provider: %+v %+v %+v", p.queued, p.latency, p.rv)
	}

	// Without an explicit provider and with no global one set, metrics are no-ops.
	if resolveInformerMetricsProvider(nil) == nil {
		if _, ok := newFIFOMetrics(id, nil).queuedItems.(noopMetric); !ok {
			t.Fatal("no provider anywhere, yet a real metric")
		}
	}
}
