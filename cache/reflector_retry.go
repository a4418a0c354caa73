package cache

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// The reflector's retry policy, in one place: every failure of a list, a
// streaming list, a watch request or an open watch is classified once
// ([classifyError]) into a failureKind, and [failure.decide] turns the kind
// and the step that failed into a retryDecision, which the step acts on. The
// run metrics label relists and watch restarts from the same kinds.

// reflectorStep is a request of the reflector whose outcome the retry policy
// judges.
type reflectorStep int

const (
	// stepList is a paginated list.
	stepList reflectorStep = iota
	// stepStreamingList is a streaming list, up to its initial-events-end
	// bookmark.
	stepStreamingList
	// stepWatchStart is a watch request.
	stepWatchStart
	// stepWatchEnd is an open watch that ended.
	stepWatchEnd
)

func (s reflectorStep) String() string {
	switch s {
	case stepList:
		return "list"
	case stepStreamingList:
		return "streaming list"
	case stepWatchStart:
		return "watch start"
	case stepWatchEnd:
		return "watch end"
	}
	return "unknown step"
}

// failureKind is what went wrong, as far as the reflector cares.
type failureKind int

const (
	// failureNone: no error; an open watch closed normally.
	failureNone failureKind = iota
	// failureStopped: the reflector's context ended.
	failureStopped
	// failureLivenessLost: a watch received neither an event nor a bookmark
	// within its liveness timeout (errWatchLivenessLost).
	failureLivenessLost
	// failureOutlivedTimeout: a watch stayed open well past the timeout the
	// reflector asked for, and the reflector closed it
	// (errWatchOutlivedTimeout).
	failureOutlivedTimeout
	// failureStalled: a streaming list made no progress for its stall
	// timeout (errWatchListStalled).
	failureStalled
	// failureNotStreamed: the server ignored the request for a streaming
	// list (errInitialEventsNotStreamed).
	failureNotStreamed
	// failureClosedEarly: a streaming list's stream closed before the
	// initial-events-end bookmark (errWatchListClosedEarly).
	failureClosedEarly
	// failureExpired: the resource version is too old for the server (410
	// Expired or Gone).
	failureExpired
	// failureInvalidResourceVersion: the server refused the resource
	// version as invalid, or sent a malformed one (see
	// isInvalidResourceVersion).
	failureInvalidResourceVersion
	// failureTooLargeResourceVersion: the server has not reached the
	// resource version.
	failureTooLargeResourceVersion
	// failureThrottled: the server throttled the request (429).
	failureThrottled
	// failureConnectionRefused: the connection to the server was refused.
	failureConnectionRefused
	// failureInternal: an internal server error (500).
	failureInternal
	// failureOther: anything else, including a very short watch
	// ([VeryShortWatchError]), a failed resync and a ListerWatcher that
	// panicked.
	failureOther
)

var failureKindNames = [...]string{
	failureNone:                    "none",
	failureStopped:                 "stopped",
	failureLivenessLost:            "liveness lost",
	failureOutlivedTimeout:         "outlived timeout",
	failureStalled:                 "stalled",
	failureNotStreamed:             "not streamed",
	failureClosedEarly:             "closed early",
	failureExpired:                 "expired",
	failureInvalidResourceVersion:  "invalid resource version",
	failureTooLargeResourceVersion: "too large resource version",
	failureThrottled:               "throttled",
	failureConnectionRefused:       "connection refused",
	failureInternal:                "internal error",
	failureOther:                   "other",
}

func (k failureKind) String() string {
	if k >= 0 && int(k) < len(failureKindNames) {
		return failureKindNames[k]
	}
	return "unknown failure"
}

// classifyError returns the kind of err. The first matching kind wins, in
// the order the kinds are declared.
func classifyError(err error) failureKind {
	switch {
	case err == nil:
		return failureNone
	case errors.Is(err, errStopRequested):
		return failureStopped
	case errors.Is(err, errWatchLivenessLost):
		return failureLivenessLost
	case errors.Is(err, errWatchOutlivedTimeout):
		return failureOutlivedTimeout
	case errors.Is(err, errWatchListStalled):
		return failureStalled
	case errors.Is(err, errInitialEventsNotStreamed):
		return failureNotStreamed
	case errors.Is(err, errWatchListClosedEarly):
		return failureClosedEarly
	case isExpiredError(err):
		return failureExpired
	case isInvalidResourceVersion(err):
		return failureInvalidResourceVersion
	case isTooLargeResourceVersionError(err):
		return failureTooLargeResourceVersion
	case apierrors.IsTooManyRequests(err):
		return failureThrottled
	case utilnet.IsConnectionRefused(err):
		return failureConnectionRefused
	case apierrors.IsInternalError(err):
		return failureInternal
	default:
		return failureOther
	}
}

// relistReason labels a relist that follows a cycle ended by a failure of
// kind k.
func (k failureKind) relistReason() RelistReason {
	switch k {
	case failureExpired:
		return RelistExpired
	case failureTooLargeResourceVersion:
		return RelistTooLargeResourceVersion
	default:
		return RelistError
	}
}

