package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1beta1 "k8s.io/apimachinery/pkg/apis/meta/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/informer-go/informer/wait"
)

const (
	// defaultExpectedTypeName describes a reflector built without an
	// expected type.
	defaultExpectedTypeName = "<unspecified>"
	// defaultMinWatchTimeout is the shortest watch timeout a reflector asks
	// for; each watch asks for a random timeout in [min, 2*min] so that
	// clients started together do not reconnect together.
	defaultMinWatchTimeout = 5 * time.Minute
	// defaultWatchListStallTimeout is how long a streaming list may go
	// without an event before the reflector gives up on it.
	defaultWatchListStallTimeout = time.Minute
	// internalErrorRetryReset is the quiet period after which a new watch
	// internal error starts a fresh MaxInternalErrorRetryDuration window.
	internalErrorRetryReset = time.Minute
	// watchTimeoutGrace is how long a watch may stay open past the longest
	// timeout the reflector asks the server for before the reflector closes
	// it itself.
	watchTimeoutGrace = time.Minute
)

// realClock is the clock of components built without one.
var realClock clock.Clock = clock.RealClock{}

// Reflector keeps a [ReflectorStore] in step with a resource on a server: it
// lists the resource (or streams the list, see below), replaces the store's
// contents with the result, then watches from the list's resource version and
// applies every event, until its context ends.
//
// Failures are handled the way client-go v0.37.2 handles them:
//
//   - The first list asks for resource version "0" (servable from the
//     server's watch cache); relists ask for the last resource version the
//     reflector saw, from a list, a watch event or a bookmark; only after a
//     list or streaming list failed with Expired/Gone or "too large resource
//     version" does it ask for "" (a quorum read).
//   - An invalid resource version is treated like an expired one, where
//     client-go keeps asking for it: when the server refuses a list, watch
//     or streaming list because of the version it asked for (a 400, 422 or
//     500 naming the resource version, as kube-apiserver sends), or a list
//     or streaming list that asked for a version answers with one that is
//     neither "" nor a decimal number (kube-apiserver's versions are
//     decimal, and it refuses others), the reflector logs why at verbosity 2
//     and reads the most recent state instead: at once for a list or
//     streaming list, in the relist after the backoff delay for a watch. An
//     answer to a request for "" is taken whatever its version, since
//     versions are opaque to clients.
//   - Lists are paginated (500 per page) when they ask for "" or "0", when a
//     first list at "0" came back in pages (the server has no watch cache for
//     the resource), or when WatchListPageSize says so; otherwise a list at a
//     specific resource version asks for everything at once so that the
//     watch cache can serve it. An expired continue token restarts the list
//     unpaginated.
//   - By default the reflector first tries a streaming list: a watch with
//     SendInitialEvents whose events fill a temporary store until the
//     bookmark annotated "k8s.io/initial-events-end", after which the store is
//     replaced and the same watch goes on. A ListerWatcher whose
//     IsWatchListSemanticsUnSupported method returns true never gets
//     streaming lists.
//   - A streaming list makes at most three requests per cycle. One whose
//     resource version turned out unavailable is retried at once from the
//     most recent state, unless it already asked for that; throttled,
//     refused or expired requests and streams that close before the end
//     bookmark are retried after a backoff delay (client-go retries these at
//     once, and without end unless throttled or refused). After the third
//     failure, or at once after any other failure, the cycle falls back to a
//     paginated list; the next cycle tries a streaming list again.
//   - Only ADDED events are progress of a streaming list's initial list: a
//     stream without one for ReflectorOptions.WatchListStallTimeout is
//     abandoned (client-go waits forever), and so, at once, is a stream that
//     shows that the server ignored sendInitialEvents by sending a MODIFIED
//     or DELETED event, or a bookmark without the annotation, before the
//     annotated one (client-go waits forever for such a server too). After
//     either the reflector uses paginated lists for good.
//   - A watch that ends normally is reopened at once from the last resource
//     version, without a relist; but when two watches in a row end less than
//     a second after they were requested, the next one waits a backoff delay
//     (client-go reopens at once, however often). A watch still open a
//     minute after the longest timeout the reflector asks for (twice the
//     minimum watch timeout) is closed and reopened the same way, since a
//     hanging connection would otherwise keep the store stale for good
//     (client-go waits on it). With ReflectorOptions.WatchLiveness, a watch
//     that receives neither an event nor a bookmark for its liveness timeout
//     is reopened the same way, sooner. A watch that fails (Expired, an error event,
//     a stream closed within a second without events, a failed resync)
//     relists after a backoff delay. Throttling (429) and refused
//     connections retry the watch after a backoff delay; internal errors
//     retry it at once for up to MaxInternalErrorRetryDuration.
//   - Backoff delays start at 800ms and double up to 30s, each stretched by
//     a random factor in [1, 2). The sequence starts over at the first
//     failure after the reflector was back in contact with the server for a
//     second (a list or streaming list completed, or a watch stayed open that
//     long), or after two minutes without failure; so a reflector meets each
//     outage of a flapping server with the shortest delays, while against a
//     server that stays down each reflector settles at one attempt every 30
//     to 60 seconds. (client-go starts over at the first delay more than two
//     minutes after its previous start, failures or not: a reflector that
//     worked for less than that may resume high in the sequence, and one
//     whose server stays down drops back to sub-second retries every two
//     minutes.) Watch timeouts are random in [5m, 10m].
//   - Events whose object has the wrong Go type (or, for an expected
//     *unstructured.Unstructured with apiVersion and kind, the wrong kind),
//     Table objects, and objects without metadata are dropped with a logged
//     error, as are such items of a list; a Table list fails the list.
//   - A ListerWatcher call that panics, or returns neither a result nor an
//     error, fails like a call that returned an error (client-go re-raises
//     a panic of the list and crashes on a panic of the watch).
//
// client-go's optional consistency check of streaming lists (enabled there by
// KUBE_WATCHLIST_INCONSISTENCY_DETECTOR) is not implemented. Its warning,
// every 10 seconds without an event, that a streaming list is still awaiting
// its bookmark is logged as in client-go.
//
// Some waits follow the clock of [ReflectorOptions], the others real time,
// so that the clock carries exactly client-go's timers; see
// [ReflectorOptions.Clock]. The exported fields must be set before Run and
// not changed afterwards; the methods are safe for concurrent use. Run and
// ListAndWatch must not run concurrently on one Reflector.
type Reflector struct {
	name            string
	typeDescription string
	// expectedType is the Go type of accepted objects, nil to accept any.
	expectedType reflect.Type
	// expectedGVK is the kind of accepted objects when the expected type
	// is an Unstructured with apiVersion and kind, else nil.
	expectedGVK *schema.GroupVersionKind

	store         ReflectorStore
	listerWatcher ListerWatcherWithContext
	// logger is used instead of the context's logger when hasLogger.
	logger    klog.Logger
	hasLogger bool

	// clock carries client-go's timers and nothing else: tests written for
	// client-go count the waiters on a fake one (see
	// [ReflectorOptions.Clock]).
	clock clock.Clock
	// realTime carries the waits client-go makes in real time and the
	// safety timers client-go does not have; never nil. It is the real
	// clock (virtual inside a testing/synctest bubble); tests may replace
	// it.
	realTime        clock.Clock
	backoff         *reflectorBackoff
	resyncPeriod    time.Duration
	minWatchTimeout time.Duration
	maxWatchTimeout time.Duration
	// watchListStallTimeout bounds the silence of a streaming list; 0 means
	// no bound.
	watchListStallTimeout time.Duration
	// useWatchList is cleared for good when the ListerWatcher opts out or a
	// streaming list stalled.
	useWatchList atomic.Bool

	// watchErrorHandler receives the errors of ListAndWatch. Set before Run.
	watchErrorHandler WatchErrorHandlerWithContext

	// observer is told about every list and watch outcome; never nil. Set
	// before Run.
	observer reflectorObserver
	// livenessTimeout ends a watch that received neither an event nor a
	// bookmark for that long (see [WatchLivenessOptions]); zero means
	// never.
	livenessTimeout time.Duration

	// paginatedResult records that a list at resource version "0" came back
	// in pages (the server has no watch cache for the resource), so later
	// lists keep paginating. Only the goroutine running ListAndWatch uses it.
	paginatedResult bool

	// versions is where the reflector stands: the resource version it
	// has synced to, and whether the server can still serve it.
	versions syncedVersion

	// WatchListPageSize is the page size of lists. Zero means 500 for lists
	// at resource version "" or "0" (or after a list at "0" came back
	// paginated) and no pagination otherwise, so that the server's watch
	// cache can serve relists. Paginated lists bypass the watch cache; set it
	// with care.
	WatchListPageSize int64
	// ShouldResync is asked on every resync period whether to call the
	// store's Resync; nil means always.
	ShouldResync func() bool
	// MaxInternalErrorRetryDuration is how long after the first of a run of
	// internal server errors ending watches the reflector keeps reopening
	// the watch at once instead of relisting. Zero disables the retries.
	MaxInternalErrorRetryDuration time.Duration
}

