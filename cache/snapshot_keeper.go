package cache

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/informer-go/informer/cache/internal/codec"
	"github.com/informer-go/informer/cache/internal/snapshot"
)

// checkpointWait bounds how long the reflector waits, before a periodic
// snapshot, for the store to apply what it was handed; a snapshot that
// cannot be taken within it is skipped until the next period.
const checkpointWait = 5 * time.Second

// errSnapshotSecrets refuses snapshots of Secrets without AllowSecrets.
var errSnapshotSecrets = errors.New("objects of kind Secret are not written to snapshots unless SnapshotOptions.AllowSecrets is set")

// snapshotKeeper keeps one informer's snapshot (see [SnapshotOptions]): it
// loads the snapshot the reflector resumes from, takes snapshots at the
// reflector's checkpoints and at stop, and writes them on a goroutine of its
// own. The informer builds it at construction; its controller starts it
// before the reflector runs (start) and stops it once the reflector and the
// processing have returned (stop), and hands it to the reflector as its
// reflectorSnapshots. Its status is safe for concurrent use; the rest is
// used as the comments say.
type snapshotKeeper struct {
	opts    SnapshotOptions
	example runtime.Object
	// store is the informer's store; tracker tells when it reflects a
	// resource version.
	store   Store
	tracker *resourceVersionTracker
	// shards is the ListerWatcher when it serves a shard (a
	// [ShardedListWatch]): the selector of the shard whose state the
	// reflector holds is part of the identity. Nil otherwise.
	shards shardHolder
	codec  *codec.Codec
	// refused is why the informer keeps no snapshot (malformed options, a
	// type without codec, Secrets); nil when it does.
	refused error

	// Set by start; the writer is nil when the path is locked or refused.
	realTime clock.Clock
	logger   klog.Logger
	writer   *snapshot.Writer
	interval time.Duration
	due      clock.Timer // nil without periodic snapshots
	// jobs carries snapshots to the writing goroutine; it holds one, the
	// newest (submit replaces an unwritten one). Closed by stop.
	jobs chan snapshotJob
	wg   sync.WaitGroup // the writing goroutine

	// lastCaptured is the resource version of the last snapshot taken or
	// loaded, "" after a list; reflector goroutine only (and stop, after
	// it returned).
	lastCaptured string

	mu     sync.Mutex
	status SnapshotStatus // guarded by mu
}

// snapshotJob is a snapshot to write: the store's objects at
// resourceVersion, served under shardSelector.
type snapshotJob struct {
	objs            []any
	resourceVersion string
	shardSelector   string
}

var _ reflectorSnapshots = (*snapshotKeeper)(nil)

// newSnapshotKeeper returns the keeper of the snapshot of an informer of
// example objects kept in store, listed and watched by lw. It starts
// nothing; options it cannot use are recorded, reported at start and in the
// status, and leave the informer without a snapshot.
func newSnapshotKeeper(opts SnapshotOptions, example runtime.Object, lw ListerWatcher, store Store, tracker *resourceVersionTracker) *snapshotKeeper {
	k := &snapshotKeeper{opts: opts, example: example, store: store, tracker: tracker}
	k.status.Path = opts.Path
	if s, ok := lw.(shardHolder); ok {
		k.shards = s
	}
	if err := opts.validate(); err != nil {
		k.refused = err
		return k
	}
	if isSecret(example) && !opts.AllowSecrets {
		k.refused = errSnapshotSecrets
		return k
	}
	c, err := codec.New(example, codec.Options{})
	if err != nil {
		k.refused = fmt.Errorf("snapshot: %w", err)
		return k
	}
	k.codec = c
	return k
}

