package cache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// InformerSynced reports whether an informer, or a handler registration, has
// synced. It is typically the HasSynced method of a [SharedInformer] or of a
// [ResourceEventHandlerRegistration].
type InformerSynced func() bool

// syncedPollPeriod is how often WaitForCacheSync polls.
const syncedPollPeriod = 100 * time.Millisecond

// WaitForCacheSync waits until every cacheSyncs function reports true, and
// returns true then (at once when there are none). It checks immediately and
// then every 100ms. It returns false if stopCh is closed first. A nil
// function never reports true; it is reported as an error.
//
// Prefer [WaitFor], which waits on channels instead of polling.
func WaitForCacheSync(stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	return waitForCacheSync(clock.RealClock{}, stopCh, cacheSyncs)
}

// waitForCacheSync is WaitForCacheSync with the clock that times the polls.
func waitForCacheSync(clk clock.WithTicker, stopCh <-chan struct{}, cacheSyncs []InformerSynced) bool {
	if slices.ContainsFunc(cacheSyncs, func(f InformerSynced) bool { return f == nil }) {
		utilruntime.HandleError(errors.New("wait for cache sync: an InformerSynced function is nil; it will never report synced"))
	}
	synced := func() bool {
		for _, f := range cacheSyncs {
			if f == nil || !f() {
				return false
			}
		}
		return true
	}
	if synced() {
		return true
	}
	ticker := clk.NewTicker(syncedPollPeriod)
	defer ticker.Stop()
	for {
		select {
		case <-stopCh:
			return false
		case <-ticker.C():
			if synced() {
				return true
			}
		}
	}
}

// WaitForNamedCacheSync is [WaitForCacheSync] with log messages naming the
// waiting controller: "Waiting for caches to sync" before, "Caches are
// synced" on success, and an error "Unable to sync caches" when stopCh was
// closed first.
//
// Contextual logging: prefer WaitForNamedCacheSyncWithContext.
func WaitForNamedCacheSync(controllerName string, stopCh <-chan struct{}, cacheSyncs ...InformerSynced) bool {
	logger := klog.Background()
	logger.Info("Waiting for caches to sync", "controller", controllerName)
	if !WaitForCacheSync(stopCh, cacheSyncs...) {
		utilruntime.HandleErrorWithContext(context.Background(), nil, "Unable to sync caches", "controller", controllerName)
		return false
	}
	logger.Info("Caches are synced", "controller", controllerName)
	return true
}

// WaitForNamedCacheSyncWithContext is [WaitForNamedCacheSync] stopping when
// ctx ends and logging with ctx's logger, which is expected to name the
// controller.
func WaitForNamedCacheSyncWithContext(ctx context.Context, cacheSyncs ...InformerSynced) bool {
	logger := klog.FromContext(ctx)
	logger.Info("Waiting for caches to sync")
	if !WaitForCacheSync(ctx.Done(), cacheSyncs...) {
		utilruntime.HandleErrorWithContext(ctx, nil, "Unable to sync caches")
		return false
	}
	logger.Info("Caches are synced")
	return true
}

// WaitFor waits until every checker is done, without polling, and returns
// true then (at once when there are none). It returns false when ctx ends
// first; a checker that finished by then still counts as done. When what is
// not empty, it logs "Waiting" before, "Done waiting" for each checker as it
// finishes and, if ctx ended first, "Timed out waiting" with the sorted names
// of the checkers that were not done and the cause of ctx's end. A nil
// checker is never done.
func WaitFor(ctx context.Context, what string, checkers ...DoneChecker) bool {
	logger := klog.FromContext(ctx)
	if what != "" {
		helper, l := logger.WithCallStackHelper()
		helper()
		logger = l
		logger.Info("Waiting", "for", what)
	}

	type result struct {
		name string
		done bool
	}
	results := make(chan result, len(checkers))
	var wg sync.WaitGroup
	for _, checker := range checkers {
		// Each goroutine exits when its checker is done or ctx ends; WaitFor
		// waits for all of them.
		wg.Go(func() {
			if checker == nil {
				<-ctx.Done()
				results <- result{name: "<nil>"}
				return
			}
			select {
			case <-checker.Done():
				results <- result{name: checker.Name(), done: true}
			case <-ctx.Done():
				results <- result{name: checker.Name(), done: IsDone(checker)}
			}
		})
	}
	var pending []string
	for range checkers {
		r := <-results
		switch {
		case !r.done:
			pending = append(pending, r.name)
		case what != "":
			logger.Info("Done waiting", "for", what, "instance", r.name)
		}
	}
	wg.Wait()

	if len(pending) > 0 && what != "" {
		slices.Sort(pending)
		logger.Info("Timed out waiting", "for", what, "cause", context.Cause(ctx), "instances", pending)
	}
	return len(pending) == 0
}

// SyncResult is what informer factories report after waiting for their
// caches to sync.
type SyncResult struct {
	// Err is nil if every cache synced, otherwise why waiting stopped
	// (typically context.Cause of the waiting context).
	Err error

	// Synced says, per informer object type, whether that cache synced.
	Synced map[reflect.Type]bool
}

// AsError returns nil if every cache synced, otherwise an error naming the
// types that did not sync, in sorted order, and wrapping Err.
func (c SyncResult) AsError() error {
	if c.Err == nil {
		return nil
	}
	var unsynced []string
	for t, synced := range c.Synced {
		if !synced {
			unsynced = append(unsynced, t.String())
		}
	}
	slices.Sort(unsynced)
	return fmt.Errorf("failed to sync all caches: %s: %w", strings.Join(unsynced, ", "), c.Err)
}
