package cache

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResumedWatchDecisions checks the retry policy for watches resuming
// from a snapshot's resource version: a version the server cannot serve
// lists at once from the most recent state; everything else is decided as
// for any watch.
func TestResumedWatchDecisions(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    failure
		want retryDecision
	}{
		{"start expired", failure{step: stepWatchStart, kind: failureExpired, resumed: true}, retryDecision{action: actionRelistNow, fromMostRecent: true}},
		{"start too large", failure{step: stepWatchStart, kind: failureTooLargeResourceVersion, resumed: true}, retryDecision{action: actionRelistNow, fromMostRecent: true}},
		{"start invalid", failure{step: stepWatchStart, kind: failureInvalidResourceVersion, resumed: true}, retryDecision{action: actionRelistNow, fromMostRecent: true}},
		{"end expired", failure{step: stepWatchEnd, kind: failureExpired, resumed: true}, retryDecision{action: actionRelistNow, fromMostRecent: true}},
		{"end too large", failure{step: stepWatchEnd, kind: failureTooLargeResourceVersion, resumed: true}, retryDecision{action: actionRelistNow, fromMostRecent: true}},
		{"start throttled", failure{step: stepWatchStart, kind: failureThrottled, resumed: true}, retryDecision{action: actionRewatchAfterBackoff, onClock: true}},
		{"start other", failure{step: stepWatchStart, kind: failureOther, resumed: true}, retryDecision{action: actionRelist}},
		{"end closed", failure{step: stepWatchEnd, kind: failureNone, resumed: true}, retryDecision{action: actionRewatch}},
		{"end expired, not resumed", failure{step: stepWatchEnd, kind: failureExpired}, retryDecision{action: actionRelist}},
		{"start expired, not resumed", failure{step: stepWatchStart, kind: failureExpired}, retryDecision{action: actionRelist}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.f.decide(), cmp.AllowUnexported(retryDecision{})); diff != "" {
				t.Errorf("decide (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResumeDeliveredOnOpenWatch checks that a reflector resuming from a
// snapshot hands it to the store only once the watch from its version is
// open: a watch that cannot be opened keeps the snapshot pending for the
// next cycle, and a refused version drops it for a list.
func TestResumeDeliveredOnOpenWatch(t *testing.T) {
	srv := newTestServer(t)
	a := create(t, srv, "a")
	fail := errors.New("connection reset")
	srv.FailNextWatches(1, fail)
	store := NewStore(MetaNamespaceKeyFunc)
	r := NewReflectorWithOptions(srv, pom("", ""), store, ReflectorOptions{})
	r.snapshots = fixedResume{objs: []any{a}, rv: a.ResourceVersion}
	ctx := testContext(t)
	if err := r.ListAndWatchWithContext(ctx); err == nil {
		t.Fatal("first cycle: no error, want the watch's")
	}
	if r.resume == nil || len(store.List()) != 0 {
		t.Fatalf("after a failed watch: resume %v, store %v; want pending, empty", r.resume, storeContents(store))
	}
}

// fixedResume resumes from objs at rv.
type fixedResume struct {
	noSnapshots
	objs []any
	rv   string
}

func (f fixedResume) resumePoint(ctx context.Context) ([]any, string, bool) {
	return f.objs, f.rv, true
}
