package wait

import (
	"context"
	"time"
)

// loopConditionUntilContext is the loop behind every context-based poll: it
// calls condition with the waits given by t until condition returns true
// (nil is returned) or an error (returned as is), or ctx is done (ctx.Err()
// is returned). With immediate, condition is called once before the first
// wait, even if ctx is already done; without, the loop waits first. With
// sliding the next interval starts after condition returns; without, it
// starts before condition is called. t is stopped on return.
func loopConditionUntilContext(ctx context.Context, t Timer, immediate, sliding bool, condition ConditionWithContextFunc) error {
	defer t.Stop()
	if err := checkArgs(ctx, condition); err != nil {
		return err
	}

	var timeCh <-chan time.Time
	doneCh := ctx.Done()

	if !sliding {
		timeCh = t.C()
	}
	if immediate {
		if ok, err := runCondition(ctx, condition); err != nil || ok {
			return err
		}
	}
	if sliding {
		timeCh = t.C()
	}

	for {
		select {
		case <-doneCh:
			return ctx.Err()
		case <-timeCh:
		}
		// select picks at random among ready cases, so a short interval can
		// keep winning over a done context: check it before every call.
		if err := ctx.Err(); err != nil {
			return err
		}

		if !sliding {
			t.Next()
		}
		if ok, err := runCondition(ctx, condition); err != nil || ok {
			return err
		}
		if sliding {
			t.Next()
		}
	}
}
