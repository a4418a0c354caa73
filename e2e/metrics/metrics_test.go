package metrics_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/informer-go/informer/cache"
	informerprometheus "github.com/informer-go/informer/prometheus"
)

// scrape GETs url and returns the value of every sample line that mentions
// informer, by the line's series (name and labels).
func scrape(t *testing.T, url, informer string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %s, %v", resp.Status, err)
	}
	out := map[string]float64{}
	for line := range strings.Lines(string(body)) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") || !strings.Contains(line, `informer="`+informer+`"`) {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("scrape: line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetricsEndpoint runs a ConfigMap informer with Prometheus metrics
// against kube-apiserver, writes, scrapes /metrics and checks the series,
// then stops the informer and checks that its series are gone.
func TestMetricsEndpoint(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(fmt.Sprintf("InOrder=%v", inOrder), func(t *testing.T) {
			cluster := env.Cluster(t)
			ns := cluster.CreateNamespace(t)
			client := cluster.Client()
			ctx := klog.NewContext(t.Context(), ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(2))))
			for i := range 3 {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i)}}
				if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}

			reg := prometheus.NewRegistry()
			provider, err := informerprometheus.NewProvider(reg, informerprometheus.Options{})
			if err != nil {
				t.Fatal(err)
			}
			endpoint := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
			defer endpoint.Close()

			name, err := cache.NewInformerName("e2e-" + strings.ReplaceAll(t.Name(), "/", "-"))
			if err != nil {
				t.Fatal(err)
			}
			defer name.Release()
			informer := cache.NewSharedIndexInformerWithOptions(
				cache.NewListWatchFromTypedClient(client.CoreV1().ConfigMaps(ns), nil),
				&corev1.ConfigMap{},
				cache.SharedIndexInformerOptions{
					InOrder:            inOrder,
					Identifier:         name.WithResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}),
					RunMetricsProvider: provider,
				})
			if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{}); err != nil {
				t.Fatal(err)
			}
			runCtx, cancel := context.WithCancel(ctx)
			defer cancel()
			done := make(chan struct{})
			go func() {
				defer close(done)
				informer.RunWithContext(runCtx)
			}()

			waitCtx, waitCancel := context.WithTimeout(ctx, 3*time.Minute)
			defer waitCancel()
			if err := cache.WaitForSync(waitCtx, cache.WaitForSyncOptions{FailFast: true}, informer); err != nil {
				t.Fatalf("WaitForSync: %v", err)
			}
			status, _ := cache.InformerSyncStatus(informer)
			if status.Attempts != 1 || status.LastError != nil || status.Type != "*v1.ConfigMap" {
				t.Errorf("status after a clean sync: %+v", status)
			}

			// Read-your-writes: a create, an update and a delete, each
			// visible in the store once its resource version is.
			created, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := cache.WaitForResourceVersion(waitCtx, informer, created.ResourceVersion); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := informer.GetStore().GetByKey(ns + "/new"); !ok {
				t.Error("the created ConfigMap is not in the store after waiting for its resource version")
			}
			created.Data = map[string]string{"k": "v"}
			updated, err := client.CoreV1().ConfigMaps(ns).Update(ctx, created, metav1.UpdateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := cache.WaitForResourceVersion(waitCtx, informer, updated.ResourceVersion); err != nil {
				t.Fatal(err)
			}
			if obj, ok, _ := informer.GetStore().GetByKey(ns + "/new"); !ok || obj.(*corev1.ConfigMap).ResourceVersion != updated.ResourceVersion {
				t.Error("the update is not in the store after waiting for its resource version")
			}
			if err := client.CoreV1().ConfigMaps(ns).Delete(ctx, "cm-0", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			// A delete returns no resource version: wait for the server's
			// current one, read from a list.
			list, err := client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := cache.WaitForResourceVersion(waitCtx, informer, list.ResourceVersion); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := informer.GetStore().GetByKey(ns + "/cm-0"); ok {
				t.Error("the deleted ConfigMap is still in the store")
			}

			labels := fmt.Sprintf(`informer=%q,resource="configmaps",type="*v1.ConfigMap"`, name.Name())
			got := scrape(t, endpoint.URL, name.Name())
			for series, want := range map[string]float64{
				`informer_store_objects{` + labels + `}`:                                                  3,
				`informer_events_total{event_type="ADDED",` + labels + `}`:                                1,
				`informer_events_total{event_type="MODIFIED",` + labels + `}`:                             1,
				`informer_events_total{event_type="DELETED",` + labels + `}`:                              1,
				`informer_handler_panics_total{handler="cache.ResourceEventHandlerFuncs",` + labels + `}`: 0,
			} {
				if g, ok := got[series]; !ok || g != want {
					t.Errorf("%s = %v (present: %v), want %v", series, g, ok, want)
				}
			}
			lists := 0.0
			for series, v := range got {
				if strings.HasPrefix(series, "informer_lists_total{") && strings.Contains(series, `result="success"`) {
					lists += v
				}
			}
			if lists != 1 {
				t.Errorf("%v successful lists, want 1; series: %v", lists, got)
			}
			if rv := got[`informer_last_sync_resource_version{`+labels+`}`]; rv < float64(mustAtoi(t, list.ResourceVersion)) {
				t.Errorf("last sync resource version %v, want at least %s", rv, list.ResourceVersion)
			}

			cancel()
			<-done
			if left := scrape(t, endpoint.URL, name.Name()); len(left) != 0 {
				t.Errorf("series left after the informer stopped: %v", left)
			}
		})
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
