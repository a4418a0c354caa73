package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// Errors of [InformerFactory]. WaitForCacheSync reports ErrInformerNotStarted
// and [ErrInformerStopped] for the informers that did not sync; InformerFor
// returns ErrFactoryShutDown.
var (
	// ErrInformerNotStarted: the informer was requested but no Start has
	// run it yet.
	ErrInformerNotStarted = errors.New("informer not started")
	// ErrFactoryShutDown: a new informer was requested after Shutdown.
	ErrFactoryShutDown = errors.New("informer factory is shut down")
)

// InformerSelection says which objects of its type one informer of an
// [InformerFactory] holds: those of Namespace ("" for all namespaces, and for
// cluster-scoped objects) matching LabelSelector and FieldSelector (both in
// the apiserver's syntax; "" selects everything).
type InformerSelection struct {
	Namespace     string
	LabelSelector string
	FieldSelector string
}

// ApplyTo sets s's label and field selectors on options; s.Namespace is the
// ListerWatcher's business. Its method value fits the optionsModifier of
// [NewListWatchFromTypedClient].
func (s InformerSelection) ApplyTo(options *metav1.ListOptions) {
	options.LabelSelector = s.LabelSelector
	options.FieldSelector = s.FieldSelector
}

// canonical returns s with its selectors parsed and printed back, so that
// selectors that select the same objects in a different order compare equal,
// or an error naming the malformed selector.
func (s InformerSelection) canonical() (InformerSelection, error) {
	l, err := labels.Parse(s.LabelSelector)
	if err != nil {
		return InformerSelection{}, fmt.Errorf("label selector %q: %w", s.LabelSelector, err)
	}
	f, err := fields.ParseSelector(s.FieldSelector)
	if err != nil {
		return InformerSelection{}, fmt.Errorf("field selector %q: %w", s.FieldSelector, err)
	}
	return InformerSelection{Namespace: s.Namespace, LabelSelector: l.String(), FieldSelector: f.String()}, nil
}

// InformerKey identifies one shared informer of an [InformerFactory]: the Go
// type of its objects and its selection, with the selectors in canonical
// form.
type InformerKey struct {
	Type reflect.Type
	InformerSelection
}

// String describes k for logs and errors.
func (k InformerKey) String() string {
	s := fmt.Sprint(k.Type)
	if k.Namespace != "" {
		s += " in namespace " + k.Namespace
	}
	if k.LabelSelector != "" {
		s += " with labels " + k.LabelSelector
	}
	if k.FieldSelector != "" {
		s += " with fields " + k.FieldSelector
	}
	return s
}

// InformerFactoryOptions configures the informers of an [InformerFactory].
// The zero value is valid: no resyncs, the default DeltaFIFO pipeline.
type InformerFactoryOptions struct {
	// ResyncPeriod is the default resync period of every informer; see
	// [NewSharedIndexInformer].
	ResyncPeriod time.Duration
	// TypeResyncPeriods overrides ResyncPeriod for the informers of some
	// object types (the reflect.TypeOf of their example object).
	TypeResyncPeriods map[reflect.Type]time.Duration
	// Transform, when not nil, is set on every informer; see
	// [SharedInformer.SetTransform].
	Transform TransformFunc
	// InOrder selects client-go's default pipeline for every informer; see
	// [SharedIndexInformerOptions].
	InOrder bool
	// WatchLiveness, when not nil, restarts the silent watches of every
	// informer; see [WatchLivenessOptions].
	WatchLiveness *WatchLivenessOptions
	// RunMetricsProvider provides the run metrics of every informer; nil
	// means the process-wide provider, if any. See [RunMetricsProvider].
	RunMetricsProvider RunMetricsProvider
	// Memory, when not nil, selects how every informer keeps its objects
	// in memory; see [MemoryOptions]. Each informer gets its own state
	// (its Share table, say). InformerFor returns the error of options
	// invalid for its example object. It is not part of client-go's API.
	Memory *MemoryOptions
	// Snapshot, when not nil, makes every informer keep its cache in a
	// snapshot and resume from it (see [SnapshotOptions]). Its Path is a
	// directory: each informer's file in it is named
	// [InformerKey.SnapshotFileName], and its Namespace, LabelSelector
	// and FieldSelector are those of the informer's key.
	Snapshot *SnapshotOptions
}

