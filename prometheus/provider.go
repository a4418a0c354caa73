package prometheus

import (
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache"
)

// Label names.
const (
	labelInformer  = "informer"
	labelResource  = "resource"
	labelType      = "type"
	labelHandler   = "handler"
	labelMethod    = "method"
	labelResult    = "result"
	labelReason    = "reason"
	labelCause     = "cause"
	labelEventType = "event_type"

	resultSuccess = "success"
	resultError   = "error"
)

// informerLabels are the labels of every metric; handlerLabels those of the
// handler metrics.
var (
	informerLabels = []string{labelInformer, labelResource, labelType}
	handlerLabels  = []string{labelInformer, labelResource, labelType, labelHandler}
)

// Options configures [NewProvider]. The zero value is usable.
type Options struct {
	// Namespace is the prefix of every metric name. Default: "informer".
	Namespace string

	// DurationBuckets are the buckets of the duration histograms (lists,
	// watches, handler calls), in seconds. Default: 100µs to about 26s,
	// times four each.
	DurationBuckets []float64

	// CountBuckets are the buckets of the object and event count
	// histograms. Default: 1 to about 260,000, times four each.
	CountBuckets []float64
}

// Provider is a cache.RunMetricsProvider that exports to Prometheus. Create
// one with [NewProvider]; it is safe for concurrent use.
type Provider struct {
	lists          *prometheus.CounterVec
	listDuration   *prometheus.HistogramVec
	listItems      *prometheus.HistogramVec
	watches        *prometheus.CounterVec
	watchDuration  *prometheus.HistogramVec
	watchEvents    *prometheus.HistogramVec
	relists        *prometheus.CounterVec
	watchRestarts  *prometheus.CounterVec
	events         *prometheus.CounterVec
	storeObjects   *prometheus.GaugeVec
	lastRV         *prometheus.GaugeVec
	firstSync      *prometheus.GaugeVec
	handlerBacklog *prometheus.GaugeVec
	handlerLatency *prometheus.HistogramVec
	handlerPanics  *prometheus.CounterVec

	mu sync.Mutex
	// refs counts the live handles per label set; a label set's series
	// are deleted when its count drops to zero. guarded by mu.
	refs map[labelSet]int
}

var _ cache.RunMetricsProvider = (*Provider)(nil)

// labelSet identifies the handles that share series: an informer's labels,
// with a handler name for handler handles.
type labelSet struct {
	informer, resource, typ string
	handler                 string
	isHandler               bool
}

// NewProvider returns a provider whose metrics are registered with reg. It
// fails if reg refuses them, for instance because another provider with the
// same namespace registered there already.
func NewProvider(reg prometheus.Registerer, options Options) (*Provider, error) {
	ns := options.Namespace
	if ns == "" {
		ns = "informer"
	}
	durations := options.DurationBuckets
	if len(durations) == 0 {
		durations = prometheus.ExponentialBuckets(0.0001, 4, 10)
	}
	counts := options.CountBuckets
	if len(counts) == 0 {
		counts = prometheus.ExponentialBuckets(1, 4, 10)
	}
	with := func(extra ...string) []string { return append(append([]string{}, informerLabels...), extra...) }
	counter := func(name, help string, labels []string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: name, Help: help}, labels)
	}
	gauge := func(name, help string, labels []string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: name, Help: help}, labels)
	}
	histogram := func(name, help string, buckets []float64, labels []string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: name, Help: help, Buckets: buckets}, labels)
	}
	p := &Provider{
		lists:          counter("lists_total", "Lists, by method (paginated or streaming) and result.", with(labelMethod, labelResult)),
		listDuration:   histogram("list_duration_seconds", "How long lists took.", durations, with(labelMethod)),
		listItems:      histogram("list_items", "Objects per successful list.", counts, with(labelMethod)),
		watches:        counter("watches_total", "Watch requests, by result; a streaming list's watch counts as a list.", with(labelResult)),
		watchDuration:  histogram("watch_duration_seconds", "How long watches stayed open.", durations, with()),
		watchEvents:    histogram("watch_events", "Events per watch.", counts, with()),
		relists:        counter("relists_total", "Lists after the first one, by the reason of the previous cycle's end.", with(labelReason)),
		watchRestarts:  counter("watch_restarts_total", "Watches that ended while the informer went on, by cause.", with(labelCause)),
		events:         counter("events_total", "Watch events handed to the store, by type.", with(labelEventType)),
		storeObjects:   gauge("store_objects", "Objects in the informer's store.", with()),
		lastRV:         gauge("last_sync_resource_version", "The newest resource version the informer received (its last 15 digits).", with()),
		firstSync:      gauge("first_sync_duration_seconds", "Seconds from the informer's start to its first sync.", with()),
		handlerBacklog: gauge("handler_backlog", "Notifications waiting for a handler.", handlerLabels),
		handlerLatency: histogram("handler_duration_seconds", "How long a handler's calls took.", durations, handlerLabels),
		handlerPanics:  counter("handler_panics_total", "Handler calls that panicked.", handlerLabels),
		refs:           map[labelSet]int{},
	}
	for _, c := range p.collectors() {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register informer metrics: %w", err)
		}
	}
	return p, nil
}

