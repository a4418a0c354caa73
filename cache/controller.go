package cache

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/informer-go/informer/wait"
)

// Config configures a low-level [Controller]: where objects come from (the
// ListerWatcher), the queue the reflector fills, and the function that
// processes what is popped from it. It embeds its Queue and ListerWatcher, so
// their methods are promoted onto Config, as in client-go.
type Config struct {
	// Queue is filled by the reflector and drained by Process. For the
	// Process functions of this package it must be a [DeltaFIFO] or a
	// [RealFIFO].
	Queue

	// ListerWatcher is the source of the objects.
	ListerWatcher

	// Process handles one popped item (a [Deltas] for the queues of this
	// package). Errors are logged and the item is dropped.
	Process ProcessFunc

	// ProcessBatch handles several popped deltas with distinct keys at
	// once. It is used, instead of Process for everything but single
	// deltas, when it is set and Queue is a [QueueWithBatch]. On a partial
	// failure it returns an error describing it; the informers' ProcessBatch
	// returns one that wraps the store's [TransactionError], for
	// [errors.As].
	ProcessBatch ProcessBatchFunc

	// ObjectType is an example of the objects expected; others are dropped.
	// Nil accepts anything.
	ObjectType runtime.Object

	// ObjectDescription describes the objects in logs; see
	// [ReflectorOptions.TypeDescription].
	ObjectDescription string

	// FullResyncPeriod is how often ShouldResync is consulted; zero means
	// never.
	FullResyncPeriod time.Duration

	// MinWatchTimeout is the lower bound of the random watch timeout; see
	// [ReflectorOptions.MinWatchTimeout].
	MinWatchTimeout time.Duration

	// ShouldResync decides, every FullResyncPeriod, whether to resync the
	// queue; nil means always.
	ShouldResync ShouldResyncFunc

	// WatchErrorHandler is called when a ListAndWatch cycle fails; it wins
	// over WatchErrorHandlerWithContext.
	//
	// Contextual logging: prefer WatchErrorHandlerWithContext.
	WatchErrorHandler WatchErrorHandler

	// WatchErrorHandlerWithContext is called when a ListAndWatch cycle
	// fails and WatchErrorHandler is nil. Default:
	// [DefaultWatchErrorHandler].
	WatchErrorHandlerWithContext WatchErrorHandlerWithContext

	// WatchListPageSize is the page size of lists; see
	// [Reflector.WatchListPageSize].
	WatchListPageSize int64

	// WatchLiveness, when not nil, restarts watches that go silent; see
	// [WatchLivenessOptions]. It is not part of client-go's API.
	WatchLiveness *WatchLivenessOptions

	// creator is the file:line of the code outside this library that built
	// the informer or controller, which names the reflector when the code
	// that runs it is all library code (see defaultReflectorName);
	// newController records it when it is empty.
	creator string

	// monitor follows the run for the sync status, run metrics and
	// resource-version waits; newController makes one when it is nil.
	monitor *informerMonitor

	// realTime, when not nil, replaces the real clock of the reflector (see
	// Reflector.realTime); tests running on a sped-up clock set it.
	realTime clock.Clock

	// keyed, when set and Queue is one of this package's, processes the
	// popped items instead of Process and ProcessBatch (which must do the
	// same), together with the keys the queue computed for them. The
	// informers of this package set it.
	keyed keyedProcessor
}

// keyedProcessor processes popped items together with the keys their queue
// computed for them; see keyedProcessFunc and keyedBatchFunc.
type keyedProcessor interface {
	processKeyed(key string, deltas Deltas, isInInitialList bool) error
	processBatchKeyed(keys []string, deltas []Delta, isInInitialList bool) error
}

// ShouldResyncFunc reports whether a reflector should resync its store now.
// Shared informers use it to resync only when a handler's period is due.
type ShouldResyncFunc func() bool

// ProcessFunc processes one item popped from a queue; isInInitialList says
// whether it belongs to the queue's first batch.
type ProcessFunc func(obj any, isInInitialList bool) error