// InformerFactory hands out shared informers, one per object type and
// [InformerSelection], built from a ListerWatcher constructor the caller
// supplies, and runs them. It is the generic counterpart of client-go's
// generated SharedInformerFactory; it is not part of client-go's API.
//
// Its methods are safe for concurrent use. A factory is made with
// [NewInformerFactory]; its zero value is not usable.
type InformerFactory struct {
	options InformerFactoryOptions

	// wake has room for one signal: an informer waits to be started by
	// the goroutine of a running Start.
	wake chan struct{}
	// shutdown is closed by the first Shutdown; the goroutines of Start
	// return then.
	shutdown chan struct{}
	// wg counts every goroutine the factory started: one per running
	// informer and one per Start whose context has not ended.
	wg sync.WaitGroup

	mu sync.Mutex
	// informers holds every informer handed out; guarded by mu.
	informers map[InformerKey]*factoryInformer
	// pending holds the informers not started yet, in request order;
	// guarded by mu. An informer is in pending if and only if its started
	// is false.
	pending []*factoryInformer
	// starters counts the goroutines of Start that have not returned;
	// guarded by mu. While it is positive, pending informers are about to
	// start.
	starters int
	// noStarters is closed while starters is zero, and replaced by an
	// open channel when it becomes positive; guarded by mu.
	noStarters chan struct{}
	// shuttingDown is set by Shutdown; guarded by mu. Once it is set,
	// nothing adds to wg.
	shuttingDown bool
}

// factoryInformer is one informer of a factory with its run state.
type factoryInformer struct {
	key      InformerKey
	informer SharedIndexInformer
	started  bool          // guarded by the factory's mu
	running  chan struct{} // closed when started is set
	stopped  chan struct{} // closed when the informer's RunWithContext returns
}

// NewInformerFactory returns a factory whose informers use options.
func NewInformerFactory(options InformerFactoryOptions) *InformerFactory {
	noStarters := make(chan struct{})
	close(noStarters)
	return &InformerFactory{
		options:    options,
		wake:       make(chan struct{}, 1),
		shutdown:   make(chan struct{}),
		informers:  map[InformerKey]*factoryInformer{},
		noStarters: noStarters,
	}
}

// InformerFor returns the shared informer of the objects of exampleObject's
// type that selection selects. The first request for a key builds the
// informer from newListerWatcher(canonical selection), with the namespace
// index ([NamespaceIndex]) that client-go's generated informers have, and
// the factory's options; later requests for the same key (the same type,
// namespace and selectors, in any order of their terms) return the same
// informer and do not call newListerWatcher. newListerWatcher is called with
// the factory's lock held: it must not call the factory.
//
// An informer requested before Start runs from the next Start on; one
// requested while a Start's context is live starts at once. The caller
// adds handlers and indexes to the informer; it must not run it.
//
// It returns an error, and no informer, for a nil exampleObject or
// newListerWatcher, a malformed selector, a nil ListerWatcher from
// newListerWatcher, and a new key after [InformerFactory.Shutdown].
func (f *InformerFactory) InformerFor(exampleObject runtime.Object, selection InformerSelection, newListerWatcher func(InformerSelection) ListerWatcher) (SharedIndexInformer, error) {
	if isNilObject(exampleObject) {
		return nil, errors.New("informer factory: nil example object")
	}
	canonical, err := selection.canonical()
	if err != nil {
		return nil, fmt.Errorf("informer factory: informer for %T: %w", exampleObject, err)
	}
	key := InformerKey{Type: reflect.TypeOf(exampleObject), InformerSelection: canonical}

	f.mu.Lock()
	defer f.mu.Unlock()
	if fi, ok := f.informers[key]; ok {
		return fi.informer, nil
	}
	if f.shuttingDown {
		return nil, fmt.Errorf("informer factory: informer for %v: %w", key, ErrFactoryShutDown)
	}
	if newListerWatcher == nil {
		return nil, fmt.Errorf("informer factory: informer for %v: nil ListerWatcher constructor", key)
	}
	lw := newListerWatcher(canonical)
	if isNilObject(lw) {
		return nil, fmt.Errorf("informer factory: informer for %v: the constructor returned a nil ListerWatcher", key)
	}
	if err := f.options.Memory.Validate(exampleObject); err != nil {
		return nil, fmt.Errorf("informer factory: informer for %v: %w", key, err)
	}
	resync, ok := f.options.TypeResyncPeriods[key.Type]
	if !ok {
		resync = f.options.ResyncPeriod
	}
	informer := NewSharedIndexInformerWithOptions(lw, exampleObject, SharedIndexInformerOptions{
		ResyncPeriod:       resync,
		Indexers:           Indexers{NamespaceIndex: MetaNamespaceIndexFunc},
		InOrder:            f.options.InOrder,
		WatchLiveness:      f.options.WatchLiveness,
		RunMetricsProvider: f.options.RunMetricsProvider,
		Memory:             f.options.Memory,
		Snapshot:           f.options.Snapshot.forInformer(key),
	})
	if f.options.Transform != nil {
		if err := informer.SetTransform(f.options.Transform); err != nil {
			return nil, fmt.Errorf("informer factory: informer for %v: %w", key, err)
		}
	}
	fi := &factoryInformer{key: key, informer: informer, running: make(chan struct{}), stopped: make(chan struct{})}
	f.informers[key] = fi
	f.pending = append(f.pending, fi)
	select {
	case f.wake <- struct{}{}: // a running Start, if any, starts it
	default: // a signal is pending already
	}
	return informer, nil
}

