package framework

import (
	"context"
	"time"
)

// faults holds the faults armed on a server; the server's mutex guards it.
type faults struct {
	lists        failures
	watches      failures
	watchStreams failures
	// dropEvents is how many upcoming changes no stream receives.
	dropEvents int
	// expireContinues is how many upcoming continued lists fail with 410.
	expireContinues int
	listLatency     time.Duration
}

// failures fails the next n requests with err.
type failures struct {
	n   int
	err error
}

// take returns the error for the current request, if one is armed.
func (f *failures) take() error {
	if f.n <= 0 || f.err == nil {
		return nil
	}
	f.n--
	return f.err
}

func (f *failures) arm(n int, err error) {
	if n <= 0 || err == nil {
		*f = failures{}
		return
	}
	*f = failures{n: n, err: err}
}

// FailNextLists makes the next n lists (of any namespace) return err as is,
// before any validation: for example apierrors.NewForbidden(...),
// apierrors.NewTooManyRequests(...), apierrors.NewResourceExpired(...),
// apierrors.NewInternalError(...) or [NewConnectionRefusedError](). The
// requests are still recorded. n <= 0 or a nil err disarms it.
func (s *Server[T]) FailNextLists(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.lists.arm(n, err)
}

// FailNextWatches makes the next n watch requests fail to start: the Watch
// call returns err as is (see [Server.FailNextLists] for examples). n <= 0 or
// a nil err disarms it.
func (s *Server[T]) FailNextWatches(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.watches.arm(n, err)
}

// FailNextWatchStreams makes the next n watches open successfully, deliver
// one ERROR event carrying err's status (a 500 Internal Error if err has
// none) and close, as the apiserver reports failures found after it accepted
// a watch (410 Expired, for instance). Options are still validated first.
// n <= 0 or a nil err disarms it.
func (s *Server[T]) FailNextWatchStreams(n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.watchStreams.arm(n, err)
}

// DropNextEvents makes the next n writes reach no open watch stream, as if
// the events were lost in transit; they are still stored and recorded in
// the history, so a new watch from an older resourceVersion replays them.
// n <= 0 cancels a pending drop. See [WatchStream.DropNextEvents] for one
// stream.
func (s *Server[T]) DropNextEvents(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.dropEvents = max(n, 0)
}

// ExpireNextContinues makes the next n lists that carry a continue token
// fail with 410 Expired, as if the history had been compacted past the
// snapshot of their first page: the error carries a fresh token that
// continues from the same key at the current state, as the apiserver's does.
// Lists without a continue token are not affected and do not count. n <= 0
// cancels a pending expiry.
func (s *Server[T]) ExpireNextContinues(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.expireContinues = max(n, 0)
}

// takeContinueExpiry reports whether the current continued list is to
// expire, counting it.
func (s *Server[T]) takeContinueExpiry() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.faults.expireContinues <= 0 {
		return false
	}
	s.faults.expireContinues--
	return true
}

// SetIgnoreSendInitialEvents changes [Options.IgnoreSendInitialEvents] for
// the watches opened from now on, as a server replaced behind a load
// balancer or a proxy put in front of it would: true makes them ignore
// sendInitialEvents and resourceVersionMatch, false honour them again. Open
// watches are not affected.
func (s *Server[T]) SetIgnoreSendInitialEvents(ignore bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ignoreInitial = ignore
}

// SetListLatency makes every later list wait d on the server's clock before
// it is served (after recording and fault injection, before validation). A
// cancelled request context ends the wait. d <= 0 removes the latency.
func (s *Server[T]) SetListLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.listLatency = max(d, 0)
}

// CloseWatchStreams closes every open watch stream from the server side, as
// an apiserver restart or a load balancer would: each client sees its result
// channel closed without an error and must resume from its last
// resourceVersion. Watches opened later are not affected.
func (s *Server[T]) CloseWatchStreams() {
	for _, w := range s.WatchStreams() {
		w.terminate()
	}
}

// WatchStreams returns the open watch streams in the order they were
// opened. A stream that ended is no longer listed once its goroutine has
// exited.
func (s *Server[T]) WatchStreams() []*WatchStream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streamsLocked()
}

// NumWatchStreams returns the number of open watch streams.
func (s *Server[T]) NumWatchStreams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.streams)
}

// WaitForWatchStreams blocks until at least n watch streams are open, and
// returns ctx's error if ctx ends first. Tests use it to wait until an
// informer has started watching.
func (s *Server[T]) WaitForWatchStreams(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		open, changed := len(s.streams), s.streamsChanged
		s.mu.Unlock()
		if open >= n {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// sleep waits d on the server's clock or until ctx ends.
func (s *Server[T]) sleep(ctx context.Context, d time.Duration) error {
	timer := s.cfg.clock.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