// ReflectorOptions configures [NewReflectorWithOptions]. The zero value gives
// the defaults described on each field.
type ReflectorOptions struct {
	// Logger is used instead of the logger of the context given to Run and
	// ListAndWatch, when not nil.
	Logger *klog.Logger

	// Name names the reflector in logs. Default: the file:line of the
	// innermost caller of NewReflectorWithOptions outside this library;
	// for the reflector of an informer run only by library code (as with
	// `go informer.Run(stop)` or an [InformerFactory]), the file:line that
	// built the informer; "????" when neither is known.
	Name string

	// TypeDescription describes the expected objects in logs. Default:
	// "<unspecified>" without an expected type, the group, version and kind
	// of an expected *unstructured.Unstructured that has them, and the Go
	// type of the expected type otherwise.
	TypeDescription string

	// ResyncPeriod is how often the reflector considers calling the store's
	// Resync (see [Reflector.ShouldResync]). Zero or negative: never.
	ResyncPeriod time.Duration

	// MinWatchTimeout is the lower bound of the random watch timeout, which
	// lies in [MinWatchTimeout, 2*MinWatchTimeout]. Values up to 5 minutes
	// are replaced by 5 minutes. A watch the server has not closed a minute
	// after 2*MinWatchTimeout is closed by the reflector and reopened.
	MinWatchTimeout time.Duration

	// Clock carries the reflector's timers that client-go v0.37.2 puts on
	// its clock, and no other, so that a test written for client-go sees
	// the same waiters on a fake clock at every point of the reflector's
	// life:
	//
	//   - the resync period, while a watch is open, when ResyncPeriod is
	//     positive;
	//   - the backoff delay before retrying a throttled (429) or refused
	//     watch or streaming list, and a watch ended by a 429;
	//   - a 10-second ticker while a streaming list awaits its
	//     initial-events-end bookmark, when the clock has tickers
	//     (clock.WithTicker), for the warning client-go logs. (A FakeClock of
	//     k8s.io/utils/clock/testing keeps a stopped ticker among its
	//     waiters, so each streaming list leaves one behind, as with
	//     client-go.)
	//
	// The clock also tells when a watch is too short-lived ([VeryShortWatchError]),
	// when the internal-error retry window and the backoff sequence start
	// over, and the durations in logs. Everything else waits in real time,
	// never on this clock: the backoff delay between two ListAndWatch cycles
	// of Run (client-go's too), and the safety timers client-go does not
	// have: the backoff delays before reopening watches that keep closing as
	// soon as they open and before streaming a list again after a stream
	// closed early, outlived its timeout or expired (client-go retries at
	// once); the bound on a watch's life (a minute past twice
	// MinWatchTimeout); WatchListStallTimeout; and WatchLiveness. So a test
	// that steps a fake clock by an hour to bring on a resync gets the resync
	// and keeps its watch, and a reflector whose fake clock is never stepped
	// still relists after failures, as client-go's does. Inside a
	// testing/synctest bubble, real time is the bubble's virtual time.
	// Default: the real clock.
	Clock clock.Clock

	// Backoff replaces the default backoff parameters (800ms doubling to 30s
	// with full jitter). The same sequence of delays spaces relists, retries
	// of throttled or refused watches, retries of streaming lists and
	// watches that keep closing as soon as they open (see [Reflector]).
	// Whatever the parameters, the sequence starts over at the first failure
	// after a second of contact with the server, or after two minutes
	// without failures. A Duration of zero means no delay at all, which is
	// only sensible in tests.
	Backoff *wait.Backoff

	// WatchListStallTimeout bounds how long a streaming list may go without
	// receiving an ADDED event (an object of the initial list) before its
	// "k8s.io/initial-events-end" bookmark; events that are dropped do not
	// count. When it passes, the reflector logs the reason, abandons the
	// stream, lists with pagination instead and does not try streaming lists
	// again. Zero means one minute; a negative value waits forever, as
	// client-go does. (A stream that sends a MODIFIED or DELETED event, or
	// another bookmark, before that bookmark is abandoned at once, whatever
	// the timeout.)
	WatchListStallTimeout time.Duration

	// WatchLiveness, when not nil, restarts watches that go silent; see
	// [WatchLivenessOptions]. Nil (the default, and client-go's only
	// behaviour) waits for the server or the watch timeout to end them. It
	// is not part of client-go's API.
	WatchLiveness *WatchLivenessOptions
}

