package informers

//go:generate go test -run TestGeneratedSourceIsUpToDate -update .

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
	"github.com/informer-go/informer/wait"
)

// SharedInformerFactory is client-go's factory interface; the factories of
// this package implement it with informer-go's informers.
type SharedInformerFactory = clientgoinformers.SharedInformerFactory

// GenericInformer is client-go's interface of the informers ForResource
// returns.
type GenericInformer = clientgoinformers.GenericInformer

// SharedInformerOption configures a factory of
// [NewSharedInformerFactoryWithOptions].
type SharedInformerOption func(*sharedInformerFactory) *sharedInformerFactory

// WithCustomResyncConfig sets the resync period of the informers of some
// object types, as in client-go.
func WithCustomResyncConfig(resyncConfig map[metav1.Object]time.Duration) SharedInformerOption {
	return func(f *sharedInformerFactory) *sharedInformerFactory {
		for obj, period := range resyncConfig {
			f.options.TypeResyncPeriods[reflect.TypeOf(obj)] = period
		}
		return f
	}
}

// WithTweakListOptions sets a function applied to the options of every list
// and watch of every informer of the factory, as in client-go.
func WithTweakListOptions(tweakListOptions internalinterfaces.TweakListOptionsFunc) SharedInformerOption {
	return func(f *sharedInformerFactory) *sharedInformerFactory {
		f.tweakListOptions = tweakListOptions
		return f
	}
}

// WithNamespace limits the factory's informers to namespace, as in client-go.
func WithNamespace(namespace string) SharedInformerOption {
	return func(f *sharedInformerFactory) *sharedInformerFactory {
		f.namespace = namespace
		return f
	}
}

// WithTransform sets transform on every informer of the factory, as in
// client-go.
func WithTransform(transform toolscache.TransformFunc) SharedInformerOption {
	return func(f *sharedInformerFactory) *sharedInformerFactory {
		f.options.Transform = cache.TransformFunc(transform)
		return f
	}
}

// WithInOrder selects, for every informer of the factory, client-go's default
// pipeline (inOrder true) or this library's default DeltaFIFO pipeline; see
// [cache.SharedIndexInformerOptions]. It is not part of client-go's API.
func WithInOrder(inOrder bool) SharedInformerOption {
	return func(f *sharedInformerFactory) *sharedInformerFactory {
		f.options.InOrder = inOrder
		return f
	}
}

// WithMemory selects, for every informer of the factory, how it keeps its
// objects in memory (trimmed, shared, encoded); see [cache.MemoryOptions].
// Nil, the default, keeps them as decoded, as client-go does. Options
// invalid for a type (Keep naming a field the type lacks, Encode for a type
// with no codec) are reported through utilruntime.HandleError when its
// informer is requested, and that informer never runs, as one requested
// after Shutdown: check them with [cache.MemoryOptions.Validate] first. It
// is not part of client-go's API.
func WithMemory(memory *cache.MemoryOptions) SharedInformerOption {
	return func(f *sharedInformerFactory) *sharedInformerFactory {
		f.options.Memory = memory
		return f
	}
}

// NewSharedInformerFactory returns a factory of informers of every namespace
// through client, as client-go's function of that name does.
func NewSharedInformerFactory(client kubernetes.Interface, defaultResync time.Duration) SharedInformerFactory {
	return NewSharedInformerFactoryWithOptions(client, defaultResync)
}

// NewFilteredSharedInformerFactory returns a factory of informers of
// namespace whose lists and watches pass through tweakListOptions.
//
// Deprecated: use NewSharedInformerFactoryWithOptions.
func NewFilteredSharedInformerFactory(client kubernetes.Interface, defaultResync time.Duration, namespace string, tweakListOptions internalinterfaces.TweakListOptionsFunc) SharedInformerFactory {
	return NewSharedInformerFactoryWithOptions(client, defaultResync, WithNamespace(namespace), WithTweakListOptions(tweakListOptions))
}

