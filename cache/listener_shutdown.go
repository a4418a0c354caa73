package cache

import (
	"errors"
	"reflect"
	"runtime"
)

// errShutdownFromHandler is returned by [ShutDownEventHandler] when it is
// called from inside an event handler while the handler being shut down is
// in a call: the caller may be that very call, or a handler that the call is
// waiting for, and waiting could then never end.
var errShutdownFromHandler = errors.New("event handler shutdown called from inside an event handler while the handler to shut down is running: waiting could deadlock; the handler was removed and is not called again once its current call returns")

// waitShutdown blocks until l's handler will not be called any more: its
// call in progress, if any, has returned. l must have been stopped.
//
// A handler that waits for its own shutdown, or two handlers that wait for
// each other's, would wait forever. A goroutine does not know which
// listener's delivery it runs, so the wait is refused, with
// errShutdownFromHandler, whenever the caller runs inside any handler's call
// while l is delivering. When l is not delivering, it will not start another
// call (it was stopped before delivering was read, and run reads dropping
// after setting delivering), so the wait ends without any help from the
// caller.
func (l *processorListener) waitShutdown() error {
	if l.delivering.Load() && calledFromHandler() {
		select {
		case <-l.runFinished:
			return nil
		default:
			return errShutdownFromHandler
		}
	}
	<-l.runFinished
	return nil
}

// deliveryLoop is the name of the function that runs on every listener's
// delivery goroutine and calls its handler.
var deliveryLoop = runtime.FuncForPC(reflect.ValueOf((*processorListener).run).Pointer()).Name()

// calledFromHandler reports whether the calling goroutine is a listener's
// delivery goroutine, that is, whether it runs inside an event handler's
// call: whether deliveryLoop is one of its frames.
func calledFromHandler() bool {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(2, pcs)
	for n == len(pcs) { // deliveryLoop is at the bottom: take the whole stack
		pcs = make([]uintptr, 2*len(pcs))
		n = runtime.Callers(2, pcs)
	}
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function == deliveryLoop {
			return true
		}
		if !more {
			return false
		}
	}
}
