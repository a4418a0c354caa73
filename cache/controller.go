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
	// Queue is filled by the reflector and drained by Process (and
	// ProcessBatch). With a [DeltaFIFO] or a [RealFIFO] the controller can
	// also wait for resource versions ([ResourceVersionWaiter]).
	Queue

	// ListerWatcher is the source of the objects.
	ListerWatcher

	// Process handles one popped item (a [Deltas] for the queues of this
	// package). Errors are logged and the item is dropped.
	Process ProcessFunc

	// ProcessBatch handles several popped deltas with distinct keys at
	// once. It is used, instead of Process for everything but single
	// deltas, when it is set and Queue is a [QueueWithBatch]. On a partial
	// failure it returns an error describing it; the informers' batch
	// processing returns one that wraps the store's [TransactionError], for
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
	// controllerOptions are the options the controller was built with,
	// every default filled in.
	controllerOptions
	// monitorReports are the controller's SyncStatus and
	// WaitForResourceVersion, from its monitor.
	monitorReports

	mu        sync.RWMutex
	reflector *Reflector // guarded by mu; set by RunWithContext
}

// New returns a [Controller] for a copy of *c. The controllers of the
// informers of this package are built the same way and run the same code,
// with one difference: they pop their queue with the keys it computed, so
// that their processing does not compute them again.
func New(c *Config) Controller {
	return newController(*c, controllerOptions{})
}

// controllerOptions is what the informers of this package give their
// controller besides a [Config]; the zero value is what [New] gives. The
// fields other than pop only supply what New defaults (the clock, the name,
// the monitor); pop is the one difference in what the controller runs.
type controllerOptions struct {
	// clock carries the reflector's timers and the retries of processing;
	// nil means the real clock.
	clock clock.Clock
	// realTime, when not nil, replaces the real clock of the reflector
	// (see Reflector.realTime); tests running on a sped-up clock set it.
	realTime clock.Clock
	// creator is the file:line of the code outside this library that built
	// the informer, which names the reflector when the code that runs it is
	// all library code (see defaultReflectorName). "" means the code that
	// called New.
	creator string
	// monitor follows the run for the sync status, run metrics and
	// resource-version waits. Nil means a monitor of the controller's own,
	// which knows no store.
	monitor *informerMonitor
	// pop pops the next item, or batch, of the queue and processes it.
	// Nil means popping as Config says: in batches with ProcessBatch when
	// the queue is a [QueueWithBatch], else one item at a time with
	// Process. An informer pops with the keys its queue computed (see
	// newInformerPipeline), so that the processing does not compute them
	// again.
	pop func() error
	// snapshots, when not nil, keeps the informer's snapshot (see
	// [SnapshotOptions]): the reflector resumes from it and lets it take
	// snapshots; the controller starts it before the reflector runs and
	// stops it after the run.
	snapshots *snapshotKeeper
}

// newController returns the controller of config with opts.
func newController(config Config, opts controllerOptions) *controller {
	c := &controller{config: config, controllerOptions: opts}
	if c.clock == nil {
		c.clock = realClock
	}
	if c.creator == "" {
		c.creator = callSite()
	}
	if c.monitor == nil {
		c.monitor = newInformerMonitor(c.clock, config.ObjectType, config.ObjectDescription, InformerNameAndResource{}, nil, nil)
	}
	if c.pop == nil {
		c.pop = configPopper(config)
	}
	c.monitorReports = monitorReports{c.monitor}
	return c
}

// configPopper returns the function that pops and processes the next item
// (or batch) of config's queue: in batches when the queue and ProcessBatch
// allow it, otherwise one item at a time with Process. It returns nil when
// there is nothing to process with.
func configPopper(config Config) func() error {
	queue := config.Queue
	if queue == nil || isNilObject(queue) {
		return nil
	}
	process := PopProcessFunc(config.Process)
	if q, ok := queue.(QueueWithBatch); ok && config.ProcessBatch != nil {
		batch := config.ProcessBatch
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

	monitor := c.monitor
	r := newReflector(c.config.ListerWatcher, c.config.ObjectType, c.config.Queue, ReflectorOptions{
		Name:            defaultReflectorName(c.creator),
		Logger:          &logger,
		ResyncPeriod:    c.config.FullResyncPeriod,
		MinWatchTimeout: c.config.MinWatchTimeout,
		TypeDescription: c.config.ObjectDescription,
		Clock:           c.clock,
		WatchLiveness:   c.config.WatchLiveness,
	}, monitor)
	if c.realTime != nil {
		r.realTime = c.realTime
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
	if c.snapshots != nil {
		c.snapshots.start(ctx, r.realTime)
		r.snapshots = c.snapshots
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
	if c.snapshots != nil {
		c.snapshots.stop() // the reflector and the processing have returned
	}
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
	if c.pop == nil {
		utilruntime.HandleErrorWithContext(ctx, nil, "Controller has no Process function, not popping anything")
		<-ctx.Done()
		return
	}
	for ctx.Err() == nil {
		err := c.pop()
		c.monitor.popped()
		switch {
		case errors.Is(err, ErrFIFOClosed):
			return
		case err != nil:
			utilruntime.HandleErrorWithContext(ctx, err, "Unable to process a popped item, dropping it")
		}
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

// neverDone is the DoneChecker of a controller without a queue.
type neverDone struct{}

func (neverDone) Name() string          { return "controller without a queue" }
func (neverDone) Done() <-chan struct{} { return nil }