// WatchErrorHandler is called with the error of every [Reflector.ListAndWatch]
// cycle that ended with one: a failed list or a watch that could not be
// started. The reflector then waits one backoff delay and lists again. Errors
// of an established watch stream do not reach it (the reflector handles them
// itself). A handler must return quickly; it runs on the reflector's
// goroutine.
type WatchErrorHandler func(r *Reflector, err error)

// WatchErrorHandlerWithContext is [WatchErrorHandler] with the context of the
// running reflector, for contextual logging.
type WatchErrorHandlerWithContext func(ctx context.Context, r *Reflector, err error)

// DefaultWatchErrorHandler is the [WatchErrorHandlerWithContext] reflectors
// use unless told otherwise. It only logs: an expired resource version at
// verbosity 4, io.EOF itself not at all, io.ErrUnexpectedEOF itself at
// verbosity 1, and everything else, including errors that merely wrap
// io.EOF (such as a list whose connection ended), through
// utilruntime.HandleErrorWithContext.
func DefaultWatchErrorHandler(ctx context.Context, r *Reflector, err error) {
	logger := klog.FromContext(ctx)
	switch {
	case isExpiredError(err):
		// The next list asks for the last synced resource version first:
		// the server answers with data at least that fresh.
		logger.V(4).Info("Watch closed", "reflector", r.name, "type", r.typeDescription, "err", err)
	// Only the bare sentinels, as a watch returns them, mean a stream that
	// ended; failed lists reach this handler wrapped and must be reported.
	case err == io.EOF:
		// A normal end of stream.
	case err == io.ErrUnexpectedEOF:
		logger.V(1).Info("Watch closed with unexpected EOF", "reflector", r.name, "type", r.typeDescription, "err", err)
	default:
		utilruntime.HandleErrorWithContext(ctx, err, "Failed to watch", "reflector", r.name, "type", r.typeDescription)
	}
}

// NewReflector returns a reflector named after its caller that keeps store in
// step with lw. See [NewReflectorWithOptions].
func NewReflector(lw ListerWatcher, expectedType any, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	return NewReflectorWithOptions(lw, expectedType, store, ReflectorOptions{ResyncPeriod: resyncPeriod})
}

// NewNamedReflector returns a reflector with the given name that keeps store
// in step with lw. See [NewReflectorWithOptions].
func NewNamedReflector(name string, lw ListerWatcher, expectedType any, store ReflectorStore, resyncPeriod time.Duration) *Reflector {
	return NewReflectorWithOptions(lw, expectedType, store, ReflectorOptions{Name: name, ResyncPeriod: resyncPeriod})
}

// NewReflectorWithOptions returns a reflector that keeps store in step with
// lw. Only objects of the Go type of expectedType reach the store, unless
// expectedType is nil; for an *unstructured.Unstructured with apiVersion and
// kind, only objects of that kind. Nothing happens until Run or ListAndWatch
// is called.
//
// A nil lw or store is reported as an error by every ListAndWatch.
func NewReflectorWithOptions(lw ListerWatcher, expectedType any, store ReflectorStore, options ReflectorOptions) *Reflector {
	r := &Reflector{
		name:              options.Name,
		typeDescription:   options.TypeDescription,
		store:             store,
		clock:             options.Clock,
		resyncPeriod:      options.ResyncPeriod,
		minWatchTimeout:   defaultMinWatchTimeout,
		watchErrorHandler: DefaultWatchErrorHandler,
		observer:          noopObserver{},
		livenessTimeout:   options.WatchLiveness.timeout(),
	}
	if r.name == "" {
		r.name = defaultReflectorName("")
	}
	if r.clock == nil {
		r.clock = realClock
	}
	r.realTime = realClock
	if options.MinWatchTimeout > r.minWatchTimeout {
		r.minWatchTimeout = options.MinWatchTimeout
	}
	r.maxWatchTimeout = 2 * r.minWatchTimeout
	switch {
	case options.WatchListStallTimeout == 0:
		r.watchListStallTimeout = defaultWatchListStallTimeout
	case options.WatchListStallTimeout > 0:
		r.watchListStallTimeout = options.WatchListStallTimeout
	}

	r.logger = klog.Background()
	if options.Logger != nil {
		r.logger, r.hasLogger = *options.Logger, true
	}
	r.logger = klog.LoggerWithName(r.logger, r.name)

	backoff := defaultBackoff()
	if options.Backoff != nil {
		backoff = *options.Backoff
	}
	r.backoff = newReflectorBackoff(backoff, defaultBackoffReset, r.clock)

	if expectedType != nil {
		r.expectedType = reflect.TypeOf(expectedType)
	}
	r.expectedGVK = expectedKind(expectedType)
	if r.typeDescription == "" {
		r.typeDescription = describeExpectedType(expectedType, r.expectedGVK)
	}

	if lw != nil && !isNilObject(lw) {
		r.listerWatcher = ToListerWatcherWithContext(lw)
	}
	r.useWatchList.Store(true)
	if r.listerWatcher != nil && clientLacksWatchListSemantics(lw) {
		r.logger.V(2).Info("The ListerWatcher does not support streaming lists, using paginated lists; expected in unit tests with fake clients, not in production",
			"reflector", r.name, "type", r.typeDescription)
		r.useWatchList.Store(false)
	}
	return r
}

// expectedKind returns the kind of accepted objects when expectedType is an
// *unstructured.Unstructured with apiVersion and kind, else nil.
func expectedKind(expectedType any) *schema.GroupVersionKind {
	if u, ok := expectedType.(*unstructured.Unstructured); ok && u != nil {
		if gvk := u.GroupVersionKind(); !gvk.Empty() {
			return &gvk
		}
	}
	return nil
}

// describeExpectedType is the default type description.
func describeExpectedType(expectedType any, gvk *schema.GroupVersionKind) string {
	switch {
	case expectedType == nil:
		return defaultExpectedTypeName
	case gvk != nil:
		return gvk.String()
	default:
		return reflect.TypeOf(expectedType).String()
	}
}