// isSecret reports whether obj is, or its type is that of, a core/v1
// Secret: the Go type k8s.io/api/core/v1.Secret, or an object whose kind
// says Secret in the core group (unstructured and metadata-only objects).
func isSecret(obj runtime.Object) bool {
	if isNilObject(obj) {
		return false
	}
	if t := reflect.TypeOf(obj); t.Kind() == reflect.Pointer && t.Elem().Name() == "Secret" && t.Elem().PkgPath() == "k8s.io/api/core/v1" {
		return true
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	return gvk.Kind == "Secret" && gvk.Group == ""
}

// typeIdentity names the type of example's objects in a snapshot's
// identity: the Go package path and type name, and for unstructured objects
// the example's apiVersion and kind.
func typeIdentity(example runtime.Object) string {
	t := reflect.TypeOf(example)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	id := t.PkgPath() + "." + t.Name()
	if u, ok := example.(*unstructured.Unstructured); ok && u != nil {
		id += ", " + u.GetAPIVersion() + ", Kind=" + u.GetKind()
	}
	return id
}

// identity returns what a snapshot of this informer is a snapshot of,
// served under shardSelector.
func (k *snapshotKeeper) identity(shardSelector string) snapshot.Identity {
	return snapshot.Identity{
		Cluster:       k.opts.ClusterIdentity,
		Type:          typeIdentity(k.example),
		Encoding:      k.codec.Format().String(),
		Namespace:     k.opts.Namespace,
		LabelSelector: k.opts.LabelSelector,
		FieldSelector: k.opts.FieldSelector,
		ShardSelector: shardSelector,
	}
}

// shardHolder is a ListerWatcher that serves a shard: a [ShardedListWatch].
type shardHolder interface {
	// heldShardSelector returns the selector of the shard whose state the
	// reflector holds (which a move to another shard changes once the
	// reflector has the new shard's objects), "" for every object.
	heldShardSelector() string
}

// heldShardSelector implements shardHolder.
func (s *ShardedListWatch) heldShardSelector() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sel := s.held.Selector(); sel != nil && !sel.Empty() {
		return sel.String()
	}
	return ""
}

// shardSelector returns the selector of the shard the store holds, "" for
// none.
func (k *snapshotKeeper) shardSelector() string {
	if k.shards == nil {
		return ""
	}
	return k.shards.heldShardSelector()
}

// start prepares a run: it takes the lock on the snapshot's path and starts
// the writing goroutine, which exits when stop closes jobs (stop waits for
// it). A refused or locked snapshot is logged once and leaves the run
// without snapshots. Called by the controller before the reflector runs.
func (k *snapshotKeeper) start(ctx context.Context, realTime clock.Clock) {
	k.realTime = realTime
	k.logger = klog.LoggerWithValues(klog.FromContext(ctx), "snapshot", k.opts.Path)
	if k.refused != nil {
		k.logger.Info("Warning: not keeping a snapshot", "err", k.refused)
		k.recordLoad("refused", k.refused)
		return
	}
	w, err := snapshot.NewWriter(k.opts.Path)
	if err != nil {
		reason := "unreadable"
		if errors.Is(err, snapshot.ErrLocked) {
			reason = "locked"
		}
		k.logger.Info("Warning: not keeping a snapshot, listing instead", "reason", reason, "err", err)
		k.recordLoad(reason, err)
		return
	}
	k.writer = w
	k.jobs = make(chan snapshotJob, 1)
	k.wg.Go(k.writeLoop) // exits when stop closes jobs; stop waits
	if k.interval = k.opts.interval(); k.interval > 0 {
		k.due = realTime.NewTimer(k.interval)
	}
}