// Controller runs a reflector into a queue and processes what is popped from
// it. Its methods are safe for concurrent use.
type Controller interface {
	// RunWithContext runs the reflector and the processing loop until ctx
	// ends, then closes the queue and returns once both have stopped. It
	// blocks and must be called only once.
	RunWithContext(ctx context.Context)

	// Run is RunWithContext with a stop channel.
	//
	// Contextual logging: prefer RunWithContext.
	Run(stopCh <-chan struct{})

	// HasSynced reports whether the queue has processed its first batch.
	HasSynced() bool

	// HasSyncedChecker returns the queue's [DoneChecker] for the same
	// condition, to wait without polling.
	HasSyncedChecker() DoneChecker

	// LastSyncResourceVersion returns the reflector's last synced resource
	// version, or "" before RunWithContext started it.
	LastSyncResourceVersion() string
}

// controllerRetryPeriod is how long the processing loop waits before
// resuming after it stopped for an unexpected reason.
const controllerRetryPeriod = time.Second

// controller implements Controller, [SyncStatusReporter] and
// [ResourceVersionWaiter].
type controller struct {
	config Config
	clock  clock.Clock

	mu        sync.RWMutex
	reflector *Reflector // guarded by mu; set by RunWithContext
}

// New returns a [Controller] for a copy of *c.
func New(c *Config) Controller {
	return newController(*c, realClock)
}

// newController returns a controller whose reflector and retries use clk.
func newController(config Config, clk clock.Clock) *controller {
	if config.creator == "" {
		config.creator = callSite()
	}
	if config.monitor == nil {
		config.monitor = newInformerMonitor(clk, config.ObjectType, config.ObjectDescription, InformerNameAndResource{}, nil, nil)
	}
	return &controller{config: config, clock: clk}
}

var (
	_ SyncStatusReporter    = (*controller)(nil)
	_ ResourceVersionWaiter = (*controller)(nil)
)