// Name returns the reflector's name.
func (r *Reflector) Name() string {
	return r.name
}

// TypeDescription returns the description of the expected objects.
func (r *Reflector) TypeDescription() string {
	return r.typeDescription
}

// LastSyncResourceVersion returns the newest resource version the reflector
// has seen in a list, a streaming list or a watch event, "" before the first
// list. It may run ahead of what the store's consumer has processed.
func (r *Reflector) LastSyncResourceVersion() string {
	return r.versions.get()
}

// setLastSyncResourceVersion records rv, which the store has been handed
// everything up to, and tells the observer.
func (r *Reflector) setLastSyncResourceVersion(rv string) {
	r.versions.set(rv)
	r.observer.resourceVersionReached(rv)
}

// recordWatchEventVersion records the resource version of a watch event
// that eventVersions admitted, and hands it to a store that tracks it.
func (r *Reflector) recordWatchEventVersion(rv string) {
	r.setLastSyncResourceVersion(rv)
	if u, ok := r.store.(ResourceVersionUpdater); ok {
		u.UpdateResourceVersion(rv)
	}
}

// Run calls [Reflector.RunWithContext] with a context that ends when stopCh
// closes.
func (r *Reflector) Run(stopCh <-chan struct{}) {
	r.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext keeps the store in step until ctx ends: it runs ListAndWatch
// at once and again after each return, waiting one backoff delay in between,
// in real time as client-go does (not on [ReflectorOptions.Clock]). Errors go
// to the watch error handler ([DefaultWatchErrorHandler] unless the
// reflector's owner set another). It blocks until ctx ends and the current
// cycle has stopped.
func (r *Reflector) RunWithContext(ctx context.Context) {
	logger := r.loggerFor(ctx)
	ctx = klog.NewContext(ctx, logger)
	logger.V(3).Info("Starting reflector", "reflector", r.name, "type", r.typeDescription, "resyncPeriod", r.resyncPeriod)
	for ctx.Err() == nil {
		if err := r.ListAndWatchWithContext(ctx); err != nil {
			r.watchErrorHandler(ctx, r, err)
		}
		if !r.backOff(ctx, false) {
			break
		}
	}
	logger.V(3).Info("Stopping reflector", "reflector", r.name, "type", r.typeDescription, "resyncPeriod", r.resyncPeriod)
}

// loggerFor returns the reflector's own logger if it has one, else ctx's.
func (r *Reflector) loggerFor(ctx context.Context) klog.Logger {
	if r.hasLogger {
		return r.logger
	}
	return klog.FromContext(ctx)
}

// backOff waits the next backoff delay: on the reflector's clock when
// onClock (client-go's retries of throttled and refused requests), in real
// time otherwise. It reports false, early, when ctx ends first.
func (r *Reflector) backOff(ctx context.Context, onClock bool) bool {
	d := r.backoff.next()
	if onClock {
		return sleepOn(ctx, r.clock, d)
	}
	return sleepOn(ctx, r.realTime, d)
}

// instant is a moment read from both of the reflector's clocks.
type instant struct {
	onClock time.Time // on the reflector's clock
	real    time.Time // in real time
}

// now returns the current instant.
func (r *Reflector) now() instant {
	return instant{onClock: r.clock.Now(), real: r.realTime.Now()}
}

// sleep waits d in real time, never on the reflector's clock. It reports
// false, early, when ctx ends first.
func (r *Reflector) sleep(ctx context.Context, d time.Duration) bool {
	return sleepOn(ctx, r.realTime, d)
}

// sleepOn waits d on c. It reports false, early, when ctx ends first, and
// puts no timer on c when ctx has ended already or d is not positive.
func sleepOn(ctx context.Context, c clock.Clock, d time.Duration) bool {
	if d <= 0 || ctx.Err() != nil {
		return ctx.Err() == nil
	}
	t := c.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C():
		return true
	}
}

// watchTimeoutSeconds draws the timeout of the next watch, uniformly in
// [minWatchTimeout, maxWatchTimeout].
func (r *Reflector) watchTimeoutSeconds() int64 {
	lo, hi := r.minWatchTimeout.Seconds(), r.maxWatchTimeout.Seconds()
	return int64(lo + rand.Float64()*(hi-lo))
}

// ListAndWatch calls [Reflector.ListAndWatchWithContext] with a context that
// ends when stopCh closes.
func (r *Reflector) ListAndWatch(stopCh <-chan struct{}) error {
	return r.ListAndWatchWithContext(wait.ContextForChannel(stopCh))
}