// collectors returns every metric vector: the informer ones, then the
// handler ones.
func (p *Provider) collectors() []prometheus.Collector {
	return append(p.informerVecs(), p.handlerVecs()...)
}

// metricVec is what the vectors have in common.
type metricVec interface {
	prometheus.Collector
	DeletePartialMatch(prometheus.Labels) int
}

func (p *Provider) informerVecs() []prometheus.Collector {
	return []prometheus.Collector{p.lists, p.listDuration, p.listItems, p.watches, p.watchDuration, p.watchEvents,
		p.relists, p.watchRestarts, p.events, p.storeObjects, p.lastRV, p.firstSync}
}

func (p *Provider) handlerVecs() []prometheus.Collector {
	return []prometheus.Collector{p.handlerBacklog, p.handlerLatency, p.handlerPanics}
}

// acquire counts a new handle of s.
func (p *Provider) acquire(s labelSet) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refs[s]++
}

// release drops a handle of s and deletes the series of s with the last.
func (p *Provider) release(s labelSet) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refs[s]--; p.refs[s] > 0 {
		return
	}
	delete(p.refs, s)
	match := prometheus.Labels{labelInformer: s.informer, labelResource: s.resource, labelType: s.typ}
	vecs := p.informerVecs()
	if s.isHandler {
		match[labelHandler] = s.handler
		vecs = p.handlerVecs()
	}
	for _, c := range vecs {
		c.(metricVec).DeletePartialMatch(match)
	}
}

// NewInformerRunMetrics implements cache.RunMetricsProvider.
func (p *Provider) NewInformerRunMetrics(labels cache.InformerMetricLabels) cache.InformerRunMetrics {
	s := labelSet{informer: labels.Name, resource: labels.Resource, typ: labels.Type}
	p.acquire(s)
	values := []string{s.informer, s.resource, s.typ}
	return &informerMetrics{
		p:             p,
		set:           s,
		values:        values,
		watchDuration: p.watchDuration.WithLabelValues(values...),
		watchEvents:   p.watchEvents.WithLabelValues(values...),
		storeObjects:  p.storeObjects.WithLabelValues(values...),
		lastRV:        p.lastRV.WithLabelValues(values...),
		firstSync:     p.firstSync.WithLabelValues(values...),
	}
}

// NewHandlerRunMetrics implements cache.RunMetricsProvider.
func (p *Provider) NewHandlerRunMetrics(labels cache.HandlerMetricLabels) cache.HandlerRunMetrics {
	s := labelSet{informer: labels.Name, resource: labels.Resource, typ: labels.Type, handler: labels.Handler, isHandler: true}
	p.acquire(s)
	values := []string{s.informer, s.resource, s.typ, s.handler}
	return &handlerMetrics{
		p:       p,
		set:     s,
		backlog: p.handlerBacklog.WithLabelValues(values...),
		latency: p.handlerLatency.WithLabelValues(values...),
		panics:  p.handlerPanics.WithLabelValues(values...),
	}
}