// Run implements [Controller.Run].
func (c *controller) Run(stopCh <-chan struct{}) {
	c.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext implements [Controller.RunWithContext].
func (c *controller) RunWithContext(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	logger := klog.FromContext(ctx)
	if c.config.Queue == nil || isNilObject(c.config.Queue) {
		utilruntime.HandleErrorWithContext(ctx, nil, "Controller has no queue, nothing to run")
		<-ctx.Done()
		return
	}

	// Both goroutines exit on ctx.Done(); RunWithContext waits for them
	// before returning (but not when processing panics: the panic is
	// re-raised by HandleCrash, as in client-go).
	var wg sync.WaitGroup
	wg.Go(func() {
		<-ctx.Done()
		c.config.Queue.Close()
	})

	monitor := c.config.monitor
	r := newReflector(c.config.ListerWatcher, c.config.ObjectType, c.config.Queue, ReflectorOptions{
		Name:            defaultReflectorName(c.config.creator),
		Logger:          &logger,
		ResyncPeriod:    c.config.FullResyncPeriod,
		MinWatchTimeout: c.config.MinWatchTimeout,
		TypeDescription: c.config.ObjectDescription,
		Clock:           c.clock,
		WatchLiveness:   c.config.WatchLiveness,
	}, monitor)
	if c.config.realTime != nil {
		r.realTime = c.config.realTime
	}
	r.ShouldResync = c.config.ShouldResync
	r.WatchListPageSize = c.config.WatchListPageSize
	switch {
	case c.config.WatchErrorHandler != nil:
		handler := c.config.WatchErrorHandler
		r.watchErrorHandler = func(_ context.Context, r *Reflector, err error) { handler(r, err) }
	case c.config.WatchErrorHandlerWithContext != nil:
		r.watchErrorHandler = c.config.WatchErrorHandlerWithContext
	}
	c.mu.Lock()
	c.reflector = r
	c.mu.Unlock()

	monitor.start(r, c.config.Queue)
	defer monitor.stop() // after wg.Wait below, unless processing panics
	// Exits on sync or ctx.Done(); waited for below. A sync it misses as
	// the run stops, monitor.stop reports.
	wg.Go(func() {
		select {
		case <-c.config.Queue.HasSyncedChecker().Done():
			monitor.synced()
		case <-ctx.Done():
		}
	})
	wg.Go(func() { r.RunWithContext(ctx) })

	for {
		c.processLoopRecovering(ctx)
		if !r.sleep(ctx, controllerRetryPeriod) {
			break
		}
	}
	wg.Wait()
}

// processLoopRecovering runs processLoop and recovers a panic in it through
// utilruntime.HandleCrashWithContext: the panic is logged and, unless
// utilruntime.ReallyCrash is false, re-raised. When it is swallowed the
// caller resumes processing after controllerRetryPeriod, as client-go does.
func (c *controller) processLoopRecovering(ctx context.Context) {
	defer utilruntime.HandleCrashWithContext(ctx)
	c.processLoop(ctx)
}

// processLoop pops and processes items until ctx ends or the queue is closed.
// Processing errors are logged; the item is lost, as in client-go.
func (c *controller) processLoop(ctx context.Context) {
	popNext := c.popper()
	if popNext == nil {
		utilruntime.HandleErrorWithContext(ctx, nil, "Controller has no Process function, not popping anything")
		<-ctx.Done()
		return
	}
	for ctx.Err() == nil {
		err := popNext()
		c.config.monitor.popped()
		switch {
		case errors.Is(err, ErrFIFOClosed):
			return
		case err != nil:
			utilruntime.HandleErrorWithContext(ctx, err, "Unable to process a popped item, dropping it")
		}
	}
}

// popper returns the function that pops and processes the next item (or
// batch) of the queue: with the keyed processor when the queue hands out
// keys, in batches when the queue and ProcessBatch allow it, otherwise one
// item at a time with Process. It returns nil when there is nothing to
// process with.
func (c *controller) popper() func() error {
	queue := c.config.Queue
	if p := c.config.keyed; p != nil {
		single, batch := p.processKeyed, p.processBatchKeyed // bound once, not per pop
		if q, ok := queue.(keyedBatchQueue); ok {
			return func() error { return q.popBatchKeyed(batch, single) }
		}
		if q, ok := queue.(keyedQueue); ok {
			return func() error { return q.popKeyed(single) }
		}
	}
	process := PopProcessFunc(c.config.Process)
	if q, ok := queue.(QueueWithBatch); ok && c.config.ProcessBatch != nil {
		batch := c.config.ProcessBatch
		return func() error { return q.PopBatch(batch, process) }
	}
	if process == nil {
		return nil
	}
	return func() error {
		_, err := queue.Pop(process)
		return err
	}
}

// HasSynced implements [Controller.HasSynced].
func (c *controller) HasSynced() bool {
	if c.config.Queue == nil || isNilObject(c.config.Queue) {
		return false
	}
	return c.config.Queue.HasSynced()
}

// HasSyncedChecker implements [Controller.HasSyncedChecker].
func (c *controller) HasSyncedChecker() DoneChecker {
	if c.config.Queue == nil || isNilObject(c.config.Queue) {
		return neverDone{}
	}
	return c.config.Queue.HasSyncedChecker()
}

// LastSyncResourceVersion implements [Controller.LastSyncResourceVersion].
func (c *controller) LastSyncResourceVersion() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.reflector == nil {
		return ""
	}
	return c.reflector.LastSyncResourceVersion()
}

// SyncStatus implements [SyncStatusReporter].
func (c *controller) SyncStatus() SyncStatus {
	st, _ := c.config.monitor.syncStatus()
	return st
}

// syncStatusChanges returns the status and a channel closed at its next
// significant change, for WaitForSync.
func (c *controller) syncStatusChanges() (SyncStatus, <-chan struct{}) {
	return c.config.monitor.syncStatus()
}

// WaitForResourceVersion implements [ResourceVersionWaiter].
func (c *controller) WaitForResourceVersion(ctx context.Context, resourceVersion string) error {
	return c.config.monitor.waitForResourceVersion(ctx, resourceVersion)
}

// neverDone is the DoneChecker of a controller without a queue.
type neverDone struct{}

func (neverDone) Name() string          { return "controller without a queue" }
func (neverDone) Done() <-chan struct{} { return nil }
