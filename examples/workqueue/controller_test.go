package main

import (
	"bufio"
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2/ktesting"

	"github.com/informer-go/informer/clientgo/cache"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestControllerOnFakeClientset runs the controller on client-go's fake
// clientset, through a ListWatch of its typed client that opts out of
// streaming lists as client-go's fakes need: it syncs at once and prints the
// pods that exist, then a deletion.
func TestControllerOnFakeClientset(t *testing.T) {
	client := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	pods := client.CoreV1().Pods("ns")
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
			return pods.List(ctx, options)
		},
		WatchFuncWithContext: pods.Watch,
	}, client)
	out, lines := io.Pipe()
	logger, ctx := ktesting.NewTestContext(t)
	c := NewController(logger, lw, lines)

	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := c.Run(ctx); err != nil {
			t.Error(err)
		}
	})
	defer func() {
		cancel()
		out.Close() // unblocks a pending print
		wg.Wait()
	}()

	scanner := bufio.NewScanner(out)
	next := func() string {
		t.Helper()
		read := make(chan string, 1)
		go func() {
			scanner.Scan()
			read <- scanner.Text()
		}()
		select {
		case line := <-read:
			return line
		case <-time.After(time.Minute):
			t.Fatal("no output")
			return ""
		}
	}
	if got, want := next(), "Sync/Add/Update for Pod ns/a"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
	if err := client.CoreV1().Pods("ns").Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, want := next(), "Pod ns/a does not exist anymore"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}
