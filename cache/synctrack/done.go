package synctrack

import "sync"

// doneSignal is a channel closed at most once.
type doneSignal struct {
	once sync.Once
	ch   chan struct{}
}

func newDoneSignal() doneSignal {
	return doneSignal{ch: make(chan struct{})}
}

// close closes the channel; later calls do nothing.
func (d *doneSignal) close() {
	d.once.Do(func() { close(d.ch) })
}

// isClosed reports, without blocking, whether close was called.
func (d *doneSignal) isClosed() bool {
	select {
	case <-d.ch:
		return true
	default:
		return false
	}
}
