package cache

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// SyncPhase says what an informer is doing to get, or keep, its cache in step
// with the server. It is part of [SyncStatus], not of client-go's API.
type SyncPhase string

const (
	// SyncPhaseNotStarted: the informer has not been run yet.
	SyncPhaseNotStarted SyncPhase = "NotStarted"
	// SyncPhaseListing: a paginated list is running, or is due again after
	// a failure and a backoff delay.
	SyncPhaseListing SyncPhase = "Listing"
	// SyncPhaseStreamingList: a streaming list (a watch that starts with
	// the current objects) is running and receiving its initial objects;
	// [SyncStatus.InitialEvents] counts them.
	SyncPhaseStreamingList SyncPhase = "StreamingList"
	// SyncPhaseWaitingForEndBookmark: a streaming list has received no
	// object for at least ten seconds (the delay after which client-go
	// warns about it) and is still waiting for the bookmark that ends its
	// initial list. After the reflector's stall timeout it falls back to a
	// paginated list (see [ReflectorOptions.WatchListStallTimeout]).
	SyncPhaseWaitingForEndBookmark SyncPhase = "WaitingForEndBookmark"
	// SyncPhaseDeliveringInitialList: the initial list is complete and
	// queued; the informer is storing it and handing it to its handlers,
	// and has not synced yet.
	SyncPhaseDeliveringInitialList SyncPhase = "DeliveringInitialList"
	// SyncPhaseWatching: the cache holds a complete list and the informer
	// is watching for changes, or restarting a watch.
	SyncPhaseWatching SyncPhase = "Watching"
	// SyncPhaseStopped: the informer has stopped.
	SyncPhaseStopped SyncPhase = "Stopped"
)

// SyncStatus is a snapshot of how an informer is doing at getting and
// keeping its cache in step: what it is doing, how many attempts it took and
// the last error of a list or watch request. The informers of this package
// return it from their SyncStatus method (see [InformerSyncStatus]); it is
// not part of client-go's API. A SyncStatus is a value: it does not change
// after it was taken.
type SyncStatus struct {
	// Type describes the informer's objects, as in logs: the object
	// description of its options, else the group, version and kind or the
	// Go type of its example object.
	Type string
	// Reflector is the name of the informer's reflector (by default the
	// file and line of the code that ran the informer or, when that was
	// all library code, as with `go informer.Run(stop)` or an
	// [InformerFactory], of the code that built it); "" before the
	// informer runs.
	Reflector string
	// Phase says what the informer is doing.
	Phase SyncPhase
	// Synced is HasSynced: the initial list is stored and queued for the
	// handlers. It stays true through later relists.
	Synced bool
	// Attempts counts the list-and-watch cycles (a list, streaming or
	// paginated, and the watches after it) since the last one whose list
	// succeeded, including that one when it is the latest and the one in
	// progress: 1 after a clean start, 4 after three failed lists and a
	// successful fourth. A relist after a healthy period starts again at 1.
	Attempts int
	// LastError is the error of the last list or watch request that
	// failed, or of the last watch that ended with an error; nil if there
	// was none. It stays after the informer recovered; see FailingSince.
	LastError error
	// LastErrorTime is when LastError happened; zero without one.
	LastErrorTime time.Time
	// FailingSince is when the current run of failures began: the first
	// failure after the last successful list or watch request. It is zero
	// when the last request succeeded.
	FailingSince time.Time
	// LastSyncResourceVersion is the newest resource version the informer
	// received from a list, an event or a bookmark; "" before the first
	// list.
	LastSyncResourceVersion string
	// InitialEvents is how many objects the streaming list in progress has
	// received; zero in other phases.
	InitialEvents int
	// Snapshot says how the informer resumes from and writes its
	// snapshot; nil without [SnapshotOptions].
	Snapshot *SnapshotStatus
}

// SyncStatusReporter is implemented by the informers of this package (the
// [SharedIndexInformer]s of [NewSharedIndexInformerWithOptions] and the
// typed wrappers of [NewTypedSharedIndexInformer], and the [Controller]s of
// [NewInformerWithOptions] and [New]). It is not part of client-go's API.
type SyncStatusReporter interface {
	// SyncStatus returns a snapshot of the informer's sync status. It is
	// safe for concurrent use, also before Run and after stop.
	SyncStatus() SyncStatus
}

