package wait_test

import (
	"fmt"
	"time"

	"github.com/informer-go/informer/wait"
)

func ExampleUntil() {
	stop := make(chan struct{})
	runs := 0
	// Until runs f at once, then again one period after each run returns,
	// until stop is closed. Closing it from f ends the loop without
	// another run.
	wait.Until(func() {
		runs++
		fmt.Println("run", runs)
		if runs == 3 {
			close(stop)
		}
	}, time.Millisecond, stop)
	fmt.Println("stopped after", runs, "runs")
	// Output:
	// run 1
	// run 2
	// run 3
	// stopped after 3 runs
}
