package synctrack

import (
	"errors"
	"sync"
	"sync/atomic"
)

// errNoEvaluate is returned by Get when Evaluate is nil.
var errNoEvaluate = errors.New("synctrack: Lazy.Evaluate is nil")

// Lazy caches the value computed by Evaluate. Get computes it on first use and
// returns the cached value afterwards; Notify discards the cache so the next
// Get computes it again. Errors are not cached: a failed evaluation is retried
// by the next Get.
//
// The zero value with Evaluate set is ready to use. Get and Notify are safe
// for concurrent use; concurrent Gets share one evaluation. A Get that
// overlaps a Notify may return the value computed before it. Evaluate must
// not be changed after the first Get.
type Lazy[T any] struct {
	Evaluate func() (T, error)

	generation atomic.Pointer[lazyGeneration[T]] // nil until the first Get
}

// lazyGeneration holds the value of one generation, between two Notify calls.
type lazyGeneration[T any] struct {
	value atomic.Pointer[T] // nil until evaluated successfully
	mu    sync.Mutex        // serializes evaluations
}

// Get returns the cached value, evaluating it first if needed.
func (z *Lazy[T]) Get() (T, error) {
	g := z.generation.Load()
	if g == nil {
		z.generation.CompareAndSwap(nil, &lazyGeneration[T]{})
		g = z.generation.Load()
	}
	if v := g.value.Load(); v != nil {
		return *v, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if v := g.value.Load(); v != nil {
		return *v, nil
	}
	if z.Evaluate == nil {
		var zero T
		return zero, errNoEvaluate
	}
	v, err := z.Evaluate()
	if err == nil {
		g.value.Store(&v)
	}
	return v, err
}

// Notify discards the cached value.
func (z *Lazy[T]) Notify() {
	z.generation.Store(&lazyGeneration[T]{})
}
