package podtest

import "testing"

// Loop runs f once per iteration of b.Loop on a Pod fresh from decode,
// cycling over the Pods ids and decoding them again, with the timer
// stopped, once f has had them all: f always gets an object no earlier
// iteration touched, as an informer gets objects from its decoder.
func Loop(b *testing.B, ids []int, decode func(i int) any, f func(obj any)) {
	pool := make([]any, len(ids))
	refill := func() {
		for k, i := range ids {
			pool[k] = decode(i)
		}
	}
	refill()
	b.ReportAllocs()
	k := 0
	for b.Loop() {
		if k == len(pool) {
			b.StopTimer()
			refill()
			b.StartTimer()
			k = 0
		}
		f(pool[k])
		k++
	}
}
