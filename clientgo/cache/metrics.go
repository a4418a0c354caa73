package cache

import (
	"fmt"
	"sync"
	"sync/atomic"

	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// processWide is the provider of the last [SetInformerMetricsProvider] call
// that had an effect, for the informers of this package.
var processWide struct {
	once     sync.Once
	mu       sync.RWMutex
	provider InformerMetricsProvider // guarded by mu
}

// SetInformerMetricsProvider sets the process-wide provider of the queue and
// store metrics of informers given no provider of their own: client-go's
// (for the informers, queues and stores of client-go's code, as
// toolscache.SetInformerMetricsProvider does) and this package's (for its
// informers, which run on informer-go). Only the first call has an effect on
// each. A provider set only through client-go's function does not reach the
// informers of this package. It is safe for concurrent use.
func SetInformerMetricsProvider(metricsProvider InformerMetricsProvider) {
	toolscache.SetInformerMetricsProvider(metricsProvider)
	processWide.once.Do(func() {
		processWide.mu.Lock()
		processWide.provider = metricsProvider
		processWide.mu.Unlock()
	})
}

// twins numbers the informer-go names reserved for client-go identities.
var twins atomic.Uint64

// informerMetrics returns the informer-go identity and provider that give an
// informer-go informer the metrics client-go's would have for id and
// provider: none unless id is reserved; then a reserved informer-go identity
// of its own (informer-go keeps a registry of names apart from client-go's)
// and a provider that creates client-go's metrics for id, from provider or,
// when nil, from the process-wide one when the metric is created. The
// informer-go name stays reserved for the life of the process.
func informerMetrics(id InformerNameAndResource, provider InformerMetricsProvider) (cache.InformerNameAndResource, cache.InformerMetricsProvider) {
	if !id.Reserved() {
		return cache.InformerNameAndResource{}, nil
	}
	name, err := cache.NewInformerName(fmt.Sprintf("%s (client-go identity %d)", id.Name(), twins.Add(1)))
	if err != nil {
		return cache.InformerNameAndResource{}, nil // unreachable: every name is new
	}
	return name.WithResource(id.GroupVersionResource()), identityProvider{id: id, provider: provider}
}

// identityProvider creates client-go metrics for one client-go identity,
// whatever informer-go identity it is asked for.
type identityProvider struct {
	id       InformerNameAndResource
	provider InformerMetricsProvider // nil: the process-wide one
}

// get returns the provider to ask, nil when there is none.
func (p identityProvider) get() InformerMetricsProvider {
	if p.provider != nil {
		return p.provider
	}
	processWide.mu.RLock()
	defer processWide.mu.RUnlock()
	return processWide.provider
}

func (p identityProvider) NewQueuedItemMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	if provider := p.get(); provider != nil {
		return provider.NewQueuedItemMetric(p.id)
	}
	return noopMetric{}
}

func (p identityProvider) NewProcessingLatencyMetric(cache.InformerNameAndResource) cache.HistogramMetric {
	if provider := p.get(); provider != nil {
		return provider.NewProcessingLatencyMetric(p.id)
	}
	return noopMetric{}
}

func (p identityProvider) NewStoreResourceVersionMetric(cache.InformerNameAndResource) cache.GaugeMetric {
	if provider := p.get(); provider != nil {
		return provider.NewStoreResourceVersionMetric(p.id)
	}
	return noopMetric{}
}

// noopMetric records nothing.
type noopMetric struct{}

func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}
