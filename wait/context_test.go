package wait

import (
	"context"
	"testing"
	"time"
)

func TestContextForChannel(t *testing.T) {
	ch := make(chan struct{})
	ctx := ContextForChannel(ch)
	if ctx.Done() != (<-chan struct{})(ch) {
		t.Errorf("Done() is not the parent channel")
	}
	if err := ctx.Err(); err != nil {
		t.Errorf("Err() before close = %v, want nil", err)
	}
	if d, ok := ctx.Deadline(); ok || !d.IsZero() {
		t.Errorf("Deadline() = %v, %t; want zero, false", d, ok)
	}
	if v := ctx.Value("key"); v != nil {
		t.Errorf("Value() = %v, want nil", v)
	}

	child, cancel := context.WithCancel(ctx)
	defer cancel()
	close(ch)
	if err := ctx.Err(); err != context.Canceled {
		t.Errorf("Err() after close = %v, want context.Canceled", err)
	}
	select {
	case <-child.Done():
	case <-time.After(ForeverTestTimeout):
		t.Fatal("a derived context was not cancelled when the channel closed")
	}
	if err := child.Err(); err != context.Canceled {
		t.Errorf("derived Err() = %v, want context.Canceled", err)
	}
}

func TestContextForNilChannel(t *testing.T) {
	ctx := ContextForChannel(nil)
	if ctx.Done() != nil || ctx.Err() != nil {
		t.Errorf("ContextForChannel(nil): Done() = %v, Err() = %v; want a context that is never done", ctx.Done(), ctx.Err())
	}
}