// ListAndWatchWithContext runs one cycle: a streaming or paginated list that
// replaces the store's contents, then watches (reopened as long as they end
// normally) until a watch fails or ctx ends. It returns an error only when the
// list failed or a watch could not be started; a failed watch stream returns
// nil, and the caller is expected to wait and call it again, as Run does.
func (r *Reflector) ListAndWatchWithContext(ctx context.Context) error {
	logger := r.loggerFor(ctx)
	ctx = klog.NewContext(ctx, logger)
	if r.listerWatcher == nil {
		return fmt.Errorf("list and watch %s: reflector %s has no ListerWatcher", r.typeDescription, r.name)
	}
	if r.store == nil || isNilObject(r.store) {
		return fmt.Errorf("list and watch %s: reflector %s has no store", r.typeDescription, r.name)
	}
	logger.V(3).Info("Listing and watching", "reflector", r.name, "type", r.typeDescription)
	r.observer.cycleStarted()

	var w watch.Interface
	if r.useWatchList.Load() {
		var err error
		w, err = r.watchList(ctx)
		switch {
		case ctx.Err() != nil:
			if w != nil {
				w.Stop()
			}
			return nil
		case err != nil:
			logger.V(4).Info("Streaming list failed, falling back to a paginated list; expected when the server does not support streaming lists",
				"reflector", r.name, "type", r.typeDescription, "err", err)
		}
	}
	if w == nil {
		if err := r.list(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	logger.V(2).Info("Caches populated", "reflector", r.name, "type", r.typeDescription)
	return r.watchWithResync(ctx, w)
}

// listResult is what the list goroutine hands back.
type listResult struct {
	list      runtime.Object
	paginated bool
	err       error
}

// list fetches the complete list, replaces the store's contents with it and
// records its resource version. It returns nil at once when ctx ends, while
// the request may still be running: the goroutine making it exits when the
// ListerWatcher returns, and its result is dropped. A panic of the
// ListerWatcher is returned as an error.
func (r *Reflector) list(ctx context.Context) (err error) {
	r.observer.listStarted(ListMethodPaginated)
	defer func() {
		if err != nil {
			r.observer.listFailed(ListMethodPaginated, err)
		}
	}()
	options := metav1.ListOptions{ResourceVersion: r.versions.forList()}
	pager := newListPager(r.listerWatcher.ListWithContext)
	switch {
	case r.WatchListPageSize != 0:
		pager.pageSize = r.WatchListPageSize
	case r.paginatedResult:
		// The server paginated a list at "0": it has no watch cache for
		// this resource, so keep the default page size.
	case options.ResourceVersion != "" && options.ResourceVersion != "0":
		// Ask for everything at once: the watch cache serves lists at a
		// resource version only without a limit. It answers with data at
		// least as new as asked for, so this never goes back in time.
		pager.pageSize = 0
	}

	done := make(chan listResult, 1)
	// The goroutine exits when the ListerWatcher returns; list does not wait
	// for it when ctx ends first (see above).
	go func() {
		var res listResult
		defer func() {
			if p := recover(); p != nil {
				res = listResult{err: fmt.Errorf("list panicked: %v", p)}
			}
			done <- res
		}()
		res.list, res.paginated, res.err = pager.list(ctx, options)
		if res.err == nil && options.ResourceVersion != "" {
			// A list at "" is taken with whatever version it carries:
			// versions are opaque to clients, and asking again for the
			// most recent state would not change it.
			res.err = checkResourceVersion(listResourceVersion(res.list), "the list")
		}
		if res.err != nil && r.judge(ctx, failure{step: stepList, resourceVersion: options.ResourceVersion}, res.err).action == actionRelistNow {
			res.list, res.paginated, res.err = pager.list(ctx, metav1.ListOptions{ResourceVersion: r.versions.forList()})
		}
	}()
	var res listResult
	select {
	case <-ctx.Done():
		return nil
	case res = <-done:
	}
	if ctx.Err() != nil {
		return nil
	}
	if res.err != nil {
		return fmt.Errorf("list %s: %w", r.typeDescription, res.err)
	}
	if gvk, isTable := isUnsupportedTableList(res.list); isTable {
		return fmt.Errorf("list %s: unsupported list kind %v", r.typeDescription, gvk)
	}
	if options.ResourceVersion == "0" && res.paginated {
		r.paginatedResult = true
	}
	r.versions.setUnavailable(false)

	listMeta, err := meta.ListAccessor(res.list)
	if err != nil {
		return fmt.Errorf("list %s: unable to understand list result %T: %w", r.typeDescription, res.list, err)
	}
	resourceVersion := listMeta.GetResourceVersion()
	items, err := extractListItems(res.list)
	if err != nil {
		return fmt.Errorf("list %s: unable to understand list result %T: %w", r.typeDescription, res.list, err)
	}
	objs := make([]any, 0, len(items))
	// A broken server may list an object twice. kube-apiserver lists in key
	// order, so names that strictly increase prove there are no duplicates
	// without a map.
	increasing := true
	var last ObjectName
	for _, item := range items {
		m, err := r.checkListItem(item)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Dropping list item", "reflector", r.name, "type", r.typeDescription)
			continue
		}
		if name := MetaObjectToName(m); increasing {
			increasing = len(objs) == 0 || nameLess(last, name)
			last = name
		}
		objs = append(objs, item)
	}
	if !increasing {
		var duplicates int
		if objs, duplicates = keepLastCopies(objs); duplicates > 0 {
			utilruntime.HandleErrorWithContext(ctx, nil, "List holds objects more than once; keeping the last copy of each",
				"reflector", r.name, "type", r.typeDescription, "duplicates", duplicates)
		}
	}
	if err := r.store.Replace(objs, resourceVersion); err != nil {
		return fmt.Errorf("list %s: unable to sync list result: %w", r.typeDescription, err)
	}
	r.observer.listed(ListMethodPaginated, len(objs), resourceVersion)
	r.backoff.inContact(r.clock.Now())
	r.setLastSyncResourceVersion(resourceVersion)
	klog.FromContext(ctx).V(4).Info("Listed", "reflector", r.name, "type", r.typeDescription,
		"resourceVersion", resourceVersion, "items", len(objs), "paginated", res.paginated)
	return nil
}

// watchList streams the initial list into a temporary store and, once the
// initial-events-end bookmark arrived, replaces the store's contents and
// returns the still open watch. It makes at most maxWatchListAttempts
// requests, retrying as the retry policy says ([failure.decide]). When the
// policy says to list instead, it returns the error, with a nil watch, for
// the caller to fall back to a paginated list. It returns nil, nil when ctx
// ends.
func (r *Reflector) watchList(ctx context.Context) (watch.Interface, error) {
	var transform TransformFunc
	if ts, ok := r.store.(TransformingStore); ok {
		transform = ts.Transformer()
	}
	for attempt := 1; ; attempt++ {
		if ctx.Err() != nil {
			return nil, nil
		}
		resourceVersion := r.versions.forStreamingList()
		r.observer.listStarted(ListMethodStreaming)
		w, err := r.streamList(ctx, resourceVersion, transform)
		if err == nil {
			return w, nil
		}
		if ctx.Err() == nil {
			r.observer.listFailed(ListMethodStreaming, err)
		}
		f := failure{step: stepStreamingList, resourceVersion: resourceVersion, attempt: attempt}
		switch d := r.judge(ctx, f, err); d.action {
		case actionStop:
			return nil, nil
		case actionRewatch:
			// At once: the next request asks for the most recent state.
		case actionRewatchAfterBackoff:
			if !r.backOff(ctx, d.onClock) {
				return nil, nil
			}
		default:
			return nil, fmt.Errorf("stream list of %s (attempt %d): %w", r.typeDescription, attempt, err)
		}
	}
}

// streamList makes one streaming-list request at resourceVersion. On success
// the store holds the streamed objects and the returned watch is open past
// the initial-events-end bookmark. On failure the watch is stopped and the
// error says why (see handleWatch); errStopRequested when ctx ended.
func (r *Reflector) streamList(ctx context.Context, resourceVersion string, transform TransformFunc) (watch.Interface, error) {
	acc := newWatchListAccumulator(transform)
	start := r.now()
	w, err := r.startWatch(ctx, watchListOptions(resourceVersion, r.watchTimeoutSeconds()))
	if err != nil {
		if ctx.Err() != nil {
			return nil, errStopRequested
		}
		return nil, err
	}
	listRV, err := r.handleWatch(ctx, start, w, watchSession{
		store:        acc,
		initialList:  true,
		stallTimeout: r.watchListStallTimeout,
	})
	if err != nil {
		return nil, err
	}
	if resourceVersion != "" {
		// As for lists, a stream from "" is taken whatever its version.
		if err := checkResourceVersion(listRV, "the initial-events-end bookmark"); err != nil {
			w.Stop()
			return nil, err
		}
	}
	if acc.replaced > 0 {
		utilruntime.HandleErrorWithContext(ctx, nil, "Streaming list holds objects more than once; keeping the last copy of each",
			"reflector", r.name, "type", r.typeDescription, "duplicates", acc.replaced)
	}
	r.versions.setUnavailable(false)
	if err := r.store.Replace(acc.List(), listRV); err != nil {
		w.Stop()
		return nil, fmt.Errorf("unable to sync result: %w", err)
	}
	r.observer.listed(ListMethodStreaming, acc.Len(), listRV)
	r.backoff.inContact(r.clock.Now())
	r.setLastSyncResourceVersion(listRV)
	klog.FromContext(ctx).V(4).Info("Streamed list", "reflector", r.name, "type", r.typeDescription,
		"resourceVersion", listRV, "items", acc.Len())
	return w, nil
}

// startWatch opens a watch, turning a nil watch without error, and a panic
// of the ListerWatcher, into an error.
func (r *Reflector) startWatch(ctx context.Context, options metav1.ListOptions) (w watch.Interface, err error) {
	defer func() {
		if p := recover(); p != nil {
			w, err = nil, fmt.Errorf("watch panicked: %v", p)
		}
	}()
	w, err = r.listerWatcher.WatchWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	if w == nil || isNilObject(w) {
		return nil, errors.New("watch returned neither a watch nor an error")
	}
	return w, nil
}

// watchWithResync runs watch with the periodic resync alongside.
func (r *Reflector) watchWithResync(ctx context.Context, w watch.Interface) error {
	resyncErrs := make(chan error, 1)
	resyncCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() { r.resyncLoop(resyncCtx, resyncErrs) }) // exits on resyncCtx.Done(); the deferred wg.Wait waits
	return r.watch(ctx, w, resyncErrs)
}