// NewSharedInformerFactoryWithOptions returns a factory of informers through
// client, configured by options, as client-go's function of that name does.
//
// The informer of a type of kubernetes.Interface is built from client's
// typed resource client with the factory's namespace and tweak function;
// InformerFor then does not call the newFunc it is given (client-go's
// generated informers pass their default constructor). For any other type
// InformerFor calls newFunc, as client-go does, and the factory starts, waits
// for and shuts down the client-go informer it returns. The factory has no
// client-go InformerName: InformerName returns nil.
func NewSharedInformerFactoryWithOptions(client kubernetes.Interface, defaultResync time.Duration, options ...SharedInformerOption) SharedInformerFactory {
	f := &sharedInformerFactory{
		client:    client,
		namespace: metav1.NamespaceAll,
		options: cache.InformerFactoryOptions{
			ResyncPeriod:      defaultResync,
			TypeResyncPeriods: map[reflect.Type]time.Duration{},
		},
		foreign: map[reflect.Type]*foreignInformer{},
	}
	for _, opt := range options {
		f = opt(f)
	}
	f.informers = cache.NewInformerFactory(f.options)
	return f
}

// sharedInformerFactory implements SharedInformerFactory on a
// cache.InformerFactory. Its methods are safe for concurrent use.
type sharedInformerFactory struct {
	client           kubernetes.Interface
	namespace        string
	tweakListOptions internalinterfaces.TweakListOptionsFunc
	options          cache.InformerFactoryOptions
	// informers holds this library's informers.
	informers *cache.InformerFactory

	// foreignWG counts the goroutines running foreign informers.
	foreignWG sync.WaitGroup
	mu        sync.Mutex
	// foreign holds the client-go informers newFunc built for types
	// outside kubernetes.Interface; guarded by mu.
	foreign map[reflect.Type]*foreignInformer
	// shuttingDown is set by Shutdown; guarded by mu. Once set, nothing
	// adds to foreignWG.
	shuttingDown bool
}

// foreignInformer is a client-go informer of the factory.
type foreignInformer struct {
	informer toolscache.SharedIndexInformer
	started  bool // guarded by the factory's mu
}

var _ SharedInformerFactory = (*sharedInformerFactory)(nil)

// InformerName returns nil: the factory has no client-go InformerName.
func (f *sharedInformerFactory) InformerName() *toolscache.InformerName { return nil }

// Start starts every informer not started yet, until stopCh is closed.
func (f *sharedInformerFactory) Start(stopCh <-chan struct{}) {
	f.StartWithContext(wait.ContextForChannel(stopCh))
}

