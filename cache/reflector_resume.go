package cache

import (
	"context"
	"errors"
	"time"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// The reflector's resume from a snapshot (see [SnapshotOptions]): a first
// cycle that watches from the snapshot's resource version without a list,
// handing the store the snapshot's objects as its list once the watch is
// open; and the points between two watch events at which the informer may
// take a snapshot.

// reflectorSnapshots is where a reflector resumes from and whom it lets take
// snapshots. An informer's snapshotKeeper is one; it is handed to the
// reflector at construction (newReflector). Its methods are called by the
// goroutine running ListAndWatch.
type reflectorSnapshots interface {
	// resumePoint returns the objects and resource version to resume
	// from; ok is false when there are none. It is called once, at the
	// start of the first cycle, and may take time (it reads a file).
	resumePoint(ctx context.Context) (objs []any, resourceVersion string, ok bool)
	// checkpointDue returns a channel that receives when a snapshot is
	// due, nil for never. The reflector reads it while a watch is open.
	checkpointDue() <-chan time.Time
	// delivered is called once the store was handed the snapshot's
	// objects at resourceVersion, before the watch's first event is read;
	// it returns once the store's consumer has processed them (or ctx
	// ended), so that the changes the watch brings next reach handlers
	// after the initial list, never merged into it.
	delivered(ctx context.Context, resourceVersion string)
	// checkpoint is called when checkpointDue fired, between two watch
	// events: the reflector has handed its store everything up to
	// resourceVersion and nothing newer, and hands it nothing until
	// checkpoint returns, which must be soon.
	checkpoint(ctx context.Context, resourceVersion string)
}

// noSnapshots is the reflectorSnapshots of reflectors without snapshots.
type noSnapshots struct{}

var _ reflectorSnapshots = noSnapshots{}

func (noSnapshots) resumePoint(context.Context) ([]any, string, bool) { return nil, "", false }
func (noSnapshots) delivered(context.Context, string)                 {}
func (noSnapshots) checkpointDue() <-chan time.Time                   { return nil }
func (noSnapshots) checkpoint(context.Context, string)                {}

// resumePoint is a snapshot to resume from: its objects, at resourceVersion.
type resumePoint struct {
	objs            []any
	resourceVersion string
}

// errResumedVersionGone ends the watch of a resumed cycle when the server
// cannot serve the snapshot's resource version: the cycle lists at once.
var errResumedVersionGone = errors.New("the server cannot serve the resource version of the snapshot")

// resumeWatch runs the watches of a cycle that resumes from a snapshot, if
// there is one to resume from: it reports false when there is none, or when
// the server could not serve the snapshot's version (the cycle then lists at
// once); otherwise true, with the error of watch. The snapshot is asked for
// in the first cycle; it stays pending through cycles whose watch could not
// be opened for another reason (the server is unreachable), and is used up
// once handed to the store or refused.
func (r *Reflector) resumeWatch(ctx context.Context) (bool, error) {
	if !r.resumeAsked {
		r.resumeAsked = true
		if objs, rv, ok := r.snapshots.resumePoint(ctx); ok {
			r.resume = &resumePoint{objs: objs, resourceVersion: rv}
		}
	}
	if r.resume == nil || ctx.Err() != nil {
		return false, nil
	}
	rv := r.resume.resourceVersion
	r.resumedVersion = rv
	r.versions.set(rv) // the watch resumes from it
	klog.FromContext(ctx).V(2).Info("Resuming from a snapshot, watching without a list", "reflector", r.name, "type", r.typeDescription,
		"resourceVersion", rv, "items", len(r.resume.objs))
	err := r.watchWithResync(ctx, nil)
	r.resumedVersion = ""
	if errors.Is(err, errResumedVersionGone) {
		r.resume = nil
		r.versions.setUnavailable(true)
		// A relist, like one after an expired watch, but at once.
		r.observer.cycleStarted(classifyError(r.cycleFailure).relistReason())
		r.cycleFailure = nil
		return false, nil
	}
	return true, err
}

// deliverResumed hands the store the pending snapshot's objects as a list at
// its resource version, now that a watch from that version is open.
func (r *Reflector) deliverResumed(ctx context.Context) {
	p := r.resume
	r.resume = nil
	if err := r.store.Replace(p.objs, p.resourceVersion); err != nil {
		utilruntime.HandleErrorWithContext(ctx, err, "Unable to hand the snapshot to the store", "reflector", r.name, "type", r.typeDescription)
	}
	r.observer.resumed(len(p.objs), p.resourceVersion)
	r.backoff.inContact(r.clock.Now())
	r.setLastSyncResourceVersion(p.resourceVersion)
	r.snapshots.delivered(ctx, p.resourceVersion)
	klog.FromContext(ctx).V(2).Info("Caches populated from a snapshot", "reflector", r.name, "type", r.typeDescription,
		"resourceVersion", p.resourceVersion, "items", len(p.objs))
}

// resumingFrom reports whether a request at resourceVersion resumes from a
// snapshot: the cycle resumes, and has not moved past the snapshot's version.
func (r *Reflector) resumingFrom(resourceVersion string) bool {
	return r.resumedVersion != "" && resourceVersion == r.resumedVersion
}