// resyncLoop calls the store's Resync every resync period (when ShouldResync
// agrees) until ctx ends or a Resync fails; the failure goes to errs.
func (r *Reflector) resyncLoop(ctx context.Context, errs chan<- error) {
	if r.resyncPeriod <= 0 {
		return
	}
	logger := klog.FromContext(ctx)
	for {
		if !sleepOn(ctx, r.clock, r.resyncPeriod) {
			return
		}
		if r.ShouldResync != nil && !r.ShouldResync() {
			continue
		}
		logger.V(4).Info("Forcing resync", "reflector", r.name, "type", r.typeDescription)
		if err := r.store.Resync(); err != nil {
			errs <- fmt.Errorf("resync: %w", err)
			return
		}
	}
}

// watch consumes w (or, when w is nil, a new watch from the last resource
// version), and keeps reopening watches as the retry policy says
// ([failure.decide]). It returns nil when a watch ended in a way that needs a
// relist, or ctx ended; it returns the error of a watch that could not be
// started. w is always stopped.
func (r *Reflector) watch(ctx context.Context, w watch.Interface, resyncErrs <-chan error) error {
	internalErrors := NewRetryWithDeadline(r.MaxInternalErrorRetryDuration, internalErrorRetryReset, apierrors.IsInternalError, r.clock)
	defer func() {
		if w != nil {
			w.Stop()
		}
	}()
	// shortWatches counts the watches in a row that closed normally less
	// than veryShortWatch after they were requested.
	shortWatches := 0
	for ctx.Err() == nil {
		// Measure from before the request: some proxies only send headers
		// with the first event.
		start := r.now()
		// A watch handed over by the streaming list is past its initial
		// events.
		versions := eventVersions{open: true}
		if w == nil {
			resourceVersion := r.LastSyncResourceVersion()
			versions = eventVersionsFrom(resourceVersion)
			var err error
			w, err = r.startWatch(ctx, watchOptions(resourceVersion, r.watchTimeoutSeconds()))
			if ctx.Err() == nil {
				r.observer.watchStarted(err)
			}
			if err != nil {
				switch d := r.judge(ctx, failure{step: stepWatchStart, resourceVersion: resourceVersion}, err); d.action {
				case actionStop:
					return nil
				case actionRewatchAfterBackoff:
					if !r.backOff(ctx, d.onClock) {
						return nil
					}
					continue
				default:
					return err
				}
			}
		}

		_, err := r.handleWatch(ctx, start, w, watchSession{
			store:           r.store,
			versions:        versions,
			resyncErrs:      resyncErrs,
			livenessTimeout: r.livenessTimeout,
		})
		w = nil // handleWatch stopped it
		r.observer.watchEnded(err)
		internalErrors.After(err)
		lasted := r.clock.Since(start.onClock)
		if lasted >= healthyContact {
			r.backoff.inContact(start.onClock)
		}
		if err == nil && lasted < veryShortWatch {
			shortWatches++
		} else {
			shortWatches = 0
		}
		f := failure{step: stepWatchEnd, resourceVersion: r.LastSyncResourceVersion(), shortWatches: shortWatches, internalErrors: internalErrors}
		switch d := r.judge(ctx, f, err); d.action {
		case actionRewatch:
		case actionRewatchAfterBackoff:
			if !r.backOff(ctx, d.onClock) {
				return nil
			}
		default: // stop, or relist after the backoff delay of Run
			return nil
		}
	}
	return nil
}

