package framework_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// A test binary whose informers run inside testing/synctest bubbles replaces
// apimachinery's error handlers once, before any test runs.
func init() {
	framework.SetSynctestErrorHandlers()
}

// TestInformerInSynctestBubble is the pattern the README recommends: an
// informer on a Server, inside a bubble, whose first list fails. The
// informer reports the error, backs off on the bubble's clock and syncs on
// its second attempt, in no time of the test's own. Without
// SetSynctestErrorHandlers the report of the first error would sleep for
// years of the bubble's time and the test would hang. (A Go example cannot
// run it: synctest.Test needs the *testing.T of a test.)
func TestInformerInSynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
		defer srv.Close()
		if _, err := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}}); err != nil {
			t.Fatal(err)
		}
		// The informer's first list fails: a streaming list (a watch) and
		// the paginated list it falls back to.
		unavailable := apierrors.NewServiceUnavailable("etcd is restarting")
		srv.FailNextWatches(1, unavailable)
		srv.FailNextLists(1, unavailable)

		informer := cache.NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
		ctx, cancel := context.WithCancel(t.Context())
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			informer.RunWithContext(ctx)
		}()
		defer func() {
			cancel()
			<-stopped
		}()

		start := time.Now()
		if err := cache.WaitForSync(ctx, cache.WaitForSyncOptions{}, informer); err != nil {
			t.Fatal(err)
		}
		status, _ := cache.InformerSyncStatus(informer)
		if status.Attempts != 2 || !apierrors.IsServiceUnavailable(status.LastError) {
			t.Errorf("synced after %d attempts, last error %v; want 2 attempts after a 503", status.Attempts, status.LastError)
		}
		if keys := informer.GetStore().ListKeys(); len(keys) != 1 || keys[0] != "default/a" {
			t.Errorf("store holds %v, want [default/a]", keys)
		}
		t.Logf("synced after %v of the bubble's time, on attempt %d", time.Since(start), status.Attempts)
	})
}

// ExampleSetSynctestErrorHandlers shows what errors reported through
// apimachinery look like once the handlers are replaced: logged as before,
// on the context's logger, without the rate limiter that hangs informers
// inside testing/synctest bubbles. See TestInformerInSynctestBubble for an
// informer in a bubble.
func ExampleSetSynctestErrorHandlers() {
	framework.SetSynctestErrorHandlers() // once per test binary: TestMain or init

	logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Output(os.Stdout), textlogger.WithHeader(false)))
	ctx := klog.NewContext(context.Background(), logger)
	utilruntime.HandleErrorWithContext(ctx, errors.New("list failed"), "Failed to watch", "reflector", "example")
	// Output:
	// "Failed to watch" err="list failed" logger="UnhandledError" reflector="example"
}
