package wait

import "time"

// ForeverTestTimeout is how long a test should wait for something that is
// expected to happen "soon": long enough that a loaded machine does not make
// the test flaky, short enough that a broken test does not hang a run.
var ForeverTestTimeout = time.Second * 30

// NeverStop is a stop channel that is never closed, for loops such as
// [Until] that should run for the lifetime of the program.
var NeverStop <-chan struct{} = make(chan struct{})
