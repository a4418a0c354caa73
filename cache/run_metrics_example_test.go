package cache_test

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache"
)

// printingProvider is a RunMetricsProvider that counts what an informer
// does and prints the counts when the informer releases its metrics.
type printingProvider struct{}

func (printingProvider) NewInformerRunMetrics(labels cache.InformerMetricLabels) cache.InformerRunMetrics {
	return &informerCounts{labels: labels, counts: map[string]int{}}
}

func (printingProvider) NewHandlerRunMetrics(cache.HandlerMetricLabels) cache.HandlerRunMetrics {
	return &handlerCounts{}
}

type informerCounts struct {
	labels cache.InformerMetricLabels
	mu     sync.Mutex
	counts map[string]int
}

func (c *informerCounts) add(key string, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[key] += n
}

func (c *informerCounts) ObserveList(method cache.ListMethod, _ time.Duration, items int, _ error) {
	c.add("lists "+string(method), 1)
	c.add("items listed", items)
}
func (c *informerCounts) ObserveWatchStart(error)         {}
func (c *informerCounts) ObserveWatch(time.Duration, int) {}
func (c *informerCounts) IncRelists(r cache.RelistReason) { c.add("relists "+string(r), 1) }
func (c *informerCounts) IncWatchRestarts(w cache.WatchRestartCause) {
	c.add("watch restarts "+string(w), 1)
}
func (c *informerCounts) IncEvents(t watch.EventType) { c.add("events "+string(t), 1) }
func (c *informerCounts) SetStoreObjects(n int) {
	c.mu.Lock()
	c.counts["store objects"] = n
	c.mu.Unlock()
}
func (c *informerCounts) SetLastSyncResourceVersion(float64) {}
func (c *informerCounts) SetFirstSyncDuration(time.Duration) { c.add("first syncs", 1) }
func (c *informerCounts) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	keys := make([]string, 0, len(c.counts))
	for k := range c.counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Printf("released the metrics of %s:\n", c.labels.Type)
	for _, k := range keys {
		fmt.Printf("  %s: %d\n", k, c.counts[k])
	}
}

type handlerCounts struct{}

func (*handlerCounts) SetBacklog(int)                {}
func (*handlerCounts) ObserveDelivery(time.Duration) {}
func (*handlerCounts) IncPanics()                    {}
func (*handlerCounts) Release()                      {}

// Run metrics through a provider of one's own (the prometheus module has a
// Prometheus one): the informer creates its metrics when it starts and
// releases them when it stops.
func ExampleRunMetricsProvider() {
	srv := newExampleServer("a", "b")
	defer srv.Close()
	informer := cache.NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, cache.SharedIndexInformerOptions{
		RunMetricsProvider: printingProvider{},
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(ctx)
	}()

	waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
	defer waitCancel()
	if err := cache.WaitForSync(waitCtx, cache.WaitForSyncOptions{}, informer); err != nil {
		fmt.Println(err)
		return
	}
	deleted, err := srv.Delete("default", "a")
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := cache.WaitForResourceVersion(waitCtx, informer, deleted.ResourceVersion); err != nil {
		fmt.Println(err)
		return
	}
	cancel()
	<-done
	// Output:
	// released the metrics of *v1.PartialObjectMetadata:
	//   events DELETED: 1
	//   first syncs: 1
	//   items listed: 2
	//   lists streaming: 1
	//   store objects: 1
}
