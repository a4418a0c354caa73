package cache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// ErrInformerStopped is the error of a wait for an informer that stopped,
// because the context it was run with ended, before its cache synced:
// [WaitForSync] wraps it in a [SyncError], [InformerFactory.WaitForCacheSync]
// reports it for such an informer.
var ErrInformerStopped = errors.New("informer stopped before its cache synced")

// WaitForSyncOptions configures [WaitForSync]. The zero value waits until
// every informer synced or the context ends.
type WaitForSyncOptions struct {
	// FailFast ends the wait as soon as an informer fails with a permanent
	// error (see IsPermanent), returning a [SyncError] with that error,
	// instead of waiting while the informer retries. The informer itself
	// keeps retrying, with backoff, until its context ends: if the cause
	// goes away (an RBAC rule is added, a CRD installed) it still syncs.
	FailFast bool

	// IsPermanent says which errors FailFast stops at. Nil means
	// [IsPermanentSyncError]: 401 Unauthorized, 403 Forbidden and 404 Not
	// Found.
	IsPermanent func(error) bool
}

// IsPermanentSyncError reports the errors that retrying is not expected to
// cure without outside help: 401 Unauthorized, 403 Forbidden and 404 Not
// Found (the resource does not exist, as when a CRD is not installed). It is
// the default of [WaitForSyncOptions.IsPermanent].
func IsPermanentSyncError(err error) bool {
	return apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) || apierrors.IsNotFound(err)
}

// SyncError is the error of [WaitForSync] for an informer that did not sync.
// It names the informer and carries its status, with the last list or watch
// error, when the wait gave up. errors.Unwrap returns that error (or, without
// one, why the wait ended), so that checks such as apierrors.IsForbidden see
// it; errors.Is also matches why the wait ended, such as
// context.DeadlineExceeded.
type SyncError struct {
	// Status is the informer's status when the wait gave up. For an
	// informer that reports none ([SyncStatusReporter]), only Type is set,
	// to the name of its DoneChecker.
	Status SyncStatus
	// WaitErr is why the wait ended: the cause of the context's end,
	// [ErrInformerStopped] when the informer stopped first, or nil when
	// FailFast stopped at Status.LastError.
	WaitErr error
}

// Error names the informer, says what it was doing and why the wait ended.
func (e *SyncError) Error() string {
	var b strings.Builder
	b.WriteString("informer of ")
	b.WriteString(e.Status.Type)
	if e.Status.Reflector != "" {
		fmt.Fprintf(&b, " (reflector %s)", e.Status.Reflector)
	}
	b.WriteString(" not synced")
	if e.Status.Phase != "" {
		fmt.Fprintf(&b, ": phase %s, %d attempts", e.Status.Phase, e.Status.Attempts)
	}
	if !e.Status.FailingSince.IsZero() {
		fmt.Fprintf(&b, ", failing since %s", e.Status.FailingSince.Format(time.RFC3339))
	}
	if e.WaitErr != nil {
		fmt.Fprintf(&b, ": %v", e.WaitErr)
	}
	if e.Status.LastError != nil {
		if e.WaitErr != nil {
			b.WriteString(", last error")
		}
		fmt.Fprintf(&b, ": %v", e.Status.LastError)
	}
	return b.String()
}

// Unwrap returns the informer's last list or watch error, or WaitErr when
// there was none.
func (e *SyncError) Unwrap() error {
	if e.Status.LastError != nil {
		return e.Status.LastError
	}
	return e.WaitErr
}

// Is reports whether target is, or wraps into, WaitErr, so that
// errors.Is(err, context.DeadlineExceeded) works beside the unwrapped last
// error.
func (e *SyncError) Is(target error) bool {
	return e.WaitErr != nil && errors.Is(e.WaitErr, target)
}

// WaitForSync waits until every informer has synced and returns nil, or
// returns an error once ctx ends first, or, with options.FailFast, once an
// informer fails with a permanent error. It waits on channels, without
// polling, and every goroutine it starts has returned when it returns. It is
// not part of client-go's API: [WaitForCacheSync] and [WaitFor] only say
// whether the caches synced.
//
// For one informer that did not sync the error is a [*SyncError] naming
// the informer (its object type and reflector), its phase and attempts, and
// wrapping its last list or watch error: apierrors.IsForbidden(err) tells an
// informer refused by RBAC from one that is merely slow. For several, it
// joins their SyncErrors (errors.Join), in the order of informers; when
// FailFast ends the wait, only the informers that failed for good are
// reported, not those whose wait it cut short. An informer that stopped
// before syncing is reported with
// [ErrInformerStopped]. Informers of other packages are waited for through
// their HasSyncedChecker and reported without a status; a nil informer is
// reported at once as an error.
func WaitForSync(ctx context.Context, options WaitForSyncOptions, informers ...SharedInformer) error {
	isPermanent := options.IsPermanent
	if isPermanent == nil {
		isPermanent = IsPermanentSyncError
	}
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()

	errs := make([]error, len(informers))
	var wg sync.WaitGroup
	for i, informer := range informers {
		if informer == nil || isNilObject(informer) {
			errs[i] = errors.New("wait for sync: informer is nil")
			continue
		}
		// Each goroutine returns once its informer synced, ctx ended
		// or, with FailFast, another informer failed for good.
		wg.Go(func() {
			err := waitForOneSync(waitCtx, informer, options.FailFast, isPermanent)
			se, ok := err.(*SyncError)
			switch {
			case ok && se.WaitErr == nil:
				cancel() // failed fast: the others need not wait
			case ok && ctx.Err() == nil:
				return // cut short by another's failure: not at fault
			}
			errs[i] = err
		})
	}
	wg.Wait()
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	switch len(failed) {
	case 0:
		return nil
	case 1:
		return failed[0]
	default:
		return errors.Join(failed...)
	}
}

// waitForOneSync waits for one informer; see WaitForSync.
func waitForOneSync(ctx context.Context, informer SharedInformer, failFast bool, isPermanent func(error) bool) error {
	checker := informer.HasSyncedChecker()
	source, ok := informer.(syncStatusSource)
	if !ok {
		select {
		case <-checker.Done():
			return nil
		case <-ctx.Done():
		}
		if IsDone(checker) {
			return nil
		}
		return &SyncError{Status: SyncStatus{Type: checker.Name()}, WaitErr: context.Cause(ctx)}
	}
	for {
		status, changed := source.syncStatusChanges()
		switch {
		case status.Synced || IsDone(checker):
			return nil
		case status.Phase == SyncPhaseStopped:
			return &SyncError{Status: status, WaitErr: ErrInformerStopped}
		case failFast && !status.FailingSince.IsZero() && status.LastError != nil && isPermanent(status.LastError):
			return &SyncError{Status: status}
		}
		select {
		case <-checker.Done():
			return nil
		case <-changed:
		case <-ctx.Done():
			if IsDone(checker) {
				return nil
			}
			status, _ = source.syncStatusChanges()
			return &SyncError{Status: status, WaitErr: context.Cause(ctx)}
		}
	}
}
