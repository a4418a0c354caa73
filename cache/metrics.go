package cache

import "sync"

// GaugeMetric is a metric that is set to a value.
type GaugeMetric interface {
	Set(float64)
}

// CounterMetric is a metric that counts up.
type CounterMetric interface {
	Inc()
}

// SummaryMetric records observations for a summary.
type SummaryMetric interface {
	Observe(float64)
}

// HistogramMetric records observations for a histogram.
type HistogramMetric interface {
	Observe(float64)
}

// noopMetric implements every metric interface and records nothing.
type noopMetric struct{}

func (noopMetric) Inc()            {}
func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}

// MetricsProvider creates reflector metrics. It is kept for API compatibility
// with client-go, whose reflector, like this one, creates none of them.
type MetricsProvider interface {
	NewListsMetric(name string) CounterMetric
	NewListDurationMetric(name string) SummaryMetric
	NewItemsInListMetric(name string) SummaryMetric

	NewWatchesMetric(name string) CounterMetric
	NewShortWatchesMetric(name string) CounterMetric
	NewWatchDurationMetric(name string) SummaryMetric
	NewItemsInWatchMetric(name string) SummaryMetric

	NewLastResourceVersionMetric(name string) GaugeMetric
}

var reflectorMetrics = struct {
	once     sync.Once
	provider MetricsProvider // set at most once, by SetReflectorMetricsProvider
}{}

// SetReflectorMetricsProvider records the reflector metrics provider. Only the
// first call has an effect. It is safe for concurrent use.
func SetReflectorMetricsProvider(metricsProvider MetricsProvider) {
	reflectorMetrics.once.Do(func() { reflectorMetrics.provider = metricsProvider })
}

// InformerMetricsProvider creates the metrics of one informer identity: queue
// depth, handler processing latency and the store's resource version. Metrics
// are only created for reserved identities ([InformerNameAndResource.Reserved]).
type InformerMetricsProvider interface {
	// NewQueuedItemMetric returns a gauge of the number of items queued and
	// waiting to be processed.
	NewQueuedItemMetric(id InformerNameAndResource) GaugeMetric
	// NewProcessingLatencyMetric returns a histogram of the seconds taken to
	// process an item popped from the queue.
	NewProcessingLatencyMetric(id InformerNameAndResource) HistogramMetric
	// NewStoreResourceVersionMetric returns a gauge of the store's resource
	// version.
	NewStoreResourceVersionMetric(id InformerNameAndResource) GaugeMetric
}

// processWideProvider holds a process-wide metrics provider of type P, set
// at most once. It is safe for concurrent use.
type processWideProvider[P any] struct {
	once     sync.Once
	mu       sync.RWMutex
	provider P // guarded by mu; the zero value means no metrics
}

// setOnce records provider unless a provider was set before.
func (p *processWideProvider[P]) setOnce(provider P) {
	p.once.Do(func() {
		p.mu.Lock()
		p.provider = provider
		p.mu.Unlock()
	})
}

// get returns the provider, the zero value if none was set.
func (p *processWideProvider[P]) get() P {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.provider
}

var informerMetrics processWideProvider[InformerMetricsProvider]

// SetInformerMetricsProvider sets the process-wide [InformerMetricsProvider]
// used by queues and stores created afterwards without an explicit provider.
// Only the first call has an effect. It is safe for concurrent use.
func SetInformerMetricsProvider(metricsProvider InformerMetricsProvider) {
	informerMetrics.setOnce(metricsProvider)
}

// fifoMetrics are the metrics a queue updates.
type fifoMetrics struct {
	queuedItems       GaugeMetric
	processingLatency HistogramMetric
}

// storeMetrics are the metrics a store updates.
type storeMetrics struct {
	resourceVersion GaugeMetric
}

// resolveInformerMetricsProvider returns provider, or the process-wide one when
// provider is nil. The result may be nil.
func resolveInformerMetricsProvider(provider InformerMetricsProvider) InformerMetricsProvider {
	if provider != nil {
		return provider
	}
	return informerMetrics.get()
}

// newFIFOMetrics returns the queue metrics of id: real ones when id is reserved
// and a provider is known, no-ops otherwise.
func newFIFOMetrics(id InformerNameAndResource, provider InformerMetricsProvider) *fifoMetrics {
	m := &fifoMetrics{queuedItems: noopMetric{}, processingLatency: noopMetric{}}
	if p := resolveInformerMetricsProvider(provider); p != nil && id.Reserved() {
		m.queuedItems = p.NewQueuedItemMetric(id)
		m.processingLatency = p.NewProcessingLatencyMetric(id)
	}
	return m
}

// newStoreMetrics returns the store metrics of id: a real gauge when id is
// reserved and a provider is known, a no-op otherwise.
func newStoreMetrics(id InformerNameAndResource, provider InformerMetricsProvider) *storeMetrics {
	m := &storeMetrics{resourceVersion: noopMetric{}}
	if p := resolveInformerMetricsProvider(provider); p != nil && id.Reserved() {
		m.resourceVersion = p.NewStoreResourceVersionMetric(id)
	}
	return m
}
