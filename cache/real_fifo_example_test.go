package cache_test

import (
	"errors"
	"fmt"

	"github.com/informer-go/informer/cache"
)

// A RealFIFO with atomic events queues a whole relist as one ReplacedAll
// delta; the consumer reconciles it against its own store.
func ExampleRealFIFO() {
	f := cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{AtomicEvents: true})

	_ = f.Replace([]any{pod("web", "1"), pod("db", "1")}, "10")
	_ = f.Delete(pod("cache", "3")) // delivered even though the FIFO never saw it
	f.Close()                       // Pop drains what is queued, then reports ErrFIFOClosed

	for {
		_, err := f.Pop(func(obj any, isInInitialList bool) error {
			d := obj.(cache.Deltas)[0]
			if info, ok := d.Object.(cache.ReplacedAllInfo); ok {
				fmt.Printf("%s at %s: %d objects (initial list: %v)\n", d.Type, info.ResourceVersion, len(info.Objects), isInInitialList)
				return nil
			}
			name, _ := cache.ObjectToName(d.Object)
			fmt.Printf("%s %s (initial list: %v)\n", d.Type, name, isInInitialList)
			return nil
		})
		if errors.Is(err, cache.ErrFIFOClosed) {
			break
		}
	}
	fmt.Println("synced:", f.HasSynced())
	// Output:
	// ReplacedAll at 10: 2 objects (initial list: true)
	// Deleted default/cache (initial list: false)
	// synced: true
}