// judge classifies err, the error of f, asks the retry policy what to do,
// and records and logs what it says: the resource version is unavailable,
// streaming lists are abandoned, the request is made again or the cycle ends.
func (r *Reflector) judge(ctx context.Context, f failure, err error) retryDecision {
	f.kind = classifyError(err)
	if ctx.Err() != nil {
		f.kind = failureStopped
	}
	d := f.decide()
	logger := klog.FromContext(ctx)
	if d.fromMostRecent {
		r.versions.setUnavailable(true)
		// A version the server called invalid, or sent malformed, is
		// worth attention; one that went out of its window is routine.
		level := 4
		if f.kind == failureInvalidResourceVersion {
			level = 2
		}
		logger.V(level).Info("Cannot use the resource version, reading the most recent state instead",
			"reflector", r.name, "type", r.typeDescription, "resourceVersion", f.resourceVersion, "err", err)
	}
	if d.stopStreaming {
		r.useWatchList.Store(false)
		if f.kind == failureStalled {
			logger.Info("Warning: streaming list made no progress before its initial-events-end bookmark; abandoning it and using paginated lists from now on",
				"reflector", r.name, "type", r.typeDescription, "stallTimeout", r.watchListStallTimeout)
		} else {
			logger.V(2).Info("The server ignored the request for a streaming list; using paginated lists from now on",
				"reflector", r.name, "type", r.typeDescription, "reason", err)
		}
	}
	switch d.action {
	case actionRewatchAfterBackoff:
		logger.V(2).Info("Backing off before retrying", "reflector", r.name, "type", r.typeDescription,
			"step", f.step, "reason", f.kind, "err", err)
	case actionRewatch:
		if f.step == stepWatchEnd && f.kind != failureNone {
			logger.V(2).Info("Reopening the watch", "reflector", r.name, "type", r.typeDescription,
				"reason", f.kind, "resourceVersion", f.resourceVersion, "err", err)
		}
	case actionRelist:
		switch {
		case f.step != stepWatchEnd:
			// The error of a failed request goes to the
			// WatchErrorHandler.
		case d.fromMostRecent:
			// Logged above.
		case f.kind == failureExpired:
			// The relist asks for the last resource version first: the
			// server answers with data at least that fresh.
			logger.V(4).Info("Watch closed", "reflector", r.name, "type", r.typeDescription, "err", err)
		default:
			logger.Info("Warning: watch ended with error", "reflector", r.name, "type", r.typeDescription, "err", err)
		}
	}
	return d
}

// watchSession says what handleWatch does with the events of one watch.
type watchSession struct {
	// store receives the accepted events.
	store ReflectorStore
	// initialList makes the watch a streaming list: its events fill store
	// until the initial-events-end bookmark, whose resource version is the
	// list's, and handleWatch returns once that bookmark has been applied,
	// leaving the watch open. Events of a plain watch have their resource
	// versions recorded as versions says, and are reported to the
	// observer.
	initialList bool
	// versions decides which events of a plain watch have their resource
	// versions recorded.
	versions eventVersions
	// stallTimeout, with initialList, bounds the time between ADDED events
	// (the progress of the initial list); zero means no bound.
	stallTimeout time.Duration
	// resyncErrs carries a failed resync, which ends the watch; may be nil.
	resyncErrs <-chan error
	// livenessTimeout, without initialList, ends the watch with
	// errWatchLivenessLost when neither an event nor a bookmark arrives
	// for that long; zero means no bound.
	livenessTimeout time.Duration
}

// handleWatch applies the events of w to s.store until the stream closes, an
// error event arrives, ctx ends (errStopRequested), a resync fails, the watch
// outlives the longest timeout the reflector asks for by watchTimeoutGrace
// (errWatchOutlivedTimeout), or, with s.livenessTimeout, nothing arrived for
// that long (errWatchLivenessLost). A stream that closes within a second of
// start (on the reflector's clock) without an applied event yields a
// [VeryShortWatchError]. w is stopped on return, except after a complete
// initial list.
//
// With s.initialList it returns once the initial-events-end bookmark has been
// applied, with that bookmark's resource version (the list's), and fails
// when the stream stalls (errWatchListStalled), when an event before that
// bookmark shows that the server is not streaming an initial list
// (errInitialEventsNotStreamed), or when the stream closes, later than a
// very short watch, before that bookmark (errWatchListClosedEarly). Until
// then it logs a warning every awaitingEndBookmarkAfter on the reflector's
// clock, as client-go does, when nothing arrived for that long.
//
// The outlived, stall and liveness timers run in real time: they are safety
// timers client-go does not have (see [ReflectorOptions.Clock]).
func (r *Reflector) handleWatch(ctx context.Context, start instant, w watch.Interface, s watchSession) (initialListRV string, _ error) {
	logger := klog.FromContext(ctx)
	stopWatch := true
	defer func() {
		if stopWatch {
			w.Stop()
		}
	}()
	// The server closes a watch when its timeout passes; one that is still
	// open well after that is hanging (a dead connection, or a source that
	// ignores timeouts) and would keep the store stale forever.
	outlived := r.realTime.NewTimer(r.maxWatchTimeout + watchTimeoutGrace - r.realTime.Since(start.real))
	defer outlived.Stop()
	var stalled <-chan time.Time
	var stallTimer clock.Timer
	if s.initialList && s.stallTimeout > 0 {
		stallTimer = r.realTime.NewTimer(s.stallTimeout)
		defer stallTimer.Stop()
		stalled = stallTimer.C()
	}
	var silent <-chan time.Time
	var livenessTimer clock.Timer
	if !s.initialList && s.livenessTimeout > 0 {
		livenessTimer = r.realTime.NewTimer(s.livenessTimeout)
		defer livenessTimer.Stop()
		silent = livenessTimer.C()
	}
	var awaiting *awaitingEndBookmark
	if s.initialList {
		awaiting = newAwaitingEndBookmark(r.clock, start.onClock, r.name, r.typeDescription)
		defer awaiting.stop()
	}

	versions := s.versions // a local copy is cheaper to update per event
	applied := 0
	for {
		var event watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return "", errStopRequested
		case err := <-s.resyncErrs:
			return "", err
		case <-stalled:
			return "", errWatchListStalled
		case <-outlived.C():
			return "", errWatchOutlivedTimeout
		case <-silent:
			return "", errWatchLivenessLost
		case <-awaiting.tick():
			awaiting.warnIfSilent(logger)
			continue
		case event, ok = <-w.ResultChan():
		}
		if !ok {
			break
		}
		if livenessTimer != nil {
			// Anything the server sends, even an event dropped below,
			// shows that the connection is alive.
			livenessTimer.Reset(s.livenessTimeout)
		}
		if event.Type == watch.Error {
			return "", watchErrorEventError(event.Object)
		}
		m, err := r.checkWatchObject(event.Object)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Dropping watch event", "reflector", r.name, "type", r.typeDescription, "eventType", event.Type)
			continue
		}
		rv := m.GetResourceVersion()
		if s.initialList {
			if err := checkInitialEvent(event.Type, m); err != nil {
				return "", err
			}
		}
		switch event.Type {
		case watch.Added:
			err = s.store.Add(event.Object)
			if stallTimer != nil {
				// Only objects of the initial list are progress.
				stallTimer.Reset(s.stallTimeout)
			}
		case watch.Modified:
			err = s.store.Update(event.Object)
		case watch.Deleted:
			// The store gets the deleted object's last state, as sent.
			err = s.store.Delete(event.Object)
		case watch.Bookmark:
			if bs, ok := s.store.(ReflectorBookmarkStore); ok {
				err = bs.Bookmark(rv)
			}
		default:
			utilruntime.HandleErrorWithContext(ctx, nil, "Dropping watch event of unknown type", "reflector", r.name, "type", r.typeDescription, "eventType", event.Type)
			continue
		}
		if err != nil {
			// The event is lost for the store, but its resource version
			// still counts: relisting would not bring it back either.
			utilruntime.HandleErrorWithContext(ctx, err, "Unable to apply watch event to the store", "reflector", r.name, "type", r.typeDescription, "eventType", event.Type)
		}
		applied++
		if !s.initialList {
			r.observer.watchEventReceived(event.Type)
			if versions.admits(event.Type) {
				r.recordWatchEventVersion(rv)
			}
			continue
		}
		if event.Type == watch.Added {
			r.observer.initialEventReceived()
		}
		if event.Type == watch.Bookmark {
			// checkInitialEvent let only the initial-events-end bookmark
			// through.
			stopWatch = false
			logger.V(4).Info("Received the bookmark ending the initial events", "reflector", r.name, "type", r.typeDescription,
				"items", applied, "duration", r.clock.Since(start.onClock))
			return rv, nil
		}
		awaiting.received()
	}
	if applied == 0 && r.clock.Since(start.onClock) < veryShortWatch {
		return "", &VeryShortWatchError{Name: r.name}
	}
	if s.initialList {
		return "", errWatchListClosedEarly
	}
	logger.V(4).Info("Watch closed", "reflector", r.name, "type", r.typeDescription, "items", applied)
	return "", nil
}

