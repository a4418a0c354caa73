package cache

import (
	"errors"
	"time"
)

// SnapshotOptions makes an informer keep its cache in a file and resume from
// it when it runs again, instead of listing every object (issue 24). It is
// not part of client-go's API. Set it as [SharedIndexInformerOptions].Snapshot
// or [InformerFactoryOptions].Snapshot; nil, the default, changes nothing.
//
// Writing. While the informer runs, a snapshot is written every Interval and
// once more when the informer stops, if its store then reflects exactly one
// resource version (everything the reflector received was applied; else the
// previous file stays). A periodic snapshot is taken at a point between two
// watch events, once the store has applied everything received so far: the
// reflector pauses for as long as it takes the store to catch up (at most a
// few seconds; a snapshot that cannot be taken then is skipped) and to copy
// the list of cached objects. The objects are encoded and written by a
// goroutine of the informer, outside every lock (cached objects are
// immutable by contract), to a temporary file that is synced and renamed
// over Path, and the directory is synced: a crash leaves the previous
// snapshot or the new one, never a part. Files are 0600 in a directory
// created 0700 when missing; a directory that others may write to is
// refused. A write that fails (a full disk, a read-only file system) is
// logged and recorded in [SyncStatus].Snapshot; the informer runs on.
//
// Resuming. When the informer runs, it takes an exclusive lock on Path (a
// second informer, in this or another process, pointed at the same Path is
// refused: it logs why, lists as usual and writes nothing), then loads the
// file and checks all of it (format version, checksums) and what it is a
// snapshot of: the Go type (or, for unstructured objects, the apiVersion and
// kind of the example object) and encoding of the objects, Namespace,
// LabelSelector, FieldSelector, the shard selector of a [ShardedListWatch]
// and ClusterIdentity. A valid snapshot is decoded (in parallel) and the
// reflector opens a watch from its resource version, without a list; once
// the watch is open, the snapshot's objects replace the store's contents as
// a list would, so handlers receive them as the initial list
// (isInInitialList true), and the watch's events, every change made since
// the snapshot, are applied once the store has processed the snapshot. When the server cannot serve that version (410
// Expired or Gone, a "too large resource version", an invalid version), the
// informer lists at once, as it would have without a snapshot, and handlers
// get the differences between the snapshot and the list as after any relist
// (objects deleted meanwhile as deletions of [DeletedFinalStateUnknown]
// tombstones). A missing, unreadable, truncated, corrupt, foreign or
// older-format snapshot is ignored with one log line and the reason in
// [SyncStatus].Snapshot, and the informer lists as usual.
//
// Freshness. A resumed informer's HasSynced turns true once the snapshot
// has been processed by the store and its handlers have it queued, after the
// watch from the snapshot's version opened: like after a list, the store may
// then be behind the server by the changes made while the process was down,
// which the watch delivers next (usually within milliseconds); unlike after a
// list, the informer cannot tell when it has received them all until the
// server says how far it is. [SnapshotStatus].CaughtUp turns true at the
// first bookmark the server sends on that watch (kube-apiserver sends one
// about every minute) or at a list; until then [SnapshotStatus].ResumedAt
// says where the informer resumed. To wait for a known state, use
// [ResourceVersionWaiter].WaitForResourceVersion with a resource version
// read from the server, as before.
//
// Secrets. Objects of kind Secret (core/v1, typed or not) are never written
// unless AllowSecrets is set: a snapshot holds every cached object in clear
// on a disk, where backups, node debugging and other containers sharing the
// volume can read it, beyond the reach of RBAC and of encryption at rest.
// An informer of Secrets without AllowSecrets neither loads nor writes a
// snapshot, and says so in its status.
//
// A snapshot holds the objects as the store keeps them, after the
// informer's transform (see [SharedInformer.SetTransform]); on resume the
// transform is applied to them again, so it must accept objects it already
// transformed.
//
// A SnapshotOptions must not be changed after it was handed to an informer.
type SnapshotOptions struct {
	// Path is the snapshot's file. For an [InformerFactory] it is a
	// directory: each informer's file in it is named after its
	// [InformerKey] (see [InformerKey.SnapshotFileName]). Required.
	Path string

	// Interval is how often a running informer writes its snapshot, in
	// real time (never on an injected clock); a snapshot whose resource
	// version did not change since the last write, with no list since,
	// is not written again.
	// Zero means one minute; negative means only when the informer stops.
	// Writing costs encoding every cached object and two fsyncs (see the
	// README for measurements): a longer interval costs less, a shorter
	// one keeps a crashed process's snapshot closer to the server, whose
	// window of resumable versions is limited (kube-apiserver's watch
	// cache and etcd compaction, typically minutes).
	Interval time.Duration

	// ClusterIdentity identifies the cluster (for example the uid of the
	// kube-system namespace, with the server's URL): a snapshot written
	// for another identity is not loaded. Required, so that a snapshot is
	// never resumed against a cluster it does not come from.
	ClusterIdentity string

	// Namespace, LabelSelector and FieldSelector describe what the
	// informer's ListerWatcher selects, which the informer cannot see
	// itself: a snapshot written with other values is not loaded. An
	// [InformerFactory] sets them from the informer's key.
	Namespace     string
	LabelSelector string
	FieldSelector string

	// AllowSecrets lets the informer write objects of kind Secret (see
	// above for why it is off by default).
	AllowSecrets bool
}

// defaultSnapshotInterval is the Interval of a zero [SnapshotOptions].Interval.
const defaultSnapshotInterval = time.Minute

// validate returns an error for options that cannot work.
func (o *SnapshotOptions) validate() error {
	switch {
	case o.Path == "":
		return errors.New("snapshot options: Path is empty")
	case o.ClusterIdentity == "":
		return errors.New("snapshot options: ClusterIdentity is empty")
	}
	return nil
}

// interval returns the period of snapshots, 0 for none but the one at stop.
func (o *SnapshotOptions) interval() time.Duration {
	switch {
	case o.Interval == 0:
		return defaultSnapshotInterval
	case o.Interval < 0:
		return 0
	}
	return o.Interval
}
