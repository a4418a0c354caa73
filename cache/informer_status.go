package cache

import (
	"context"
	"fmt"
)

// The informer-level entry points of what the informers of this package
// report beyond client-go: their sync status (kept by sync_status.go) and
// waits for resource versions (resource_version_wait.go).

// InformerSyncStatus returns informer's sync status and true when informer
// reports one ([SyncStatusReporter]); otherwise the zero status and false.
func InformerSyncStatus(informer SharedInformer) (SyncStatus, bool) {
	r, ok := informer.(SyncStatusReporter)
	if !ok || isNilObject(informer) {
		return SyncStatus{}, false
	}
	return r.SyncStatus(), true
}

// WaitForResourceVersion calls informer's WaitForResourceVersion (see
// [ResourceVersionWaiter]); it returns an error if informer has none. It is
// not part of client-go's API.
func WaitForResourceVersion(ctx context.Context, informer SharedInformer, resourceVersion string) error {
	w, ok := informer.(ResourceVersionWaiter)
	if !ok || isNilObject(informer) {
		return fmt.Errorf("wait for resource version %q: %T cannot wait for a resource version", resourceVersion, informer)
	}
	return w.WaitForResourceVersion(ctx, resourceVersion)
}
