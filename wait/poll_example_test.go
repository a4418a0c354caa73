package wait_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/informer-go/informer/wait"
)

func ExamplePollUntilContextTimeout() {
	ctx := context.Background()
	checks := 0
	// With immediate set the condition is checked at once, then every
	// interval, until it holds.
	err := wait.PollUntilContextTimeout(ctx, time.Millisecond, wait.ForeverTestTimeout, true, func(context.Context) (bool, error) {
		checks++
		return checks == 3, nil
	})
	fmt.Println("err:", err, "after", checks, "checks")

	// A condition that never holds ends with the context's error.
	err = wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Millisecond, false, func(context.Context) (bool, error) {
		return false, nil
	})
	fmt.Println("deadline exceeded:", errors.Is(err, context.DeadlineExceeded), "interrupted:", wait.Interrupted(err))
	// Output:
	// err: <nil> after 3 checks
	// deadline exceeded: true interrupted: true
}