// StartWithContext starts every informer not started yet, until ctx ends.
// Informers of this library requested later while ctx is live start at once;
// client-go informers only with the next Start, as in client-go.
func (f *sharedInformerFactory) StartWithContext(ctx context.Context) {
	f.informers.Start(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	for _, fi := range f.foreign {
		if !fi.started {
			fi.started = true
			f.foreignWG.Go(func() { fi.informer.RunWithContext(ctx) }) // returns when ctx ends; Shutdown waits
		}
	}
}

// Shutdown marks the factory as shut down and waits until every informer it
// started has stopped: cancel the contexts (close the channels) given to
// Start, before or while it waits.
func (f *sharedInformerFactory) Shutdown() {
	f.mu.Lock()
	f.shuttingDown = true
	f.mu.Unlock()
	f.informers.Shutdown()
	f.foreignWG.Wait()
}

// WaitForCacheSync waits until every started informer synced or stopCh is
// closed, and reports which synced, as client-go does.
func (f *sharedInformerFactory) WaitForCacheSync(stopCh <-chan struct{}) map[reflect.Type]bool {
	return f.WaitForCacheSyncWithContext(wait.ContextForChannel(stopCh)).Synced
}

// WaitForCacheSyncWithContext waits until every started informer synced or
// ctx ends. The result says per object type whether its informer synced;
// its Err joins why each one that did not sync did not (the cause of ctx's
// end, or an informer that stopped first).
func (f *sharedInformerFactory) WaitForCacheSyncWithContext(ctx context.Context) toolscache.SyncResult {
	result := toolscache.SyncResult{Synced: map[reflect.Type]bool{}}
	var errs []error
	for key, err := range f.informers.WaitForCacheSync(ctx) {
		if errors.Is(err, cache.ErrInformerNotStarted) {
			continue // client-go reports started informers only
		}
		result.Synced[key.Type] = err == nil
		errs = append(errs, err)
	}
	f.mu.Lock()
	var checkers []toolscache.DoneChecker
	foreign := map[reflect.Type]toolscache.SharedIndexInformer{}
	for t, fi := range f.foreign {
		if fi.started {
			foreign[t] = fi.informer
			checkers = append(checkers, fi.informer.HasSyncedChecker())
		}
	}
	f.mu.Unlock()
	toolscache.WaitFor(ctx, "", checkers...)
	for t, informer := range foreign {
		synced := informer.HasSynced()
		result.Synced[t] = synced
		if !synced {
			errs = append(errs, fmt.Errorf("%v: cache not synced: %w", t, context.Cause(ctx)))
		}
	}
	result.Err = errors.Join(errs...)
	return result
}

// InformerFor returns the informer of obj's type; see
// [NewSharedInformerFactoryWithOptions] for when newFunc is called.
func (f *sharedInformerFactory) InformerFor(obj runtime.Object, newFunc internalinterfaces.NewInformerFunc) toolscache.SharedIndexInformer {
	t := reflect.TypeOf(obj)
	res, ok := resourcesByType[t]
	if !ok {
		return f.foreignInformerFor(t, newFunc)
	}
	informer, err := f.informers.InformerFor(obj, cache.InformerSelection{Namespace: f.namespace},
		func(cache.InformerSelection) cache.ListerWatcher {
			return res.newListerWatcher(f.client, f.namespace, f.tweakListOptions)
		})
	if err != nil {
		// A request after Shutdown fails: hand out an informer that never
		// runs, as client-go's factory does. So do memory options invalid
		// for obj's type (see WithMemory), which are reported.
		if !errors.Is(err, cache.ErrFactoryShutDown) {
			utilruntime.HandleError(err)
		}
		return clientgo.AsSharedIndexInformer(cache.NewSharedIndexInformer(nil, obj, 0, nil))
	}
	return clientgo.AsSharedIndexInformer(informer)
}

// foreignInformerFor returns the client-go informer of type t, built by
// newFunc on the first request.
func (f *sharedInformerFactory) foreignInformerFor(t reflect.Type, newFunc internalinterfaces.NewInformerFunc) toolscache.SharedIndexInformer {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fi, ok := f.foreign[t]; ok {
		return fi.informer
	}
	resync, ok := f.options.TypeResyncPeriods[t]
	if !ok {
		resync = f.options.ResyncPeriod
	}
	informer := newFunc(f.client, resync)
	if f.options.Transform != nil {
		_ = informer.SetTransform(toolscache.TransformFunc(f.options.Transform)) // a new informer accepts it
	}
	f.foreign[t] = &foreignInformer{informer: informer}
	return informer
}

// ForResource returns the informer of resource, or an error for a resource
// of no type of kubernetes.Interface.
func (f *sharedInformerFactory) ForResource(resource schema.GroupVersionResource) (GenericInformer, error) {
	res, ok := resourcesByGVR[resource]
	if !ok {
		return nil, fmt.Errorf("no informer found for %v", resource)
	}
	return genericInformer{informer: f.InformerFor(res.object, nil), resource: resource.GroupResource()}, nil
}

// genericInformer is a GenericInformer of one resource.
type genericInformer struct {
	informer toolscache.SharedIndexInformer
	resource schema.GroupResource
}

func (g genericInformer) Informer() toolscache.SharedIndexInformer { return g.informer }

func (g genericInformer) Lister() toolscache.GenericLister {
	return toolscache.NewGenericLister(g.informer.GetIndexer(), g.resource)
}

// resource is one resource of kubernetes.Interface.
type resource struct {
	// object is an empty object of the resource's Go type.
	object runtime.Object
	gvr    schema.GroupVersionResource
	// newListerWatcher lists and watches the resource through client.
	newListerWatcher func(client kubernetes.Interface, namespace string, tweak internalinterfaces.TweakListOptionsFunc) cache.ListerWatcher
}

// resourcesByType and resourcesByGVR index the generated resources.
var resourcesByType, resourcesByGVR = func() (map[reflect.Type]resource, map[schema.GroupVersionResource]resource) {
	byType := make(map[reflect.Type]resource, len(resources))
	byGVR := make(map[schema.GroupVersionResource]resource, len(resources))
	for _, r := range resources {
		byType[reflect.TypeOf(r.object)] = r
		byGVR[r.gvr] = r
	}
	return byType, byGVR
}()
