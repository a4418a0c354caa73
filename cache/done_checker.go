package cache

// DoneChecker reports when an activity, typically a cache sync, has finished.
// It is the channel-based replacement for polling an [InformerSynced].
type DoneChecker interface {
	// Name describes what is being waited for, for log messages.
	Name() string
	// Done returns a channel that is closed once the activity has finished.
	// It returns the same channel on every call.
	Done() <-chan struct{}
}

// IsDone reports, without blocking, whether checker has finished.
func IsDone(checker DoneChecker) bool {
	select {
	case <-checker.Done():
		return true
	default:
		return false
	}
}