// watchRestartCause labels a watch that ended with a failure of kind k.
func (k failureKind) watchRestartCause() WatchRestartCause {
	switch k {
	case failureNone:
		return WatchRestartClosed
	case failureLivenessLost:
		return WatchRestartLiveness
	case failureOutlivedTimeout:
		return WatchRestartTimeout
	case failureExpired:
		return WatchRestartExpired
	case failureThrottled:
		return WatchRestartThrottled
	default:
		return WatchRestartError
	}
}

// retryAction is what the reflector does after a failure.
type retryAction int

const (
	// actionStop: the reflector's context ended; make no other request.
	actionStop retryAction = iota
	// actionRelist: end the ListAndWatch cycle; Run lists again after a
	// backoff delay. The error of a failed list or watch request is
	// returned (and reaches the WatchErrorHandler); that of a watch that
	// ended is not.
	actionRelist
	// actionRelistNow: list in the same cycle, at once or, with
	// backOffFirst, after a backoff delay. After a failed list that is its
	// one retry (a second failure ends the cycle); after a failed streaming
	// list, a paginated list instead; after a watch resuming from a
	// snapshot, a list (streaming, then paginated).
	actionRelistNow
	// actionRewatch: open the watch, or the streaming list, again at once
	// from the last resource version.
	actionRewatch
	// actionRewatchAfterBackoff: the same after a backoff delay.
	actionRewatchAfterBackoff
)

func (a retryAction) String() string {
	switch a {
	case actionStop:
		return "stop"
	case actionRelist:
		return "relist"
	case actionRelistNow:
		return "relist now"
	case actionRewatch:
		return "rewatch"
	case actionRewatchAfterBackoff:
		return "rewatch after backoff"
	}
	return "unknown action"
}

// retryDecision is the retry policy's answer to a failure.
type retryDecision struct {
	action retryAction
	// fromMostRecent: the server cannot serve the resource version the
	// reflector stands on (too old, too new or invalid), so the next list
	// or streaming list asks for the most recent state (resource version
	// "", a quorum read) instead.
	fromMostRecent bool
	// stopStreaming: the server cannot stream lists (it ignored the
	// request, or a stream stalled); lists are paginated from now on.
	stopStreaming bool
	// backOffFirst: actionRelistNow waits a backoff delay first. The last
	// streaming-list attempt that would have been retried after a delay
	// waits it before the paginated list, so that a run of failures costs
	// one delay per attempt, as in client-go (which lists after a failed
	// streaming list and ends the cycle when its watch then fails).
	backOffFirst bool
	// onClock: the backoff delay (of actionRewatchAfterBackoff, or before
	// actionRelistNow with backOffFirst) passes on the reflector's clock,
	// as client-go's retries of throttled and refused requests do. Other
	// backoff delays, which client-go waits in real time or does not have,
	// pass in real time (see [ReflectorOptions.Clock]).
	onClock bool
}

// maxWatchListAttempts is how many requests one streaming list makes
// before the reflector gives up on it and lists with pagination in the
// same cycle. The next cycle tries streaming again.
const maxWatchListAttempts = 3

// shortWatchesBeforeBackoff is how many watches in a row may close normally
// within veryShortWatch of their request before the next one waits a backoff
// delay.
const shortWatchesBeforeBackoff = 2

// failure is what the retry policy judges: the step that failed, how, and
// the little state the answer depends on.
type failure struct {
	step reflectorStep
	kind failureKind
	// resourceVersion is the version the failed request asked for; for a
	// watch that ended, the last one the reflector recorded.
	resourceVersion string
	// attempt numbers the streaming-list requests of the cycle, from 1.
	attempt int
	// shortWatches counts the watches in a row, this one included, that
	// closed normally less than veryShortWatch after they were requested.
	shortWatches int
	// resumed: the request resumed from the resource version of a
	// snapshot (a watch of a cycle that resumes, see reflector_resume.go),
	// which may well have gone out of the server's window while the
	// process was down.
	resumed bool
	// internalErrors is the window in which watches that end with an
	// internal error are reopened at once (MaxInternalErrorRetryDuration);
	// nil means closed. It is asked only about such watches.
	internalErrors RetryWithDeadline
}

