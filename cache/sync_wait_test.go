package cache

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	framework "github.com/informer-go/informer/cache/testing"
)

// listModes are the two ways an informer lists: streaming lists, and a
// server without them (paginated lists only).
var listModes = []struct {
	name string
	opts framework.Options[*metav1.PartialObjectMetadata]
}{
	{name: "streaming"},
	{name: "paginated", opts: framework.Options[*metav1.PartialObjectMetadata]{WatchListUnsupported: true, IgnoreSendInitialEvents: true}},
}

// forEachPipeline runs body for every list mode and queue of an informer,
// each in its own synctest bubble.
func forEachPipeline(t *testing.T, body func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool)) {
	for _, lm := range listModes {
		for _, qm := range queueModes {
			t.Run(lm.name+"/"+qm.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { body(t, lm.opts, qm.inOrder) })
			})
		}
	}
}

var errRBACForbidden = apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC says no"))

// failLists makes the next n lists of srv fail with err, and its next n
// streaming lists unless it has none.
func failLists(srv *framework.Server[*metav1.PartialObjectMetadata], n int, err error) {
	srv.FailNextLists(n, err)
	if !srv.IsWatchListSemanticsUnSupported() {
		srv.FailNextWatches(n, err)
	}
}

// TestWaitForSyncFailFast checks that, with FailFast, a forbidden list ends
// the wait at once (before the reflector's first backoff delay, so after one
// attempt) with an error that names the informer and is Forbidden through
// the chain, while without FailFast the wait lasts until its context ends
// and still reports the cause.
func TestWaitForSyncFailFast(t *testing.T) {
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		srv := framework.NewServer(opts)
		defer srv.Close()
		failLists(srv, 1000, errRBACForbidden)
		inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder})
		stop := runSharedInformer(t, inf)
		defer stop()

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start := time.Now()
		err := WaitForSync(ctx, WaitForSyncOptions{FailFast: true}, inf)
		if took := time.Since(start); took >= defaultBackoffInit {
			t.Errorf("fail-fast wait took %v, want less than one backoff step (%v)", took, defaultBackoffInit)
		}
		if !apierrors.IsForbidden(err) || !apierrors.IsForbidden(errors.Unwrap(err)) {
			t.Fatalf("WaitForSync = %v, want a Forbidden error through the chain", err)
		}
		var se *SyncError
		if !errors.As(err, &se) {
			t.Fatalf("WaitForSync = %T, want a *SyncError", err)
		}
		if se.Status.Attempts != 1 || se.WaitErr != nil {
			t.Errorf("attempts %d, wait error %v; want 1 attempt and no wait error", se.Status.Attempts, se.WaitErr)
		}
		for _, want := range []string{"*v1.PartialObjectMetadata", "reflector " + se.Status.Reflector, "RBAC says no"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
		// The reflector goes on after the wait returned: count its
		// requests once it waits for its first backoff step.
		synctest.Wait()
		lists := 0
		for _, r := range srv.Requests() {
			if r.Verb == framework.VerbList {
				lists++
			}
		}
		if lists != 1 {
			t.Errorf("%d lists before the wait returned, want 1", lists)
		}

		// Without FailFast the wait goes on until its context ends.
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		start = time.Now()
		err = WaitForSync(ctx, WaitForSyncOptions{}, inf)
		if took := time.Since(start); took != 10*time.Second {
			t.Errorf("wait without fail-fast took %v, want the context's 10s", took)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !apierrors.IsForbidden(err) {
			t.Errorf("WaitForSync = %v, want DeadlineExceeded and Forbidden", err)
		}
		if !errors.As(err, &se) || se.Status.Attempts < 2 {
			t.Errorf("WaitForSync = %v, want a SyncError after several attempts", err)
		}
	})
}

// TestSyncStatusRecovers checks that three forbidden lists followed by a
// good one sync the informer, and that the status counts four attempts and
// keeps the last error while no longer failing.
func TestSyncStatusRecovers(t *testing.T) {
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		srv := framework.NewServer(opts)
		defer srv.Close()
		create(t, srv, "a")
		failLists(srv, 3, errRBACForbidden)
		inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder})
		if got := inf.SyncStatus().Phase; got != SyncPhaseNotStarted {
			t.Errorf("phase before Run = %s", got)
		}
		stop := runSharedInformer(t, inf)

		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		if err := WaitForSync(ctx, WaitForSyncOptions{}, inf); err != nil {
			t.Fatalf("WaitForSync: %v", err)
		}
		// The queue may finish the initial list before the reflector
		// reports it listed: read the status once the reflector watches.
		synctest.Wait()
		st := inf.SyncStatus()
		if !apierrors.IsForbidden(st.LastError) {
			t.Errorf("last error %v, want the Forbidden one", st.LastError)
		}
		if st.LastErrorTime.IsZero() {
			t.Error("last error has no time")
		}
		want := SyncStatus{
			Type: "*v1.PartialObjectMetadata", Reflector: st.Reflector, Phase: SyncPhaseWatching, Synced: true,
			Attempts: 4, LastError: st.LastError, LastErrorTime: st.LastErrorTime,
			LastSyncResourceVersion: srv.ResourceVersion(),
		}
		if diff := cmp.Diff(want, st, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
			t.Errorf("status (-want +got):\n%s", diff)
		}
		if st.Reflector == "" {
			t.Error("status names no reflector")
		}
		stop()
		if got := inf.SyncStatus().Phase; got != SyncPhaseStopped {
			t.Errorf("phase after stop = %s", got)
		}
		if err := WaitForSync(ctx, WaitForSyncOptions{}, inf); err != nil {
			t.Errorf("WaitForSync on a stopped, synced informer: %v", err)
		}
	})
}

