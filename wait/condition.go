package wait

import (
	"context"
	"errors"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// ConditionFunc reports whether a polled condition holds (done) or whether
// the wait must stop with an error.
type ConditionFunc func() (done bool, err error)

// ConditionWithContextFunc is a [ConditionFunc] that receives the context of
// the wait; a long-running check should honour its cancellation.
type ConditionWithContextFunc func(context.Context) (done bool, err error)

// WithContext returns cf as a [ConditionWithContextFunc] that ignores its
// context. A nil cf gives a nil function.
func (cf ConditionFunc) WithContext() ConditionWithContextFunc {
	if cf == nil {
		return nil
	}
	return func(context.Context) (done bool, err error) {
		return cf()
	}
}

var (
	errNilContext   = errors.New("wait: nil context")
	errNilCondition = errors.New("wait: nil condition")
)

// checkArgs returns the error for a nil context or condition.
func checkArgs(ctx context.Context, condition ConditionWithContextFunc) error {
	if ctx == nil {
		return errNilContext
	}
	if condition == nil {
		return errNilCondition
	}
	return nil
}

// runCondition calls condition with ctx; a panic is logged and, with the
// default utilruntime.ReallyCrash, propagated.
func runCondition(ctx context.Context, condition ConditionWithContextFunc) (bool, error) {
	defer utilruntime.HandleCrashWithContext(ctx)
	return condition(ctx)
}
