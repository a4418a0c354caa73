package cache

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestHashRangesModel checks union and minus against a naive set over a
// small part of the hash space, and at its end.
func TestHashRangesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const span = 48
	for _, base := range []uint64{0, math.MaxUint64 - span + 1} {
		randomSet := func() (hashRanges, map[uint64]bool) {
			var rs []hashRange
			model := map[uint64]bool{}
			for range rng.IntN(4) {
				first := rng.Uint64N(span)
				last := first + rng.Uint64N(span-first)
				rs = append(rs, hashRange{first: base + first, last: base + last})
				for h := first; h <= last; h++ {
					model[base+h] = true
				}
			}
			return normalize(rs), model
		}
		for range 2000 {
			a, am := randomSet()
			b, bm := randomSet()
			check := func(what string, got hashRanges, want func(h uint64) bool) {
				t.Helper()
				for i := 1; i < len(got); i++ {
					if got[i-1].last == math.MaxUint64 || got[i].first <= got[i-1].last+1 {
						t.Fatalf("%s of %v and %v = %v: not sorted, disjoint and apart", what, a, b, got)
					}
				}
				for off := range uint64(span) {
					h := base + off
					in := false
					for _, r := range got {
						in = in || (r.first <= h && h <= r.last)
					}
					if in != want(h) {
						t.Fatalf("%s of %v and %v = %v: hash %#x in it: %v, want %v", what, a, b, got, h, in, want(h))
					}
				}
			}
			check("union", a.union(b), func(h uint64) bool { return am[h] || bm[h] })
			check("minus", a.minus(b), func(h uint64) bool { return am[h] && !bm[h] })
		}
	}
}
