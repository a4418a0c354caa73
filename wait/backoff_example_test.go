package wait_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/informer-go/informer/wait"
)

func ExampleExponentialBackoff() {
	backoff := wait.Backoff{Duration: time.Millisecond, Factor: 2, Steps: 5}
	attempts := 0
	err := wait.ExponentialBackoff(backoff, func() (bool, error) {
		attempts++
		fmt.Println("attempt", attempts)
		return attempts == 3, nil // succeeds on the third attempt
	})
	fmt.Println("err:", err)

	// When every attempt fails the result is an interrupted error.
	err = wait.ExponentialBackoff(wait.Backoff{Duration: time.Millisecond, Steps: 2}, func() (bool, error) {
		return false, nil
	})
	fmt.Println("err:", err, "interrupted:", wait.Interrupted(err))

	// A condition error stops the retries at once and is returned.
	errNotFound := errors.New("not found")
	err = wait.ExponentialBackoff(backoff, func() (bool, error) {
		return false, errNotFound
	})
	fmt.Println("err:", err)
	// Output:
	// attempt 1
	// attempt 2
	// attempt 3
	// err: <nil>
	// err: timed out waiting for the condition interrupted: true
	// err: not found
}

func ExampleBackoff_Step() {
	b := wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Steps: 10, Cap: time.Second}
	var delays []time.Duration
	for range 6 {
		delays = append(delays, b.Step())
	}
	fmt.Println(delays)
	fmt.Println("steps left:", b.Steps) // reaching the cap used them up
	// Output:
	// [100ms 200ms 400ms 800ms 1s 1s]
	// steps left: 0
}
