package wait

import (
	"context"
	"sync"
)

// Group starts goroutines and waits for all of them to return. The zero
// value is ready to use; a Group must not be copied after first use.
//
// Start and its variants are safe for concurrent use, with the rule of
// sync.WaitGroup: a Start that happens while no started goroutine is running
// must happen before Wait is called, so start everything before waiting (or
// from a goroutine of the group). A panic in a started function is not
// recovered and ends the program, like any panic in a goroutine.
type Group struct {
	wg sync.WaitGroup
}

// Wait blocks until every function started in the group has returned.
func (g *Group) Wait() {
	g.wg.Wait()
}

// StartWithChannel runs f(stopCh) in a new goroutine of the group; f should
// return once stopCh is closed. A nil f starts nothing.
func (g *Group) StartWithChannel(stopCh <-chan struct{}, f func(stopCh <-chan struct{})) {
	if f == nil {
		return
	}
	g.Start(func() { f(stopCh) })
}

// StartWithContext runs f(ctx) in a new goroutine of the group; f should
// return once ctx is done. A nil f starts nothing.
func (g *Group) StartWithContext(ctx context.Context, f func(context.Context)) {
	if f == nil {
		return
	}
	g.Start(func() { f(ctx) })
}

// Start runs f in a new goroutine of the group. A nil f starts nothing.
func (g *Group) Start(f func()) {
	if f == nil {
		return
	}
	g.wg.Go(f) // exits when f returns; Wait waits on wg
}