// informerMetrics is the handle of one informer run. The series of the
// frequent updates are looked up once; the others on use.
type informerMetrics struct {
	p      *Provider
	set    labelSet
	values []string // informer, resource, type

	watchDuration, watchEvents prometheus.Observer
	storeObjects, lastRV       prometheus.Gauge
	firstSync                  prometheus.Gauge

	eventsMu sync.Mutex
	events   map[watch.EventType]prometheus.Counter // guarded by eventsMu
}

var _ cache.InformerRunMetrics = (*informerMetrics)(nil)

// labels returns the informer's label values followed by extra.
func (m *informerMetrics) labels(extra ...string) []string {
	return append(append(make([]string, 0, len(m.values)+len(extra)), m.values...), extra...)
}

// ObserveList implements cache.InformerRunMetrics.
func (m *informerMetrics) ObserveList(method cache.ListMethod, duration time.Duration, items int, err error) {
	result := resultSuccess
	if err != nil {
		result = resultError
	}
	m.p.lists.WithLabelValues(m.labels(string(method), result)...).Inc()
	m.p.listDuration.WithLabelValues(m.labels(string(method))...).Observe(duration.Seconds())
	if err == nil {
		m.p.listItems.WithLabelValues(m.labels(string(method))...).Observe(float64(items))
	}
}

// ObserveWatchStart implements cache.InformerRunMetrics.
func (m *informerMetrics) ObserveWatchStart(err error) {
	result := resultSuccess
	if err != nil {
		result = resultError
	}
	m.p.watches.WithLabelValues(m.labels(result)...).Inc()
}

// ObserveWatch implements cache.InformerRunMetrics.
func (m *informerMetrics) ObserveWatch(duration time.Duration, events int) {
	m.watchDuration.Observe(duration.Seconds())
	m.watchEvents.Observe(float64(events))
}

// IncRelists implements cache.InformerRunMetrics.
func (m *informerMetrics) IncRelists(reason cache.RelistReason) {
	m.p.relists.WithLabelValues(m.labels(string(reason))...).Inc()
}

// IncWatchRestarts implements cache.InformerRunMetrics.
func (m *informerMetrics) IncWatchRestarts(cause cache.WatchRestartCause) {
	m.p.watchRestarts.WithLabelValues(m.labels(string(cause))...).Inc()
}

// IncEvents implements cache.InformerRunMetrics.
func (m *informerMetrics) IncEvents(t watch.EventType) {
	m.eventsMu.Lock()
	c, ok := m.events[t]
	if !ok {
		if m.events == nil {
			m.events = map[watch.EventType]prometheus.Counter{}
		}
		c = m.p.events.WithLabelValues(m.labels(string(t))...)
		m.events[t] = c
	}
	m.eventsMu.Unlock()
	c.Inc()
}

// SetStoreObjects implements cache.InformerRunMetrics.
func (m *informerMetrics) SetStoreObjects(n int) { m.storeObjects.Set(float64(n)) }

// SetLastSyncResourceVersion implements cache.InformerRunMetrics.
func (m *informerMetrics) SetLastSyncResourceVersion(rv float64) { m.lastRV.Set(rv) }

// SetFirstSyncDuration implements cache.InformerRunMetrics.
func (m *informerMetrics) SetFirstSyncDuration(d time.Duration) { m.firstSync.Set(d.Seconds()) }

// Release implements cache.InformerRunMetrics.
func (m *informerMetrics) Release() { m.p.release(m.set) }

// handlerMetrics is the handle of one handler's delivery.
type handlerMetrics struct {
	p       *Provider
	set     labelSet
	backlog prometheus.Gauge
	latency prometheus.Observer
	panics  prometheus.Counter
}

var _ cache.HandlerRunMetrics = (*handlerMetrics)(nil)

// SetBacklog implements cache.HandlerRunMetrics.
func (m *handlerMetrics) SetBacklog(n int) { m.backlog.Set(float64(n)) }

// ObserveDelivery implements cache.HandlerRunMetrics.
func (m *handlerMetrics) ObserveDelivery(d time.Duration) { m.latency.Observe(d.Seconds()) }

// IncPanics implements cache.HandlerRunMetrics.
func (m *handlerMetrics) IncPanics() { m.panics.Inc() }

// Release implements cache.HandlerRunMetrics.
func (m *handlerMetrics) Release() { m.p.release(m.set) }
