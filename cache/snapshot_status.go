package cache

import "time"

// SnapshotStatus says how an informer with [SnapshotOptions] uses its
// snapshot: whether it resumed from one, why not, and how its writes go. It
// is [SyncStatus].Snapshot, nil for an informer without the option. It is a
// value: it does not change after it was taken.
type SnapshotStatus struct {
	// Path is the snapshot's file.
	Path string
	// ResumedAt is the resource version of the snapshot the informer
	// resumed from, once its objects were handed to the store; "" when it
	// did not resume (it listed).
	ResumedAt string
	// CaughtUp is false while a resumed informer has neither received a
	// bookmark on its watch nor listed: its store may still lack changes
	// the server made while the process was down (see [SnapshotOptions],
	// Freshness). It is true otherwise, also for an informer that listed.
	CaughtUp bool
	// NotLoaded says why no snapshot was resumed from: "missing",
	// "unreadable", "unsafe", "truncated", "corrupt", "format", "foreign",
	// "undecodable" (the file), "locked" (another informer holds Path),
	// "refused" (the options or the object type cannot be snapshotted, see
	// LastError), or "expired" (the server could no longer serve the
	// snapshot's version, and the informer listed). "" while the informer
	// has not run, or when it resumed.
	NotLoaded string
	// Writes counts the snapshots written by this run; WriteFailures the
	// writes that failed.
	Writes, WriteFailures int
	// LastWriteTime, LastWriteResourceVersion, LastWriteObjects and
	// LastWriteDuration describe the last snapshot written (the duration
	// covers encoding and writing, not the pause of the reflector).
	LastWriteTime            time.Time
	LastWriteResourceVersion string
	LastWriteObjects         int
	LastWriteDuration        time.Duration
	// LastError is the last error of a load or a write, nil if none; it
	// stays after later writes succeeded. LastErrorTime is when it happened.
	LastError     error
	LastErrorTime time.Time
}
