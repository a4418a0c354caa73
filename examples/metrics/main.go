package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
	informerprometheus "github.com/informer-go/informer/prometheus"
)

func main() {
	listen := flag.String("listen", "", "serve /metrics on this address until interrupted, instead of printing")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Stdout, *listen); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// shown are the metrics the program prints.
var shown = []string{"informer_lists_total", "informer_events_total", "informer_store_objects", "informer_handler_panics_total"}

// run starts an informer with Prometheus metrics on an in-memory apiserver,
// writes to it, and prints the metrics (or serves them on listen) before and
// after the informer stops.
func run(ctx context.Context, out io.Writer, listen string) error {
	reg := prometheus.NewRegistry()
	provider, err := informerprometheus.NewProvider(reg, informerprometheus.Options{})
	if err != nil {
		return err
	}
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})

	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	for _, name := range []string{"a", "b", "c"} {
		if _, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name}}); err != nil {
			return err
		}
	}

	// The identifier names the informer in the "informer" and "resource"
	// labels.
	name, err := cache.NewInformerName("demo")
	if err != nil {
		return err
	}
	defer name.Release()
	informer := cache.NewSharedIndexInformerWithOptions(srv, &metav1.PartialObjectMetadata{}, cache.SharedIndexInformerOptions{
		Identifier:         name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}),
		RunMetricsProvider: provider,
	})
	registration, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{})
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(runCtx)
	}()

	waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
	defer waitCancel()
	if err := cache.WaitForSync(waitCtx, cache.WaitForSyncOptions{FailFast: true}, informer); err != nil {
		return err
	}
	// A handler's series exist while its delivery runs: from before its
	// registration syncs until it is removed or the informer stops.
	if !cache.WaitForCacheSync(waitCtx.Done(), registration.HasSynced) {
		return errors.New("the handler did not sync")
	}
	if _, err := srv.Delete("demo", "a"); err != nil {
		return err
	}
	// Once the store reflects the last write, so do the metrics.
	if err := cache.WaitForResourceVersion(waitCtx, informer, srv.ResourceVersion()); err != nil {
		return err
	}

	if listen != "" {
		fmt.Fprintf(out, "Serving http://%s/metrics until interrupted\n", listen)
		server := &http.Server{Addr: listen, Handler: metrics, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			<-ctx.Done()
			server.Close()
		}()
		if err := server.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}

	fmt.Fprintln(out, "While the informer runs:")
	for _, line := range scrape(metrics) {
		fmt.Fprintln(out, " ", line)
	}
	cancel()
	<-done
	fmt.Fprintf(out, "After it stopped: %d informer series\n", len(scrape(metrics)))
	return nil
}

// scrape returns the lines of the /metrics page of the shown metrics.
func scrape(handler http.Handler) []string {
	rec := httptest.NewRecorder()
	handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	var lines []string
	for line := range strings.Lines(rec.Body.String()) {
		for _, name := range shown {
			if strings.HasPrefix(line, name+"{") {
				lines = append(lines, strings.TrimSpace(line))
			}
		}
	}
	return lines
}