// resumePoint implements reflectorSnapshots: it loads, checks and decodes
// the snapshot. Any failure is logged once (a missing file, as on the first
// run, at verbosity 2) and recorded; the reflector then lists.
func (k *snapshotKeeper) resumePoint(ctx context.Context) ([]any, string, bool) {
	if k.writer == nil {
		return nil, "", false
	}
	start := k.realTime.Now()
	s, err := snapshot.Load(k.opts.Path, k.identity(k.shardSelector()))
	var objs []runtime.Object
	if err == nil {
		objs, err = s.Decode(ctx, k.codec, 0)
	}
	if err == nil && s.Header.ResourceVersion == "" {
		err = &snapshot.LoadError{Path: k.opts.Path, Reason: snapshot.ReasonCorrupt, Err: errors.New("no resource version")}
	}
	if err != nil {
		reason := "unreadable"
		var le *snapshot.LoadError
		if errors.As(err, &le) {
			reason = string(le.Reason)
		}
		if reason == string(snapshot.ReasonMissing) {
			k.logger.V(2).Info("No snapshot to resume from, listing", "err", err)
		} else if ctx.Err() == nil {
			k.logger.Info("Warning: ignoring the snapshot, listing instead", "reason", reason, "err", err)
		}
		k.recordLoad(reason, err)
		return nil, "", false
	}
	items := make([]any, len(objs))
	for i, obj := range objs {
		items[i] = obj
	}
	k.lastCaptured = s.Header.ResourceVersion
	k.logger.V(2).Info("Loaded the snapshot", "resourceVersion", s.Header.ResourceVersion, "items", len(items), "duration", k.realTime.Since(start))
	return items, s.Header.ResourceVersion, true
}

// delivered implements reflectorSnapshots: the store reflects the
// snapshot's version once the queue has processed the snapshot, all of it
// (a DeltaFIFO processes it object by object, and would merge a change
// arriving meanwhile into the object's initial add).
func (k *snapshotKeeper) delivered(ctx context.Context, resourceVersion string) {
	_ = k.tracker.wait(ctx, resourceVersion) // an error: ctx ended or the informer stops
}

// checkpointDue implements reflectorSnapshots.
func (k *snapshotKeeper) checkpointDue() <-chan time.Time {
	if k.due == nil {
		return nil
	}
	return k.due.C()
}

// checkpoint implements reflectorSnapshots: once the store has applied
// everything up to resourceVersion (the reflector hands it nothing
// meanwhile), the store's objects are exactly the state at resourceVersion;
// their list goes to the writing goroutine. A version already written is
// not written again.
func (k *snapshotKeeper) checkpoint(ctx context.Context, resourceVersion string) {
	defer k.due.Reset(k.interval)
	if resourceVersion == k.lastCaptured {
		return
	}
	if err := k.settle(ctx, resourceVersion); err != nil {
		if ctx.Err() == nil {
			k.logger.V(2).Info("Skipping a snapshot: the store did not settle at the resource version", "resourceVersion", resourceVersion, "err", err)
		}
		return
	}
	k.lastCaptured = resourceVersion
	job := snapshotJob{objs: k.store.List(), resourceVersion: resourceVersion, shardSelector: k.shardSelector()}
	select {
	case <-k.jobs: // an unwritten older snapshot: the new one replaces it
	default:
	}
	k.jobs <- job // the writing goroutine only takes, never adds
}

// settle waits, for at most checkpointWait, until the queue has applied
// every delta it took in and the newest version reached is resourceVersion:
// with the reflector paused, the store then holds exactly the state at
// resourceVersion. The wait for the version, on channels, is usually all it
// takes; the deltas of a relist that answered at the version already
// reached (which changes nothing on a consistent server) or of a resync
// may still be queued after it, and are waited for by polling the queue
// every millisecond, in real time.
func (k *snapshotKeeper) settle(ctx context.Context, resourceVersion string) error {
	start := k.realTime.Now()
	wctx, cancel := context.WithTimeout(ctx, checkpointWait)
	defer cancel()
	if err := k.tracker.wait(wctx, resourceVersion); err != nil {
		return err
	}
	for {
		if rv, ok := k.tracker.settledVersion(); ok && rv == resourceVersion {
			return nil
		}
		if k.realTime.Since(start) >= checkpointWait {
			return fmt.Errorf("deltas still queued after %v", checkpointWait)
		}
		if !sleepOn(ctx, k.realTime, time.Millisecond) {
			return ctx.Err()
		}
	}
}

// writeLoop writes the snapshots of jobs until it is closed.
func (k *snapshotKeeper) writeLoop() {
	for job := range k.jobs {
		k.write(job)
	}
}

