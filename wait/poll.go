package wait

import (
	"context"
	"time"
)

// PollUntilContextCancel calls condition every interval until it returns
// true (nil is returned) or an error (returned as is), or ctx is done
// (ctx.Err() is returned, which [Interrupted] recognises). Without
// immediate the first call happens after one interval; with immediate,
// condition is called once at once, even if ctx is already done. Intervals
// are measured from the start of each call: if condition takes longer than
// interval the next call follows immediately. An interval of zero or less
// calls condition back to back. With very short intervals condition may be
// called again after ctx is done but before that is noticed. Blocks until
// it returns; a nil ctx or condition is an error.
func PollUntilContextCancel(ctx context.Context, interval time.Duration, immediate bool, condition ConditionWithContextFunc) error {
	return loopConditionUntilContext(ctx, Backoff{Duration: interval}.Timer(), immediate, false, condition)
}

// PollUntilContextTimeout is [PollUntilContextCancel] with ctx bounded by
// timeout, as with context.WithTimeout: when the timeout expires first it
// returns context.DeadlineExceeded. The derived context, which condition
// receives, is cancelled on return.
func PollUntilContextTimeout(ctx context.Context, interval, timeout time.Duration, immediate bool, condition ConditionWithContextFunc) error {
	if err := checkArgs(ctx, condition); err != nil {
		return err
	}
	deadlineCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return loopConditionUntilContext(deadlineCtx, Backoff{Duration: interval}.Timer(), immediate, false, condition)
}
