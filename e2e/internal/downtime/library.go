package downtime

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
)

// Library is one informer implementation the scenario restarts.
type Library struct {
	// Name names the library in results, metrics and snapshot directories.
	Name string
	// Build builds an informer of the ConfigMaps of src.Namespace on
	// src.ListerWatcher with src.Handler registered. The scenario calls it
	// once per run, with the same src.SnapshotDir every time.
	Build func(src Source) (Instance, error)
	// WithinWindow and PastWindow are the outcomes it promises when it
	// starts again within the server's watch window and past it.
	WithinWindow, PastWindow Outcome
	// Skip, when not empty, says why the library cannot run yet; Build is
	// then nil.
	Skip string
}

// Source is what a [Library] builds an informer from.
type Source struct {
	// Client is a clientset whose traffic the scenario counts.
	Client kubernetes.Interface
	// Namespace holds the ConfigMaps.
	Namespace string
	// ListerWatcher lists and watches the ConfigMaps of Namespace
	// through Client; it fits the ListerWatcher of both libraries.
	ListerWatcher ListerWatcher
	// Handler records the informer's calls; register it before Run.
	Handler *Recorder
	// SnapshotDir is a directory (0700) that outlives the informer, the
	// same for every run of one library, for a snapshot that survives
	// the restart.
	SnapshotDir string
	// ClusterID names the cluster, the identity a snapshot records.
	ClusterID string
}

// Instance is one informer of one run.
type Instance struct {
	// Run runs the informer until ctx ends and returns once it stopped.
	Run func(ctx context.Context)
	// HasSynced is the informer's HasSynced.
	HasSynced func() bool
	// Store is the informer's store.
	Store Store
}

// Store is the part of the store of either library that the scenario
// reads.
type Store interface {
	GetByKey(key string) (item any, exists bool, err error)
	List() []any
}

// ListerWatcher is the method set of a ListerWatcher of either library,
// with the context variants both look for.
type ListerWatcher interface {
	List(opts metav1.ListOptions) (runtime.Object, error)
	Watch(opts metav1.ListOptions) (watch.Interface, error)
	ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error)
	WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// Libraries returns, in this order: client-go v0.37.2 and informer-go in
// both pipelines, without a snapshot; informer-go in both pipelines
// resuming from objects kept in memory, an emulation of a resume with
// today's API (see memoryResumes); and informer-go in both pipelines
// restarted from a snapshot (see snapshotOption). Each call returns
// libraries that share no state with those of another.
func Libraries() []Library {
	libs := []Library{
		{Name: "client-go", Build: buildClientGo, WithinWindow: Relist, PastWindow: Relist},
		{Name: "informer-go", Build: buildInformerGo(false, nil), WithinWindow: Relist, PastWindow: Relist},
		{Name: "informer-go-inorder", Build: buildInformerGo(true, nil), WithinWindow: Relist, PastWindow: Relist},
	}
	resumes := new(memoryResumes)
	libs = append(libs,
		resumes.library("informer-go-memory-resume", false),
		resumes.library("informer-go-inorder-memory-resume", true))
	for _, p := range []struct {
		name    string
		inOrder bool
	}{{"informer-go-snapshot", false}, {"informer-go-inorder-snapshot", true}} {
		lib := Library{Name: p.name, WithinWindow: Resume, PastWindow: ResumeThenRelist}
		if snapshotOption == nil {
			lib.Skip = "informer-go has no snapshot option yet (issue 24): set snapshotOption in e2e/internal/downtime/snapshot.go"
		} else {
			lib.Build = buildInformerGo(p.inOrder, snapshotOption)
		}
		libs = append(libs, lib)
	}
	return libs
}

// namespaceIndex is the index every informer of the scenario has, as a
// typical controller's informers do.
const namespaceIndex = "namespace"

func buildClientGo(src Source) (Instance, error) {
	inf := clientgocache.NewSharedIndexInformerWithOptions(src.ListerWatcher, &corev1.ConfigMap{}, clientgocache.SharedIndexInformerOptions{
		Indexers: clientgocache.Indexers{namespaceIndex: clientgocache.MetaNamespaceIndexFunc},
	})
	if _, err := inf.AddEventHandler(src.Handler); err != nil {
		return Instance{}, err
	}
	return Instance{Run: inf.RunWithContext, HasSynced: inf.HasSynced, Store: inf.GetStore()}, nil
}

// buildInformerGo returns the Build of informer-go in the pipeline inOrder
// selects, with the options set by withOptions (if not nil).
func buildInformerGo(inOrder bool, withOptions func(*cache.SharedIndexInformerOptions, Source)) func(Source) (Instance, error) {
	return func(src Source) (Instance, error) {
		opts := cache.SharedIndexInformerOptions{InOrder: inOrder}
		if withOptions != nil {
			withOptions(&opts, src)
		}
		inst, _, err := newInformerGo(src, opts)
		return inst, err
	}
}

// newInformerGo builds an informer-go informer of src with opts and the
// namespace index.
func newInformerGo(src Source, opts cache.SharedIndexInformerOptions) (Instance, cache.SharedIndexInformer, error) {
	opts.Indexers = cache.Indexers{namespaceIndex: cache.MetaNamespaceIndexFunc}
	inf := cache.NewSharedIndexInformerWithOptions(src.ListerWatcher, &corev1.ConfigMap{}, opts)
	if _, err := inf.AddEventHandler(src.Handler); err != nil {
		return Instance{}, nil, err
	}
	return Instance{Run: inf.RunWithContext, HasSynced: inf.HasSynced, Store: inf.GetStore()}, inf, nil
}

// configMapListWatch lists and watches the ConfigMaps of ns through client.
type configMapListWatch struct {
	client kubernetes.Interface
	ns     string
}

var _ ListerWatcher = configMapListWatch{}

func (lw configMapListWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

func (lw configMapListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), opts)
}

func (lw configMapListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return lw.client.CoreV1().ConfigMaps(lw.ns).List(ctx, opts)
}

func (lw configMapListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return lw.client.CoreV1().ConfigMaps(lw.ns).Watch(ctx, opts)
}