// Start runs, until ctx ends, every informer not started yet, and every
// informer requested later while ctx is live. It does not block. Start may
// be called more than once, for instance with a new context after the
// previous one ended: an informer runs once, under the context of the first
// Start that picks it up, and is never restarted. After Shutdown, Start does
// nothing.
func (f *InformerFactory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shuttingDown {
		return
	}
	f.startPendingLocked(ctx)
	if f.starters == 0 {
		f.noStarters = make(chan struct{})
	}
	f.starters++
	f.wg.Go(func() { f.startLate(ctx) }) // exits when ctx ends or on Shutdown, which waits on wg
}

// startLate starts the informers requested after Start, under ctx, until
// ctx ends or the factory shuts down.
func (f *InformerFactory) startLate(ctx context.Context) {
	defer func() {
		f.mu.Lock()
		f.starters--
		if f.starters == 0 {
			close(f.noStarters)
		}
		f.mu.Unlock()
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-f.shutdown:
			return
		case <-f.wake:
		}
		if ctx.Err() != nil {
			// Both were ready and wake won: leave the signal to another
			// Start, if one runs.
			select {
			case f.wake <- struct{}{}:
			default:
			}
			return
		}
		f.mu.Lock()
		if !f.shuttingDown {
			f.startPendingLocked(ctx)
		}
		f.mu.Unlock()
	}
}

// startPendingLocked runs every pending informer under ctx.
func (f *InformerFactory) startPendingLocked(ctx context.Context) {
	for _, fi := range f.pending {
		fi.started = true
		close(fi.running)
		f.wg.Go(func() { // exits when ctx ends; Shutdown waits on wg
			defer close(fi.stopped)
			fi.informer.RunWithContext(ctx)
		})
	}
	f.pending = nil
}

// WaitForCacheSync waits until the cache of every informer of the factory has
// synced, or ctx ends, without polling. It returns one entry per informer:
// nil if its cache synced, otherwise why not: [ErrInformerNotStarted] for an
// informer no Start has run nor will (one requested while the context of a
// Start is live is started by it), [ErrInformerStopped] (wrapped) for one
// that stopped before syncing, and for the rest a [*SyncError] (wrapped) with
// the informer's status, which wraps the cause of ctx's end and the
// informer's last list or watch error (errors.Is and apierrors.IsForbidden
// see both). It does not wait for informers that will not start or have
// stopped.
func (f *InformerFactory) WaitForCacheSync(ctx context.Context) map[InformerKey]error {
	f.mu.Lock()
	informers := make([]*factoryInformer, 0, len(f.informers))
	for _, fi := range f.informers {
		informers = append(informers, fi)
	}
	f.mu.Unlock()

	results := make(map[InformerKey]error, len(informers))
	for _, fi := range informers {
		if err := f.waitForStart(ctx, fi); err != nil {
			results[fi.key] = err
			continue
		}
		results[fi.key] = waitForInformerSync(ctx, fi)
	}
	return results
}

