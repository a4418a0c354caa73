package snapshot

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	apiruntime "k8s.io/apimachinery/pkg/runtime"
)

// Decoder decodes the bytes of one item into a new object. *codec.Codec is
// one. It must be safe for concurrent use when [Snapshot.Decode] runs more
// than one worker, and must not retain or modify the bytes.
type Decoder interface {
	Decode(b []byte) (apiruntime.Object, error)
}

// decodeChunk is the number of consecutive items a worker takes at once:
// enough to make the shared counter cheap, few enough to balance.
const decodeChunk = 64

// Decode decodes every item with dec, in item order, on up to workers
// goroutines (GOMAXPROCS when workers <= 0; one when there are few items).
// It returns when all workers are done. The first item dec refuses stops
// the decode with a [*LoadError] of [ReasonUndecodable] naming the item; a
// canceled ctx stops it with ctx's error.
func (s *Snapshot) Decode(ctx context.Context, dec Decoder, workers int) ([]apiruntime.Object, error) {
	n := len(s.items)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, (n+decodeChunk-1)/decodeChunk)
	objs := make([]apiruntime.Object, n)
	var (
		next    atomic.Int64 // the first item no worker has taken
		stop    atomic.Bool  // set on the first failure
		errOnce sync.Once
		first   error
	)
	fail := func(err error) {
		errOnce.Do(func() { first = err })
		stop.Store(true)
	}
	work := func() {
		for !stop.Load() {
			if err := ctx.Err(); err != nil {
				fail(err)
				return
			}
			start := int(next.Add(decodeChunk)) - decodeChunk
			if start >= n {
				return
			}
			for i := start; i < min(start+decodeChunk, n); i++ {
				obj, err := dec.Decode(s.items[i])
				if err != nil {
					fail(&LoadError{Path: s.path, Reason: ReasonUndecodable, Err: fmt.Errorf("item %d: %w", i, err)})
					return
				}
				objs[i] = obj
			}
		}
	}
	if workers <= 1 {
		work()
	} else {
		var wg sync.WaitGroup
		for range workers {
			wg.Go(work) // returns when the items run out or on the first failure; waited for below
		}
		wg.Wait()
	}
	if first != nil {
		return nil, first
	}
	return objs, nil
}
