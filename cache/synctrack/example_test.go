package synctrack_test

import (
	"fmt"

	"github.com/informer-go/informer/cache/synctrack"
)

func ExampleLazy() {
	version := 0
	z := synctrack.Lazy[string]{Evaluate: func() (string, error) {
		version++
		return fmt.Sprintf("config v%d", version), nil
	}}
	a, _ := z.Get()
	b, _ := z.Get()
	z.Notify() // the inputs changed
	c, _ := z.Get()
	fmt.Println(a, b, c)
	// Output: config v1 config v1 config v2
}

func ExampleSingleFileTracker() {
	tracker := synctrack.NewSingleFileTracker("my handler")
	tracker.Start() // an object of the initial list is queued for the handler
	tracker.UpstreamHasSynced()
	fmt.Println("synced before handling:", tracker.HasSynced())
	tracker.Finished() // the handler returned
	<-tracker.Done()
	fmt.Println("synced after handling:", tracker.HasSynced())
	// Output:
	// synced before handling: false
	// synced after handling: true
}
