package wait

import (
	"math/rand/v2"
	"time"
)

// Jitter returns duration plus a random extra drawn uniformly from
// [0, maxFactor*duration): a result in [duration, duration*(1+maxFactor)).
// A maxFactor of zero or less means 1.0, doubling the range. Jittering keeps
// clients that start together from converging on the same schedule. Safe for
// concurrent use.
func Jitter(duration time.Duration, maxFactor float64) time.Duration {
	return jitter(duration, maxFactor, rand.Float64)
}

// jitter is Jitter with the random source, returning values in [0, 1), as a
// parameter.
func jitter(duration time.Duration, maxFactor float64, random func() float64) time.Duration {
	if maxFactor <= 0.0 {
		maxFactor = 1.0
	}
	return duration + time.Duration(random()*maxFactor*float64(duration))
}
