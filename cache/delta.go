package cache

// DeltaType names the kind of change a [Delta] records.
type DeltaType string

// The kinds of change a queue records.
const (
	// Added: the object appeared (a watch ADDED event or Add).
	Added DeltaType = "Added"
	// Updated: the object changed (a watch MODIFIED event or Update).
	Updated DeltaType = "Updated"
	// Deleted: the object is gone. The delta holds its last known state, or a
	// [DeletedFinalStateUnknown] when the deletion was only inferred from a
	// relist.
	Deleted DeltaType = "Deleted"
	// Replaced: the object was (re)listed by Replace, so it may or may not
	// have changed since it was last seen.
	Replaced DeltaType = "Replaced"
	// Sync: a synthetic event from a periodic resync, or from Replace in a
	// [DeltaFIFO] built without EmitDeltaTypeReplaced.
	Sync DeltaType = "Sync"
	// ReplacedAll: one delta for a whole Replace, in a [RealFIFO] with atomic
	// events. Its object is a [ReplacedAllInfo].
	ReplacedAll DeltaType = "ReplacedAll"
	// SyncAll: one delta for a whole resync, in a [RealFIFO] with atomic
	// events. Its object is a [SyncAllInfo].
	SyncAll DeltaType = "SyncAll"
	// Bookmark: a resource version the watch reached, in a [RealFIFO] with
	// bookmarks enabled. Its object is a [BookmarkInfo].
	Bookmark DeltaType = "Bookmark"
)

// Delta is one recorded change: what happened and the object's state after it
// (for a deletion, its last known state).
type Delta struct {
	Type   DeltaType
	Object any
}

// Deltas lists the changes recorded for one object, oldest first.
type Deltas []Delta

// Oldest returns the first delta, or nil when there is none. The pointer refers
// into d.
func (d Deltas) Oldest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[0]
}

// Newest returns the last delta, or nil when there is none. The pointer refers
// into d.
func (d Deltas) Newest() *Delta {
	if len(d) == 0 {
		return nil
	}
	return &d[len(d)-1]
}

// DeletedFinalStateUnknown is the tombstone a queue records when it learns of
// a deletion without seeing it: the object vanished from a relist while the
// watch was down. Obj is the last state the consumer knew, which may be stale,
// or nil when nothing was known.
type DeletedFinalStateUnknown struct {
	Key string
	Obj any
}

// ReplacedAllInfo is the object of a [ReplacedAll] delta: every listed object,
// already transformed, and the resource version of the list.
type ReplacedAllInfo struct {
	ResourceVersion string
	Objects         []any
}

// SyncAllInfo is the object of a [SyncAll] delta. It carries nothing: the
// consumer resyncs everything it stores.
type SyncAllInfo struct{}

// BookmarkInfo is the object of a [Bookmark] delta.
type BookmarkInfo struct {
	ResourceVersion string
}

// TransformFunc rewrites an object before a queue or store keeps it, typically
// to strip fields the program never reads. It may mutate and return its
// argument. It must be idempotent: the same object can pass through it twice
// (for example once into a watch-list's temporary store and once into the
// queue).
type TransformFunc func(any) (any, error)
