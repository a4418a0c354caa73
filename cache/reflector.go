package cache

import (
	"context"
	"io"
	"math/rand/v2"
	"sync/atomic"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/informer-go/informer/wait"
)

const (
	// defaultMinWatchTimeout is the shortest watch timeout a reflector asks
	// for; each watch asks for a random timeout in [min, 2*min] so that
	// clients started together do not reconnect together.
	defaultMinWatchTimeout = 5 * time.Minute
	// defaultWatchListStallTimeout is how long a streaming list may go
	// without an event before the reflector gives up on it.
	defaultWatchListStallTimeout = time.Minute
)

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
//     or DELETED event, or a bookmark that does not carry the annotation,
//     before the end bookmark (client-go waits forever for such a server
//     too). After either the reflector uses paginated lists for good. A
//     bookmark annotated with another value than "true" is not the end and
//     is passed over, as on client-go.
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
	// expected says which objects reach the store.
	expected expectedObjects

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

	// observer is told about every list and watch outcome; never nil.
	observer reflectorObserver
	// cycleFailure is the last failure of the current ListAndWatch cycle
	// reported to the observer: the one that ended the cycle, when a relist
	// follows. Only the goroutine running ListAndWatch uses it.
	cycleFailure error
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

	// snapshots is where the reflector resumes from and whom it lets take
	// snapshots (see reflector_resume.go); never nil. Set before Run.
	snapshots reflectorSnapshots
	// resumeAsked records that snapshots was asked for a resume point;
	// resume is that point until it is handed to the store or refused by
	// the server; resumedVersion is its resource version while a cycle
	// watches from it. Only the goroutine running ListAndWatch uses them.
	resumeAsked    bool
	resume         *resumePoint
	resumedVersion string

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
	return newReflector(lw, expectedType, store, options, noopObserver{})
}

// newReflector is [NewReflectorWithOptions] with an observer, which follows
// the reflector's run (see reflectorObserver).
func newReflector(lw ListerWatcher, expectedType any, store ReflectorStore, options ReflectorOptions, observer reflectorObserver) *Reflector {
	r := &Reflector{
		name:              options.Name,
		typeDescription:   options.TypeDescription,
		store:             store,
		clock:             options.Clock,
		resyncPeriod:      options.ResyncPeriod,
		minWatchTimeout:   defaultMinWatchTimeout,
		watchErrorHandler: DefaultWatchErrorHandler,
		observer:          observer,
		snapshots:         noSnapshots{},
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

	r.expected = newExpectedObjects(expectedType)
	if r.typeDescription == "" {
		r.typeDescription = r.expected.description()
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