// decide returns what the reflector does after f. A context that ended stops
// every step. Then, per step:
//
//   - list: a resource version the server cannot serve (expired, too large,
//     or invalid unless the list asked for "") is listed again at once from
//     the most recent state; anything else ends the cycle.
//   - streaming list: a stall or a server that does not stream lists
//     abandons streaming lists for good and lists at once; a resource
//     version the server cannot serve is streamed again from the most recent
//     state, at once, or after a backoff delay when the stream already asked
//     for it ("") (an invalid version the server was asked for as "" lists
//     instead); throttled or refused requests, streams closed before their
//     bookmark and streams that outlived their timeout are streamed again
//     after a backoff delay; anything else lists at once. The last of
//     maxWatchListAttempts attempts lists instead of streaming again, after
//     the delay the retry would have waited, if any.
//   - watch start: throttled or refused requests are made again after a
//     backoff delay; anything else ends the cycle, from the most recent
//     state after a refusal of a version other than "".
//   - watch end: a normal close is reopened at once, or after a backoff
//     delay when it is the shortWatchesBeforeBackoff-th watch in a row to
//     close that soon; a lost liveness or an outlived timeout are reopened
//     at once, a throttled watch after a backoff delay, an internal error at
//     once while the internal-error window is open; anything else ends the
//     cycle, from the most recent state after a refusal of the version.
//   - watch start and end, for a watch resuming from a snapshot's resource
//     version: a version the server cannot serve lists at once from the
//     most recent state (see resumedVersionUnavailable).
//
// The backoff delays of throttled and refused requests pass on the
// reflector's clock (onClock), the others in real time.
func (f failure) decide() retryDecision {
	if f.kind == failureStopped {
		return retryDecision{action: actionStop}
	}
	switch f.step {
	case stepList:
		return f.decideList()
	case stepStreamingList:
		return f.decideStreamingList()
	case stepWatchStart:
		return f.decideWatchStart()
	default:
		return f.decideWatchEnd()
	}
}

func (f failure) decideList() retryDecision {
	switch f.kind {
	case failureExpired, failureTooLargeResourceVersion:
		return retryDecision{action: actionRelistNow, fromMostRecent: true}
	case failureInvalidResourceVersion:
		if f.resourceVersion != "" {
			return retryDecision{action: actionRelistNow, fromMostRecent: true}
		}
	}
	return retryDecision{action: actionRelist}
}

func (f failure) decideStreamingList() retryDecision {
	var d retryDecision
	switch f.kind {
	case failureStalled, failureNotStreamed:
		return retryDecision{action: actionRelistNow, stopStreaming: true}
	case failureExpired, failureTooLargeResourceVersion:
		d = retryDecision{action: actionRewatch, fromMostRecent: true}
		if f.resourceVersion == "" {
			d.action = actionRewatchAfterBackoff
		}
	case failureInvalidResourceVersion:
		if f.resourceVersion == "" {
			return retryDecision{action: actionRelistNow}
		}
		d = retryDecision{action: actionRewatch, fromMostRecent: true}
	case failureThrottled, failureConnectionRefused:
		d = retryDecision{action: actionRewatchAfterBackoff, onClock: true}
	case failureClosedEarly, failureOutlivedTimeout:
		d = retryDecision{action: actionRewatchAfterBackoff}
	default:
		return retryDecision{action: actionRelistNow}
	}
	if f.attempt >= maxWatchListAttempts {
		return retryDecision{
			action:         actionRelistNow,
			fromMostRecent: d.fromMostRecent,
			backOffFirst:   d.action == actionRewatchAfterBackoff,
			onClock:        d.onClock,
		}
	}
	return d
}

func (f failure) decideWatchStart() retryDecision {
	if f.resumedVersionUnavailable() {
		return retryDecision{action: actionRelistNow, fromMostRecent: true}
	}
	switch f.kind {
	case failureThrottled, failureConnectionRefused:
		return retryDecision{action: actionRewatchAfterBackoff, onClock: true}
	case failureInvalidResourceVersion:
		return retryDecision{action: actionRelist, fromMostRecent: f.resourceVersion != ""}
	}
	return retryDecision{action: actionRelist}
}

func (f failure) decideWatchEnd() retryDecision {
	if f.resumedVersionUnavailable() {
		return retryDecision{action: actionRelistNow, fromMostRecent: true}
	}
	switch f.kind {
	case failureNone:
		if f.shortWatches >= shortWatchesBeforeBackoff {
			return retryDecision{action: actionRewatchAfterBackoff}
		}
		return retryDecision{action: actionRewatch}
	case failureLivenessLost, failureOutlivedTimeout:
		return retryDecision{action: actionRewatch}
	case failureThrottled:
		return retryDecision{action: actionRewatchAfterBackoff, onClock: true}
	case failureInternal:
		if f.internalErrors != nil && f.internalErrors.ShouldRetry() {
			return retryDecision{action: actionRewatch}
		}
	case failureInvalidResourceVersion:
		return retryDecision{action: actionRelist, fromMostRecent: true}
	}
	return retryDecision{action: actionRelist}
}

// resumedVersionUnavailable reports whether f is a request resuming from a
// snapshot's resource version that the server cannot serve (too old, too
// new or invalid): the reflector lists at once, from the most recent state,
// instead of after the backoff delay of a relist, since a snapshot's
// version going out of the server's window is expected, not a failure.
func (f failure) resumedVersionUnavailable() bool {
	switch f.kind {
	case failureExpired, failureTooLargeResourceVersion, failureInvalidResourceVersion:
		return f.resumed
	}
	return false
}
