package cache_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// TestInformerFactorySnapshot runs a factory with snapshots: each informer
// writes its own file, named after its key, at shutdown, and the informers
// of a new factory resume from them without a list.
func TestInformerFactorySnapshot(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(map[bool]string{false: "DeltaFIFO", true: "InOrder"}[inOrder], func(t *testing.T) {
			s := newFactoryServer(t)
			dir := filepath.Join(t.TempDir(), "snapshots")
			opts := cache.InformerFactoryOptions{InOrder: inOrder, Snapshot: &cache.SnapshotOptions{Path: dir, ClusterIdentity: "test", Interval: -1}}
			selections := []cache.InformerSelection{{Namespace: "a"}, {Namespace: "b", LabelSelector: "app=web"}}
			run := func() []cache.SharedIndexInformer {
				f := cache.NewInformerFactory(opts)
				var infs []cache.SharedIndexInformer
				for _, sel := range selections {
					inf, err := f.InformerFor(&metav1.PartialObjectMetadata{}, sel, s.newListerWatcher)
					if err != nil {
						t.Fatal(err)
					}
					infs = append(infs, inf)
				}
				ctx, cancel := context.WithCancel(context.Background())
				f.Start(ctx)
				for key, err := range f.WaitForCacheSync(ctx) {
					if err != nil {
						t.Fatalf("%v: %v", key, err)
					}
				}
				cancel()
				f.Shutdown()
				return infs
			}
			run()
			var want []string
			for _, sel := range selections {
				want = append(want, cache.InformerKey{Type: reflect.TypeFor[*metav1.PartialObjectMetadata](), InformerSelection: sel}.SnapshotFileName())
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				if filepath.Ext(e.Name()) == ".snapshot" {
					got = append(got, e.Name())
				}
			}
			slices.Sort(want)
			if !slices.Equal(want, got) {
				t.Fatalf("snapshot files %v, want %v", got, want)
			}

			s.srv.ResetRequests()
			for _, inf := range run() {
				st := inf.(cache.SyncStatusReporter).SyncStatus().Snapshot
				if st == nil || st.ResumedAt == "" {
					t.Errorf("snapshot status %+v, want resumed", st)
				}
			}
			for _, r := range s.srv.Requests() {
				if r.Verb == framework.VerbList || r.Options.SendInitialEvents != nil {
					t.Errorf("request %+v, want no list", r)
				}
			}
		})
	}
}
