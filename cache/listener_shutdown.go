package cache

import (
	"errors"
	"runtime"
	"sync"
)

// errShutdownFromOwnHandler is returned by [ShutDownEventHandler] when a
// handler tries to wait for its own shutdown, which could never complete.
var errShutdownFromOwnHandler = errors.New("event handler cannot wait for its own shutdown: ShutDownEventHandler was called from inside the handler; the handler was removed, return from it to finish the shutdown")

// errShutdownCycle is returned by [ShutDownEventHandler] when waiting would
// close a cycle of handlers waiting for each other's shutdown.
var errShutdownCycle = errors.New("event handler shutdown would deadlock: the handler being shut down is itself waiting, directly or indirectly, for the caller's handler to shut down; the handler was removed")

// listenerGoroutines maps the id of every running delivery goroutine to its
// listener, so that ShutDownEventHandler can tell whether it is called from
// inside a handler, and from which one.
var listenerGoroutines sync.Map // uint64 -> *processorListener

// currentListener returns the listener whose delivery goroutine is the
// calling goroutine, or nil.
func currentListener() *processorListener {
	l, ok := listenerGoroutines.Load(currentGoroutineID())
	if !ok {
		return nil
	}
	return l.(*processorListener)
}

// waitShutdown blocks until l's handler will not be called any more. It
// refuses, with an error, to wait when the caller is l's own handler, or a
// handler that l's handler is (through a chain of such waits) waiting for:
// either wait could never end.
func (l *processorListener) waitShutdown() error {
	self := currentListener()
	if self == l {
		return errShutdownFromOwnHandler
	}
	if self != nil {
		// Publish the wait before looking for a cycle: of two handlers
		// that start waiting for each other at the same time, at least
		// one sees the other's wait and backs out.
		self.waitingFor.Store(l)
		defer self.waitingFor.Store(nil)
		for next, hops := l.waitingFor.Load(), 0; next != nil && hops < maxShutdownChain; next, hops = next.waitingFor.Load(), hops+1 {
			if next == self {
				return errShutdownCycle
			}
		}
	}
	<-l.runFinished
	return nil
}

// maxShutdownChain bounds the walk along waitingFor; chains are short in
// practice and a cycle that does not involve the caller cannot form.
const maxShutdownChain = 1 << 16

// currentGoroutineID returns the runtime's id of the calling goroutine, read
// from the header of its stack trace ("goroutine 42 [running]:"). It is only
// called when a delivery goroutine starts and in ShutDownEventHandler.
func currentGoroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
