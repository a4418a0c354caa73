package wait

import (
	"context"
	"time"
)

// ContextForChannel returns a context that is done when parentCh is closed:
// its Done channel is parentCh, its Err is context.Canceled once parentCh is
// closed and nil before, and it has no deadline and no values. A nil
// parentCh gives a context that is never done. It lets code that still
// receives a stop channel call context-based APIs.
func ContextForChannel(parentCh <-chan struct{}) context.Context {
	return channelContext{stopCh: parentCh}
}

var _ context.Context = channelContext{}

// channelContext is a context.Context whose cancellation is the closing of
// stopCh.
type channelContext struct {
	stopCh <-chan struct{}
}

func (c channelContext) Done() <-chan struct{} { return c.stopCh }

func (c channelContext) Err() error {
	select {
	case <-c.stopCh:
		return context.Canceled
	default:
		return nil
	}
}

func (c channelContext) Deadline() (time.Time, bool) { return time.Time{}, false }

func (c channelContext) Value(any) any { return nil }