// syncStatusSource is implemented by the informers of this package: their
// status with a channel closed at its next significant change (an error, a
// list, the sync, the stop).
type syncStatusSource interface {
	syncStatusChanges() (SyncStatus, <-chan struct{})
}

// syncStatusRecorder keeps an informer's SyncStatus from what its reflector
// observes and its queue reports. It is safe for concurrent use.
type syncStatusRecorder struct {
	clock clock.PassiveClock

	mu sync.Mutex
	// status is the status as recorded, but for Synced, which snapshot
	// takes from the queue; Phase is the reflector's (one of NotStarted,
	// Listing, StreamingList, Watching, Stopped) and snapshot derives the
	// others. guarded by mu.
	status SyncStatus
	// lastCycleListed says whether the list of the latest cycle succeeded.
	// guarded by mu.
	lastCycleListed bool
	// lastProgress is when the streaming list in progress started or last
	// received an object. guarded by mu.
	lastProgress time.Time
	// changed is closed at the next change that can end a wait (an error,
	// a successful list, the sync, the stop) and then replaced; nil until
	// someone asks for it. guarded by mu.
	changed chan struct{}
}

func newSyncStatusRecorder(clk clock.PassiveClock, typeDescription string) *syncStatusRecorder {
	return &syncStatusRecorder{clock: clk, status: SyncStatus{Type: typeDescription, Phase: SyncPhaseNotStarted}}
}

// snapshot returns the status, given whether the informer's queue has
// synced, and a channel closed at its next significant change.
func (s *syncStatusRecorder) snapshot(synced bool) (SyncStatus, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	st.Synced = synced
	switch {
	case st.Phase == SyncPhaseWatching && !st.Synced:
		st.Phase = SyncPhaseDeliveringInitialList
	case st.Phase == SyncPhaseStreamingList && s.clock.Since(s.lastProgress) >= awaitingEndBookmarkAfter:
		st.Phase = SyncPhaseWaitingForEndBookmark
	}
	if s.changed == nil {
		s.changed = make(chan struct{})
	}
	return st, s.changed
}

// notifyLocked wakes those waiting for a change.
func (s *syncStatusRecorder) notifyLocked() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// started records the reflector's name as the informer starts.
func (s *syncStatusRecorder) started(reflector, typeDescription string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.Reflector, s.status.Type = reflector, typeDescription
}

func (s *syncStatusRecorder) cycleStarted() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastCycleListed {
		s.status.Attempts = 0
	}
	s.lastCycleListed = false
	s.status.Attempts++
	s.status.Phase = SyncPhaseListing
}

func (s *syncStatusRecorder) listStarted(method ListMethod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.Phase, s.status.InitialEvents = SyncPhaseListing, 0
	if method == ListMethodStreaming {
		s.status.Phase = SyncPhaseStreamingList
		s.lastProgress = s.clock.Now()
	}
}

func (s *syncStatusRecorder) initialEventReceived() {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.InitialEvents++
	s.lastProgress = now
}

// failed records err, the failure of a list or watch request.
func (s *syncStatusRecorder) failed(err error) {
	now := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.LastError, s.status.LastErrorTime = err, now
	if s.status.FailingSince.IsZero() {
		s.status.FailingSince = now
	}
	s.notifyLocked()
}

// listed records a successful list; the informer watches from now on.
func (s *syncStatusRecorder) listed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastCycleListed = true
	s.status.Phase, s.status.InitialEvents = SyncPhaseWatching, 0
	s.status.FailingSince = time.Time{}
	s.notifyLocked()
}

// watchStarted records a watch that opened.
func (s *syncStatusRecorder) watchStarted() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.Phase = SyncPhaseWatching
	s.status.FailingSince = time.Time{}
}

// synced wakes those waiting for a change: the informer synced.
func (s *syncStatusRecorder) synced() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.notifyLocked()
}

// stopped records that the informer stopped.
func (s *syncStatusRecorder) stopped() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status.Phase, s.status.InitialEvents = SyncPhaseStopped, 0
	s.notifyLocked()
}
