package cache

import (
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixedWindow is a RetryWithDeadline whose window is open or not.
type fixedWindow bool

func (fixedWindow) After(error)         {}
func (w fixedWindow) ShouldRetry() bool { return bool(w) }

// TestReflectorRetryPolicy is the reflector's retry policy in one table: for
// every kind of failure, the errors classified as that kind, the run-metric
// labels it gives, and what each step does after it. A step where the answer
// depends on more than the kind has a column per case.
func TestReflectorRetryPolicy(t *testing.T) {
	var (
		stop      = retryDecision{action: actionStop}
		relist    = retryDecision{action: actionRelist}
		relistNow = retryDecision{action: actionRelistNow}
		// relistLater lists after the delay a retry would have waited.
		relistLater    = retryDecision{action: actionRelistNow, backOffFirst: true}
		relistLaterClk = retryDecision{action: actionRelistNow, backOffFirst: true, onClock: true}
		rewatch        = retryDecision{action: actionRewatch}
		backoff        = retryDecision{action: actionRewatchAfterBackoff}
		backoffClk     = retryDecision{action: actionRewatchAfterBackoff, onClock: true}
		// fresh makes d read the most recent state next.
		fresh = func(d retryDecision) retryDecision { d.fromMostRecent = true; return d }
		// noStreaming lists at once and abandons streaming lists.
		noStreaming = retryDecision{action: actionRelistNow, stopStreaming: true}
	)
	// The steps, in the order of the decisions of a row.
	steps := []struct {
		name string
		f    failure
	}{
		{"list at a version", failure{step: stepList, resourceVersion: "10"}},
		{`list at ""`, failure{step: stepList}},
		{"streaming list at a version", failure{step: stepStreamingList, resourceVersion: "10", attempt: 1}},
		{`streaming list at ""`, failure{step: stepStreamingList, attempt: 1}},
		{"last streaming list attempt", failure{step: stepStreamingList, resourceVersion: "10", attempt: maxWatchListAttempts}},
		{"watch start at a version", failure{step: stepWatchStart, resourceVersion: "10"}},
		{`watch start at ""`, failure{step: stepWatchStart}},
		{"watch end, window open", failure{step: stepWatchEnd, resourceVersion: "10", shortWatches: 1, internalErrors: fixedWindow(true)}},
		{"watch end, 2nd short, window closed", failure{step: stepWatchEnd, resourceVersion: "10", shortWatches: 2, internalErrors: fixedWindow(false)}},
	}
	for _, tc := range []struct {
		kind      failureKind
		errs      []error
		relist    RelistReason
		restart   WatchRestartCause
		decisions []retryDecision // one per step
	}{{
		kind: failureNone, errs: []error{nil},
		relist: RelistError, restart: WatchRestartClosed,
		decisions: []retryDecision{relist, relist, relistNow, relistNow, relistNow, relist, relist, rewatch, backoff},
	}, {
		kind: failureStopped, errs: []error{errStopRequested, fmt.Errorf("stream: %w", errStopRequested)},
		relist: RelistError, restart: WatchRestartError,
		decisions: []retryDecision{stop, stop, stop, stop, stop, stop, stop, stop, stop},
	}, {
		kind: failureLivenessLost, errs: []error{errWatchLivenessLost},
		relist: RelistError, restart: WatchRestartLiveness,
		decisions: []retryDecision{relist, relist, relistNow, relistNow, relistNow, relist, relist, rewatch, rewatch},
	}, {
		kind: failureOutlivedTimeout, errs: []error{errWatchOutlivedTimeout},
		relist: RelistError, restart: WatchRestartTimeout,
		decisions: []retryDecision{relist, relist, backoff, backoff, relistLater, relist, relist, rewatch, rewatch},
	}, {
		kind: failureStalled, errs: []error{errWatchListStalled},
		relist: RelistError, restart: WatchRestartError,
		decisions: []retryDecision{relist, relist, noStreaming, noStreaming, noStreaming, relist, relist, relist, relist},
	}, {
		kind: failureNotStreamed, errs: []error{fmt.Errorf("%w: MODIFIED event", errInitialEventsNotStreamed)},
		relist: RelistError, restart: WatchRestartError,
		decisions: []retryDecision{relist, relist, noStreaming, noStreaming, noStreaming, relist, relist, relist, relist},
	}, {
		kind: failureClosedEarly, errs: []error{errWatchListClosedEarly},
		relist: RelistError, restart: WatchRestartError,
		decisions: []retryDecision{relist, relist, backoff, backoff, relistLater, relist, relist, relist, relist},
	}, {
		kind: failureExpired, errs: []error{errExpired, errGone, fmt.Errorf("list pods: %w", errExpired)},
		relist: RelistExpired, restart: WatchRestartExpired,
		decisions: []retryDecision{
			fresh(relistNow), fresh(relistNow), fresh(rewatch), fresh(backoff), fresh(relistNow),
			relist, relist, relist, relist,
		},
	}, {
		kind:   failureInvalidResourceVersion,
		errs:   []error{errListInvalidRV, errWatchInvalidRV, errInvalidRV, fmt.Errorf("the list: %w", errMalformedResourceVersion)},
		relist: RelistError, restart: WatchRestartError,
		decisions: []retryDecision{
			fresh(relistNow), relist, fresh(rewatch), relistNow, fresh(relistNow),
			fresh(relist), relist, fresh(relist), fresh(relist),
		},
	}, {
		kind: failureTooLargeResourceVersion, errs: []error{errRVTooLarge, errLegacyTooBig},
		relist: RelistTooLargeResourceVersion, restart: WatchRestartError,
		decisions: []retryDecision{
			fresh(relistNow), fresh(relistNow), fresh(rewatch), fresh(backoff), fresh(relistNow),
			relist, relist, relist, relist,
		},
	}, {
		kind: failureThrottled, errs: []error{errTooMany},
		relist: RelistError, restart: WatchRestartThrottled,
		decisions: []retryDecision{relist, relist, backoffClk, backoffClk, relistLaterClk, backoffClk, backoffClk, backoffClk, backoffClk},
	}, {
		kind: failureConnectionRefused, errs: []error{errConnRefused},
		relist: RelistError, restart: WatchRestartError,
		decisions: []retryDecision{relist, relist, backoffClk, backoffClk, relistLaterClk, backoffClk, backoffClk, relist, relist},
	}, {
		kind: failureInternal, errs: []error{errInternal},
		relist: RelistError, restart: WatchRestartError,
		decisions: []retryDecision{relist, relist, relistNow, relistNow, relistNow, relist, relist, rewatch, relist},
	}, {
		kind:   failureOther,
		errs:   []error{errForbidden, &VeryShortWatchError{Name: "r"}, io.ErrUnexpectedEOF, fmt.Errorf("resync: %w", io.EOF)},
		relist: RelistError, restart: WatchRestartError,
		decisions: []retryDecision{relist, relist, relistNow, relistNow, relistNow, relist, relist, relist, relist},
	}} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			for _, err := range tc.errs {
				if got := classifyError(err); got != tc.kind {
					t.Errorf("classifyError(%v) = %v, want %v", err, got, tc.kind)
				}
			}
			if got := tc.kind.relistReason(); got != tc.relist {
				t.Errorf("relist reason %q, want %q", got, tc.relist)
			}
			if got := tc.kind.watchRestartCause(); got != tc.restart {
				t.Errorf("watch restart cause %q, want %q", got, tc.restart)
			}
			if len(tc.decisions) != len(steps) {
				t.Fatalf("%d decisions for %d steps", len(tc.decisions), len(steps))
			}
			for i, s := range steps {
				f := s.f
				f.kind = tc.kind
				if diff := cmp.Diff(tc.decisions[i], f.decide(), cmp.AllowUnexported(retryDecision{})); diff != "" {
					t.Errorf("%s: decision (-want +got):\n%s", s.name, diff)
				}
			}
		})
	}
}
