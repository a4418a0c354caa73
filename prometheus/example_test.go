package prometheus_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
	informerprometheus "github.com/informer-go/informer/prometheus"
)

// scrape returns the lines of a /metrics page served by handler that start
// with one of prefixes.
func scrape(handler http.Handler, prefixes ...string) []string {
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var lines []string
	for line := range strings.Lines(rec.Body.String()) {
		for _, p := range prefixes {
			if strings.HasPrefix(line, p) {
				lines = append(lines, strings.TrimSpace(line))
			}
		}
	}
	return lines
}

// An informer's metrics on a /metrics page: they appear when it runs and
// disappear when it stops.
func ExampleNewProvider() {
	reg := prometheus.NewRegistry()
	provider, err := informerprometheus.NewProvider(reg, informerprometheus.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})

	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	for _, name := range []string{"a", "b"} {
		if _, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}); err != nil {
			fmt.Println(err)
			return
		}
	}
	informer := cache.NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, cache.SharedIndexInformerOptions{
		RunMetricsProvider: provider,
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
	// Once the store reflects the server's state, so do the metrics.
	if err := cache.WaitForResourceVersion(waitCtx, informer, srv.ResourceVersion()); err != nil {
		fmt.Println(err)
		return
	}

	for _, line := range scrape(metrics, "informer_lists_total", "informer_store_objects") {
		fmt.Println(line)
	}
	cancel()
	<-done
	fmt.Println("after stop:", len(scrape(metrics, "informer_")), "lines")
	// Output:
	// informer_lists_total{informer="",method="streaming",resource="",result="success",type="*v1.PartialObjectMetadata"} 1
	// informer_store_objects{informer="",resource="",type="*v1.PartialObjectMetadata"} 2
	// after stop: 0 lines
}
