package framework

import (
	"context"
	"sync"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

var synctestErrorHandlers sync.Once

// SetSynctestErrorHandlers makes apimachinery's process-wide error handlers
// (utilruntime.ErrorHandlers) safe for informers that run inside a
// testing/synctest bubble. It replaces the list with one handler that logs
// each error as the default one does (an error named "UnhandledError", on the
// logger of the context) and leaves out the default rate limiter.
//
// That limiter sleeps until a millisecond has passed since the previous error,
// by time.Now. Inside a bubble time.Now is the bubble's clock, which starts at
// midnight UTC 2000-01-01, while the previous error's time is a wall-clock
// time (or another bubble's), so the first error an informer reports in a
// bubble, such as a failed list or watch, sleeps for years of the bubble's
// time: the test hangs. Informers report such errors through
// utilruntime.HandleErrorWithContext, as client-go's do, so that handlers of
// the program's own see them; the library cannot step around the limiter.
//
// Call it before any test reports an error, in TestMain or in an init
// function of a _test.go file: the limiter is process-wide, so the
// replacement is too, and tests in bubbles may run in parallel. It is not
// undone. Handlers appended to the list afterwards are kept; calling it again
// does nothing. It is not part of client-go's API.
func SetSynctestErrorHandlers() {
	synctestErrorHandlers.Do(func() {
		utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{logUnhandledError}
	})
}

// logUnhandledError logs err the way apimachinery's default handler does. The
// call depth skips HandleError*, utilruntime's dispatch and this function, so
// that the log names the caller of HandleError*.
func logUnhandledError(ctx context.Context, err error, msg string, keysAndValues ...any) {
	logger := klog.LoggerWithName(klog.FromContext(ctx).WithCallDepth(3), "UnhandledError")
	logger.Error(err, msg, keysAndValues...)
}
