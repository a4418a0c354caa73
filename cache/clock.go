package cache

import "k8s.io/utils/clock"

// realClock is the clock of components built without one, and the real
// time that carries the timers an injected clock does not (see the
// package documentation, "Clocks").
var realClock clock.Clock = clock.RealClock{}
