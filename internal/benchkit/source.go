package benchkit

import (
	"context"
	"errors"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// WatchChanSize is the buffer of a Source's watch channel.
const WatchChanSize = 1024

// errReleased is what List returns once the source let go of its list.
var errReleased = errors.New("the source's list was released after the initial sync; the informer listed again")

// Source is a scripted in-memory ListerWatcher that satisfies the
// ListerWatcher and ListerWatcherWithContext interfaces of this library and
// of client-go by its method set, so that both are fed by the same code at
// the same cost. List serves a prebuilt list, the same object every time;
// every Watch hands out the channel Events, which the benchmark writes
// events into, so a watch never ends by itself and the informer under test
// does one list and one watch.
//
// It opts out of streaming lists, so that both libraries do a plain list
// followed by a watch. Its methods are safe for concurrent use.
type Source struct {
	mu        sync.Mutex
	list      runtime.Object // guarded by mu; nil once released
	watchedAt int64          // guarded by mu; Now() at the first Watch, 0 before
	// Events is the channel of every watch, buffered WatchChanSize events
	// deep. It is never closed.
	Events chan watch.Event
}

// NewSource returns a source that lists list.
func NewSource(list runtime.Object) *Source {
	return &Source{list: list, Events: make(chan watch.Event, WatchChanSize)}
}

// Release drops the source's reference to its list, so that afterwards the
// list's objects are held by the informer alone. A later List fails.
func (s *Source) Release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list = nil
}

// IsWatchListSemanticsUnSupported returns true: it tells both libraries'
// reflectors not to try a streaming list.
func (s *Source) IsWatchListSemanticsUnSupported() bool { return true }

// List returns the list, or an error once the list was released.
func (s *Source) List(metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.list == nil {
		return nil, errReleased
	}
	return s.list, nil
}

// ListWithContext is List.
func (s *Source) ListWithContext(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return s.List(opts)
}

// Watch returns a watch of Events.
func (s *Source) Watch(metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	if s.watchedAt == 0 {
		s.watchedAt = Now()
	}
	s.mu.Unlock()
	return &sourceWatch{ch: s.Events, stopped: make(chan struct{})}, nil
}

// WatchWithContext is Watch.
func (s *Source) WatchWithContext(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return s.Watch(opts)
}

// WatchedAt returns the time ([Now]) of the first call of Watch, or 0.
// Reflectors open their first watch right after their list and start their
// resync timer just before, so a resync period after it their first resync
// begins.
func (s *Source) WatchedAt() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watchedAt
}

// sourceWatch is one watch of a Source. Its channel outlives it: Stop does
// not close it, since the benchmark keeps sending into it.
type sourceWatch struct {
	ch       chan watch.Event
	stopOnce sync.Once
	stopped  chan struct{}
}

func (w *sourceWatch) ResultChan() <-chan watch.Event { return w.ch }
func (w *sourceWatch) Stop()                          { w.stopOnce.Do(func() { close(w.stopped) }) }
