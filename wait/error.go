package wait

import (
	"context"
	"errors"
)

// ErrWaitTimeout is the error the deprecated Poll* functions and
// [ExponentialBackoff] return when the wait ends before the condition held,
// whether by timeout, exhausted steps or a closed stop channel. Its message
// is "timed out waiting for the condition". It is an interrupted error:
// prefer [Interrupted] over comparing against it.
//
// Deprecated: test for it with [Interrupted] and create such errors with
// [ErrorInterrupted].
var ErrWaitTimeout = ErrorInterrupted(errors.New("timed out waiting for the condition"))

// Interrupted reports whether err says that a wait ended for a reason other
// than its condition: true if err (or any error it wraps) was made by
// [ErrorInterrupted] (which includes [ErrWaitTimeout]) or is
// context.Canceled or context.DeadlineExceeded.
func Interrupted(err error) bool {
	return errors.Is(err, errWaitTimeout) ||
		errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded)
}

// ErrorInterrupted returns an error that [Interrupted] recognises, with the
// message and unwrap chain of cause. A nil cause gives an error with the
// message "timed out waiting for the condition"; a cause that is already
// such an error is returned unchanged. The result matches [ErrWaitTimeout]
// under errors.Is only if it is ErrWaitTimeout itself.
func ErrorInterrupted(cause error) error {
	if e, ok := cause.(errInterrupted); ok {
		return e
	}
	return errInterrupted{cause: cause}
}

// errInterrupted marks a wait that ended without its condition. It is a
// comparable value type: errWaitTimeout, the zero value, is the sentinel
// every errInterrupted matches under errors.Is.
type errInterrupted struct {
	cause error
}

// errWaitTimeout is the target Interrupted looks for.
var errWaitTimeout = errInterrupted{}

func (e errInterrupted) Unwrap() error { return e.cause }

func (e errInterrupted) Is(target error) bool { return target == errWaitTimeout }

func (e errInterrupted) Error() string {
	if e.cause == nil {
		return "timed out waiting for the condition"
	}
	return e.cause.Error()
}
