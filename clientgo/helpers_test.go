package clientgo_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// newPodServer returns an in-memory apiserver of pods holding ns/a and ns/b.
func newPodServer(t *testing.T) *framework.Server[*corev1.Pod] {
	t.Helper()
	srv := framework.NewServer(framework.Options[*corev1.Pod]{
		NewList:          func() runtime.Object { return &corev1.PodList{} },
		GroupVersionKind: corev1.SchemeGroupVersion.WithKind("Pod"),
		GroupResource:    schema.GroupResource{Resource: "pods"},
	})
	t.Cleanup(srv.Close)
	for _, name := range []string{"a", "b"} {
		if _, err := srv.Create(pod("ns", name)); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

// runnable is what both libraries' informers have.
type runnable interface {
	RunWithContext(ctx context.Context)
	HasSynced() bool
}

// runUntilSynced runs informer until the test ends and waits for its cache
// to sync.
func runUntilSynced(t *testing.T, informer runnable) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		informer.RunWithContext(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	waitCtx, cancelWait := context.WithTimeout(ctx, time.Minute)
	defer cancelWait()
	if !cache.WaitForCacheSync(waitCtx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}
}

// deleteUnseen deletes ns/b so that the informer watching srv misses the
// event and notices the deletion only by relisting: the event is dropped,
// and the watch is closed and fails to resume with 410 Gone.
func deleteUnseen(t *testing.T, srv *framework.Server[*corev1.Pod]) {
	t.Helper()
	srv.DropNextEvents(1)
	if _, err := srv.Delete("ns", "b"); err != nil {
		t.Fatal(err)
	}
	srv.FailNextWatchStreams(1, apierrors.NewResourceExpired("too old"))
	srv.CloseWatchStreams()
}

// receive returns the next value of ch, failing the test after a generous
// deadline.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}
