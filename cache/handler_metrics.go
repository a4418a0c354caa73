package cache

import "k8s.io/utils/clock"

// handlerObserver feeds the [HandlerRunMetrics] of one handler registration:
// its backlog, the latency of its calls and its panics. The listener's
// delivery goroutine is its only user: begin creates the metrics when the
// goroutine starts and end releases them when it returns, so they live
// exactly as long as the delivery. A nil *handlerObserver (no run metrics)
// does nothing.
type handlerObserver struct {
	provider RunMetricsProvider
	labels   HandlerMetricLabels
	clock    clock.PassiveClock
	// metrics is set by begin; delivery goroutine only.
	metrics HandlerRunMetrics
}

// newHandlerObserver returns the observer of the handler named name, nil
// when the informer has no run metrics.
func (m *informerMonitor) newHandlerObserver(name string) *handlerObserver {
	if m.provider == nil {
		return nil
	}
	return &handlerObserver{
		provider: m.provider,
		labels:   HandlerMetricLabels{InformerMetricLabels: m.labels, Handler: name},
		clock:    m.clock,
	}
}

// begin creates the metrics; the delivery goroutine calls it first.
func (o *handlerObserver) begin() {
	if o == nil {
		return
	}
	o.metrics = o.provider.NewHandlerRunMetrics(o.labels)
}

// end releases the metrics; the delivery goroutine calls it last.
func (o *handlerObserver) end() {
	if o == nil || o.metrics == nil {
		return
	}
	o.metrics.Release()
	o.metrics = nil
}

// backlog records that n notifications wait for the handler.
func (o *handlerObserver) backlog(n int) {
	if o == nil || o.metrics == nil {
		return
	}
	o.metrics.SetBacklog(n)
}

// deliverMeasured is deliver, timed and counting panics when the listener has
// an observer. A panic that deliver re-raises (utilruntime.ReallyCrash) is
// counted on its way out.
func (l *processorListener) deliverMeasured(n *notification) (panicked bool) {
	o := l.observer
	if o == nil || o.metrics == nil {
		return l.deliver(n)
	}
	start := o.clock.Now()
	panicked = true
	defer func() {
		o.metrics.ObserveDelivery(o.clock.Since(start))
		if panicked {
			o.metrics.IncPanics()
		}
	}()
	panicked = l.deliver(n)
	return panicked
}