// waitForStart returns nil once fi has started, [ErrInformerNotStarted] as
// soon as no Start is live to start it, or ctx's cause (wrapped) when ctx
// ends first.
func (f *InformerFactory) waitForStart(ctx context.Context, fi *factoryInformer) error {
	for {
		f.mu.Lock()
		started, live := fi.started, f.starters > 0
		running, noStarters := fi.running, f.noStarters
		f.mu.Unlock()
		switch {
		case started:
			return nil
		case !live:
			return ErrInformerNotStarted
		}
		select {
		case <-running:
		case <-noStarters:
		case <-ctx.Done():
			return fmt.Errorf("%v: not started: %w", fi.key, context.Cause(ctx))
		}
	}
}

// waitForInformerSync waits until fi's cache synced (nil), fi stopped, or ctx
// ended, and says which.
func waitForInformerSync(ctx context.Context, fi *factoryInformer) error {
	synced := fi.informer.HasSyncedChecker().Done()
	select {
	case <-synced:
		return nil
	case <-fi.stopped:
	case <-ctx.Done():
	}
	if IsDone(fi.informer.HasSyncedChecker()) {
		return nil
	}
	select {
	case <-fi.stopped:
		return fmt.Errorf("%v: %w", fi.key, ErrInformerStopped)
	default:
	}
	if status, ok := InformerSyncStatus(fi.informer); ok {
		// Say why: the informer's phase and last list or watch error.
		return fmt.Errorf("%v: %w", fi.key, &SyncError{Status: status, WaitErr: context.Cause(ctx)})
	}
	return fmt.Errorf("%v: cache not synced: %w", fi.key, context.Cause(ctx))
}

// Shutdown marks the factory as shut down, then blocks until every goroutine
// the factory started has returned: the informers return when the contexts
// they were started with end, so cancel those contexts before or while
// Shutdown waits. Afterwards Start does nothing and InformerFor returns
// informers it handed out before but no new ones. Shutdown may be called more
// than once, also concurrently; every call waits.
func (f *InformerFactory) Shutdown() {
	f.mu.Lock()
	if !f.shuttingDown {
		f.shuttingDown = true
		close(f.shutdown)
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// SnapshotFileName returns the name of the file, in the directory of
// [InformerFactoryOptions].Snapshot, that holds the snapshot of k's
// informer: a readable prefix (the type's name and namespace, reduced to
// letters, digits, '-', '_' and '.') and a hash of the whole key, so that
// distinct keys get distinct names that are safe on every file system and
// never longer than 120 bytes.
func (k InformerKey) SnapshotFileName() string {
	t := k.Type
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	full := strings.Join([]string{t.PkgPath() + "." + t.Name(), k.Namespace, k.LabelSelector, k.FieldSelector}, "\x00")
	sum := sha256.Sum256([]byte(full))
	readable := k.Type.String()
	if k.Namespace != "" {
		readable += "_" + k.Namespace
	}
	safe := make([]byte, 0, len(readable))
	for _, c := range []byte(readable) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			safe = append(safe, c)
		default:
			safe = append(safe, '_')
		}
	}
	if len(safe) > 80 {
		safe = safe[:80]
	}
	return strings.TrimLeft(string(safe), ".") + "-" + hex.EncodeToString(sum[:8]) + ".snapshot"
}

// forInformer returns the snapshot options of the factory informer of key,
// nil when o is nil.
func (o *SnapshotOptions) forInformer(key InformerKey) *SnapshotOptions {
	if o == nil {
		return nil
	}
	opts := *o
	opts.Path = filepath.Join(o.Path, key.SnapshotFileName())
	opts.Namespace, opts.LabelSelector, opts.FieldSelector = key.Namespace, key.LabelSelector, key.FieldSelector
	return &opts
}