// watchErrorEventError returns the error an ERROR watch event carries: the
// API status it holds, or an [apierrors.UnexpectedObjectError] for anything
// else. A nil object, which apierrors.FromObject would dereference, yields a
// plain error.
func watchErrorEventError(obj runtime.Object) error {
	if isNilObject(obj) {
		return fmt.Errorf("watch error event with a nil %T instead of a status", obj)
	}
	return apierrors.FromObject(obj)
}

// checkWatchObject returns the metadata of an acceptable watch event object,
// or why it is not acceptable.
func (r *Reflector) checkWatchObject(obj runtime.Object) (metav1.Object, error) {
	if isNilObject(obj) {
		return nil, fmt.Errorf("event object is a nil %T", obj)
	}
	if r.expectedType != nil {
		if got := reflect.TypeOf(obj); got != r.expectedType {
			return nil, fmt.Errorf("unexpected event object type: expected %v, got %v", r.expectedType, got)
		}
	}
	if r.expectedGVK != nil {
		if got := obj.GetObjectKind().GroupVersionKind(); got != *r.expectedGVK {
			return nil, fmt.Errorf("unexpected event object kind: expected %v, got %v", *r.expectedGVK, got)
		}
	}
	if isUnsupportedTableObject(obj) {
		return nil, fmt.Errorf("unsupported event object kind %v", obj.GetObjectKind().GroupVersionKind())
	}
	return objectMeta(obj)
}

// checkListItem returns the metadata of an acceptable list item, or why it
// is not acceptable. The kind of unstructured items is not checked: list
// items need not carry it.
func (r *Reflector) checkListItem(obj runtime.Object) (metav1.Object, error) {
	if isNilObject(obj) {
		return nil, fmt.Errorf("list item is a nil %T", obj)
	}
	if r.expectedType != nil {
		if got := reflect.TypeOf(obj); got != r.expectedType {
			return nil, fmt.Errorf("unexpected list item type: expected %v, got %v", r.expectedType, got)
		}
	}
	if isUnsupportedTableObject(obj) {
		return nil, fmt.Errorf("unsupported list item kind %v", obj.GetObjectKind().GroupVersionKind())
	}
	return objectMeta(obj)
}

// nameLess orders object names by namespace, then name.
func nameLess(a, b ObjectName) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// keepLastCopies returns objs, whose items have metadata, with every object
// (by namespace and name) once: one listed more than once keeps its first
// place and its last copy, as in a streaming list, so that no store or
// handler sees it twice. It reports how many copies it dropped; objs is
// reused.
func keepLastCopies(objs []any) (_ []any, duplicates int) {
	places := make(map[ObjectName]int, len(objs))
	kept := objs[:0]
	for _, obj := range objs {
		m, err := objectMeta(obj)
		if err != nil {
			// Not an object of a list checkListItem accepted; keep it.
			kept = append(kept, obj)
			continue
		}
		name := MetaObjectToName(m)
		if i, listed := places[name]; listed {
			kept[i] = obj
			duplicates++
			continue
		}
		places[name] = len(kept)
		kept = append(kept, obj)
	}
	return kept, duplicates
}

// extractListItems returns the items of list. Unlike
// [meta.ExtractListWithAlloc] it does not panic on a nil item of a list of
// runtime.Object (the nil is returned, to be rejected by checkListItem), and
// reports any other panic of the extraction as an error.
func extractListItems(list runtime.Object) (items []runtime.Object, err error) {
	if l, ok := list.(*metainternalversion.List); ok {
		return l.Items, nil
	}
	defer func() {
		if p := recover(); p != nil {
			items, err = nil, fmt.Errorf("extract list items: %v", p)
		}
	}()
	return meta.ExtractListWithAlloc(list)
}

// tableKinds are the kinds of server-side table renderings, which carry rows
// instead of objects.
var tableKinds = map[schema.GroupVersionKind]bool{
	metav1beta1.SchemeGroupVersion.WithKind("Table"): true,
	metav1.SchemeGroupVersion.WithKind("Table"):      true,
}

// isUnsupportedTableObject reports an unstructured Table.
func isUnsupportedTableObject(obj runtime.Object) bool {
	u, ok := obj.(*unstructured.Unstructured)
	return ok && u != nil && tableKinds[u.GroupVersionKind()]
}

// isUnsupportedTableList reports an unstructured list of kind Table, and its
// kind.
func isUnsupportedTableList(obj runtime.Object) (schema.GroupVersionKind, bool) {
	u, ok := obj.(*unstructured.UnstructuredList)
	if !ok || u == nil {
		return schema.GroupVersionKind{}, false
	}
	gvk := u.GroupVersionKind()
	return gvk, tableKinds[gvk]
}
