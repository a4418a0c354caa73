// Package synctrack tracks when a consumer of an informer has caught up with
// the informer's initial list, which is what a per-handler HasSynced reports.
//
// [SingleFileTracker] serves a consumer that handles items in order, one at a
// time (the informer's per-handler listener); [AsyncTracker] serves one that
// handles keyed items concurrently. Both become done once the upstream
// informer has synced and no item of the initial list is still pending; done
// is final. [Lazy] caches an expensive computation until it is told its
// inputs changed.
package synctrack