// stop ends the run: it waits for the writing goroutine, writes a last
// snapshot when the store reflects exactly one resource version newer than
// the last one taken (every delta queued was applied), and releases the
// path. Called by the controller once the reflector and the processing
// have returned.
func (k *snapshotKeeper) stop() {
	if k.writer == nil {
		return
	}
	if k.due != nil {
		k.due.Stop()
	}
	close(k.jobs)
	k.wg.Wait()
	if rv, ok := k.tracker.settledVersion(); !ok {
		k.logger.V(2).Info("Not writing a snapshot at stop: changes received were not all applied; the previous snapshot stays")
	} else if rv != k.lastCaptured {
		k.lastCaptured = rv
		k.write(snapshotJob{objs: k.store.List(), resourceVersion: rv, shardSelector: k.shardSelector()})
	}
	if err := k.writer.Close(); err != nil {
		k.logger.Info("Warning: releasing the snapshot's lock", "err", err)
	}
}

// write encodes and writes one snapshot, and records the outcome. Objects
// of kind Secret are refused unless allowed.
func (k *snapshotKeeper) write(job snapshotJob) {
	start := k.realTime.Now()
	objs := make([]runtime.Object, 0, len(job.objs))
	var err error
	for _, item := range job.objs {
		obj, ok := item.(runtime.Object)
		if !ok {
			err = fmt.Errorf("cached item of type %T is not a runtime.Object", item)
			break
		}
		if !k.opts.AllowSecrets && isSecret(obj) {
			err = errSnapshotSecrets
			break
		}
		objs = append(objs, obj)
	}
	if err == nil {
		h := snapshot.Header{Identity: k.identity(job.shardSelector), ResourceVersion: job.resourceVersion}
		err = k.writer.Write(h, objs, k.codec)
	}
	now := k.realTime.Now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		k.status.WriteFailures++
		k.status.LastError, k.status.LastErrorTime = err, now
		k.logger.Info("Warning: writing the snapshot failed; the informer runs on", "resourceVersion", job.resourceVersion, "err", err)
		return
	}
	k.status.Writes++
	k.status.LastWriteTime, k.status.LastWriteDuration = now, now.Sub(start)
	k.status.LastWriteResourceVersion, k.status.LastWriteObjects = job.resourceVersion, len(objs)
	k.logger.V(4).Info("Wrote the snapshot", "resourceVersion", job.resourceVersion, "items", len(objs), "duration", now.Sub(start))
}

// recordLoad records why no snapshot was resumed from.
func (k *snapshotKeeper) recordLoad(reason string, err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.status.NotLoaded = reason
	k.status.CaughtUp = true
	if err != nil {
		k.status.LastError, k.status.LastErrorTime = err, k.realTime.Now()
	}
}

// resumed records that the informer resumed at resourceVersion.
func (k *snapshotKeeper) resumed(resourceVersion string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.status.ResumedAt, k.status.CaughtUp, k.status.NotLoaded = resourceVersion, false, ""
}

// listed records a list, which replaced the snapshot's objects if any: the
// informer is caught up. A list that comes while a snapshot was being
// resumed from means the server could not serve the snapshot's version.
func (k *snapshotKeeper) listed() {
	// The list replaced the store's contents, also when it answered at
	// the version last written: write the next snapshot whatever its
	// version. (Called on the reflector's goroutine, like checkpoint.)
	k.lastCaptured = ""
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.status.CaughtUp && k.status.NotLoaded == "" {
		k.status.NotLoaded = "expired"
	}
	k.status.CaughtUp = true
}

// bookmarked records a bookmark: the server has sent everything up to a
// version it reached after the watch began.
func (k *snapshotKeeper) bookmarked() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.status.CaughtUp = true
}

// snapshotStatus returns the status.
func (k *snapshotKeeper) snapshotStatus() *SnapshotStatus {
	k.mu.Lock()
	defer k.mu.Unlock()
	st := k.status
	return &st
}