// TestSyncStatusPhases follows an informer through its phases: a streaming
// list that stalls before its end bookmark, the delivery of the initial list
// (held up by an index function) and watching.
func TestSyncStatusPhases(t *testing.T) {
	for _, qm := range queueModes {
		t.Run(qm.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{IgnoreSendInitialEvents: true})
				defer srv.Close()
				create(t, srv, "a")
				release := make(chan struct{})
				inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: qm.inOrder, Indexers: Indexers{
					"blocking": func(any) ([]string, error) { <-release; return nil, nil },
				}})
				stop := runSharedInformer(t, inf)
				defer stop()

				phase := func() (SyncPhase, int) {
					synctest.Wait()
					st := inf.SyncStatus()
					return st.Phase, st.InitialEvents
				}
				check := func(wantPhase SyncPhase, wantEvents int) {
					t.Helper()
					if p, n := phase(); p != wantPhase || n != wantEvents {
						t.Errorf("phase %s with %d initial events, want %s with %d", p, n, wantPhase, wantEvents)
					}
				}
				// The server sends the object but never the end bookmark.
				check(SyncPhaseStreamingList, 1)
				time.Sleep(awaitingEndBookmarkAfter)
				check(SyncPhaseWaitingForEndBookmark, 1)
				// After the stall timeout the reflector lists instead; the
				// index function holds the initial list up.
				time.Sleep(defaultWatchListStallTimeout)
				check(SyncPhaseDeliveringInitialList, 0)
				close(release)
				check(SyncPhaseWatching, 0)
				if !inf.HasSynced() {
					t.Error("not synced while watching")
				}
			})
		})
	}
}

// TestWaitForSyncSeveralInformers checks that a wait for several informers
// names each that did not sync, and returns nil once all did.
func TestWaitForSyncSeveralInformers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		good := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
		defer good.Close()
		bad := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
		defer bad.Close()
		failLists(bad, 1000, apierrors.NewNotFound(schema.GroupResource{Group: "example.com", Resource: "widgets"}, ""))
		goodInf := newTestInformer(good, SharedIndexInformerOptions{ObjectDescription: "good"})
		badInf := newTestInformer(bad, SharedIndexInformerOptions{ObjectDescription: "bad"})
		defer runSharedInformer(t, goodInf)()
		defer runSharedInformer(t, badInf)()

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := WaitForSync(ctx, WaitForSyncOptions{FailFast: true}, goodInf, badInf)
		if !apierrors.IsNotFound(err) || !strings.Contains(err.Error(), "informer of bad") || strings.Contains(err.Error(), "informer of good") {
			t.Errorf("WaitForSync = %v, want only the bad informer, NotFound", err)
		}
		// A custom classification that does not stop at NotFound.
		ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err = WaitForSync(ctx, WaitForSyncOptions{FailFast: true, IsPermanent: apierrors.IsForbidden}, goodInf, badInf, nil)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "informer is nil") {
			t.Errorf("WaitForSync = %v, want the deadline and the nil informer", err)
		}
		if err := WaitForSync(context.Background(), WaitForSyncOptions{}, goodInf); err != nil {
			t.Errorf("WaitForSync(good) = %v", err)
		}
	})
}

// TestInformerFactoryWaitForCacheSyncCause checks that the factory's wait
// reports why an informer did not sync: its error wraps the informer's last
// list error as well as the context's.
func TestInformerFactoryWaitForCacheSyncCause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
		defer srv.Close()
		failLists(srv, 1000, errRBACForbidden)
		f := NewInformerFactory(InformerFactoryOptions{})
		if _, err := f.InformerFor(&metav1.PartialObjectMetadata{}, InformerSelection{}, func(InformerSelection) ListerWatcher { return srv }); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		f.Start(ctx)
		defer f.Shutdown()
		defer cancel()
		waitCtx, waitCancel := context.WithTimeout(ctx, time.Minute)
		defer waitCancel()
		for key, err := range f.WaitForCacheSync(waitCtx) {
			if !apierrors.IsForbidden(err) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), key.String()) {
				t.Errorf("%v: %v, want Forbidden and DeadlineExceeded", key, err)
			}
		}
	})
}
