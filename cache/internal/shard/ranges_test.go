package shard

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/sharding"
)

// rangesModel is the naive reference of a set of hashes: the members of a
// window of span hashes starting at base.
type rangesModel struct {
	base  uint64
	inSet map[uint64]bool
}

// modelSpan is the width of the window the model tests look at.
const modelSpan = 48

// randomRanges returns up to three ranges inside the window at base, not
// normalized, and the model of their union. next yields small numbers.
func randomRanges(base uint64, next func(n uint64) uint64) ([]Range, rangesModel) {
	var rs []Range
	m := rangesModel{base: base, inSet: map[uint64]bool{}}
	for range next(4) {
		first := next(modelSpan)
		last := first + next(modelSpan-first)
		rs = append(rs, Range{First: base + first, Last: base + last})
		for h := first; h <= last; h++ {
			m.inSet[base+h] = true
		}
	}
	return rs, m
}

// checkRanges fails unless got is normalized and holds exactly the hashes
// of the window for which want is true.
func checkRanges(t *testing.T, what string, base uint64, got Ranges, want func(h uint64) bool) {
	t.Helper()
	for i := 1; i < len(got); i++ {
		if got[i-1].Last == math.MaxUint64 || got[i].First <= got[i-1].Last+1 {
			t.Fatalf("%s = %v: not sorted, disjoint and apart", what, got)
		}
	}
	for _, r := range got {
		if r.First > r.Last {
			t.Fatalf("%s = %v: holds an empty range", what, got)
		}
	}
	for off := range uint64(modelSpan) {
		h := base + off
		in := false
		for _, r := range got {
			in = in || (r.First <= h && h <= r.Last)
		}
		if in != want(h) {
			t.Fatalf("%s = %v: hash %#x in it: %v, want %v", what, got, h, in, want(h))
		}
	}
}

// checkUnionMinus checks Normalize, Union and Minus of two random sets
// against the model.
func checkUnionMinus(t *testing.T, base uint64, next func(n uint64) uint64) {
	t.Helper()
	ra, am := randomRanges(base, next)
	rb, bm := randomRanges(base, next)
	a, b := Normalize(ra), Normalize(rb)
	checkRanges(t, "Normalize(a)", base, a, func(h uint64) bool { return am.inSet[h] })
	checkRanges(t, "a ∪ b", base, a.Union(b), func(h uint64) bool { return am.inSet[h] || bm.inSet[h] })
	checkRanges(t, "a \\ b", base, a.Minus(b), func(h uint64) bool { return am.inSet[h] && !bm.inSet[h] })
	checkRanges(t, "b \\ a", base, b.Minus(a), func(h uint64) bool { return bm.inSet[h] && !am.inSet[h] })
}

// TestRangesMatchModel checks Normalize, Union and Minus against a naive
// set over a small part of the hash space, at its start and at its end.
func TestRangesMatchModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	next := func(n uint64) uint64 { return rng.Uint64N(n) }
	for _, base := range []uint64{0, math.MaxUint64 - modelSpan + 1} {
		for range 2000 {
			checkUnionMinus(t, base, next)
		}
	}
}

// FuzzRanges is TestRangesMatchModel with the fuzzer choosing the window
// and the ranges.
func FuzzRanges(f *testing.F) {
	f.Add(false, []byte{3, 1, 5, 2, 0, 9, 9, 4, 40, 7})
	f.Add(true, []byte{2, 47, 0, 0, 47, 1, 20, 10})
	f.Fuzz(func(t *testing.T, atEnd bool, data []byte) {
		src := byteSource(data)
		next := func(n uint64) uint64 { return uint64(src(int(n))) }
		base := uint64(0)
		if atEnd {
			base = math.MaxUint64 - modelSpan + 1
		}
		checkUnionMinus(t, base, next)
	})
}

// TestBoundsSplitEvenly checks every split up to 64 shards: the ranges
// follow each other from 0 to 2^64 and differ in size by at most one hash.
func TestBoundsSplitEvenly(t *testing.T) {
	for count := 1; count <= 64; count++ {
		next := uint64(0)
		var smallest, largest uint64 = math.MaxUint64, 0
		for index := range count {
			r, err := Bounds(index, count)
			if err != nil {
				t.Fatal(err)
			}
			if r.First != next {
				t.Fatalf("shard %d of %d starts at %#x, want %#x", index, count, r.First, next)
			}
			size := r.Last - r.First // one less than the size, which may be 2^64
			smallest, largest = min(smallest, size), max(largest, size)
			next = r.Last + 1
			if index == count-1 && r.Last != math.MaxUint64 {
				t.Fatalf("the last of %d shards ends at %#x", count, r.Last)
			}
		}
		if largest-smallest > 1 {
			t.Errorf("%d shards: sizes differ by %d", count, largest-smallest)
		}
	}
}

func TestBoundsRefusesMissingShards(t *testing.T) {
	for _, tc := range []struct{ index, count int }{{0, 0}, {-1, 2}, {2, 2}, {0, -3}} {
		if r, err := Bounds(tc.index, tc.count); err == nil {
			t.Errorf("Bounds(%d, %d) = %v, want an error", tc.index, tc.count, r)
		}
	}
}

// FuzzBoundsIndexOf checks, for any hash and count, that IndexOf names the
// shard whose Bounds hold the hash, and that the bounds of that shard map
// back to it.
func FuzzBoundsIndexOf(f *testing.F) {
	f.Add(uint64(0), uint16(1))
	f.Add(uint64(math.MaxUint64), uint16(3))
	f.Add(uint64(0x5555555555555555), uint16(3))
	f.Add(uint64(0xaaaaaaaaaaaaaaaa), uint16(3))
	f.Fuzz(func(t *testing.T, hash uint64, n uint16) {
		count := int(n) + 1
		i := IndexOf(hash, count)
		if i < 0 || i >= count {
			t.Fatalf("IndexOf(%#x, %d) = %d: no such shard", hash, count, i)
		}
		r, err := Bounds(i, count)
		if err != nil {
			t.Fatal(err)
		}
		if hash < r.First || hash > r.Last {
			t.Fatalf("IndexOf(%#x, %d) = %d, whose bounds are [%#x, %#x]", hash, count, i, r.First, r.Last)
		}
		for _, h := range []uint64{r.First, r.Last} {
			if got := IndexOf(h, count); got != i {
				t.Fatalf("IndexOf(%#x, %d) = %d, want %d (a bound of shard %d)", h, count, got, i, i)
			}
		}
	})
}

// TestRequirementsRoundTrip checks that a set of ranges written as
// requirements parses back, through a selector, to the same set.
func TestRequirementsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		var rs []Range
		for range 1 + rng.IntN(4) {
			a, b := rng.Uint64(), rng.Uint64()
			if rng.IntN(4) == 0 {
				b = math.MaxUint64
			}
			rs = append(rs, Range{First: min(a, b), Last: max(a, b)})
		}
		want := Set{Key: KeyUID, Ranges: Normalize(rs)}
		got, err := SetOf(want.Selector())
		if err != nil {
			t.Fatalf("SetOf(%v): %v", want.Selector(), err)
		}
		if !got.Equal(want) {
			t.Fatalf("SetOf(%v) = %v, want %v", want.Selector(), got, want)
		}
	}
}

// FuzzParseHashBound checks that a bound parses exactly when it is "0x" and
// 16 lowercase hex digits (or 2^64 at an end), and then formats back to
// itself.
func FuzzParseHashBound(f *testing.F) {
	for _, seed := range []string{"0x0000000000000000", HashSpaceEnd, "0xFFFFFFFFFFFFFFFF", "0x1", "", "0x+000000000000001"} {
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, s string, end bool) {
		v, isEnd, err := parseHashBound(s, end)
		canonical := len(s) == 18 && strings.HasPrefix(s, "0x") && strings.Trim(s[2:], "0123456789abcdef") == ""
		switch {
		case end && s == HashSpaceEnd:
			if err != nil || !isEnd {
				t.Fatalf("parseHashBound(%q, true) = %v, %v; want the end of the space", s, isEnd, err)
			}
		case canonical:
			if err != nil || isEnd || formatHash(v) != s {
				t.Fatalf("parseHashBound(%q) = %#x, %v, %v", s, v, isEnd, err)
			}
		case err == nil:
			t.Fatalf("parseHashBound(%q, %v) accepted it", s, end)
		}
	})
}

func TestSetOf(t *testing.T) {
	everything, err := SetOf(nil)
	if err != nil || !everything.Everything() {
		t.Fatalf("SetOf(nil) = %v, %v; want everything", everything, err)
	}
	if got, err := SetOf(sharding.Everything()); err != nil || !got.Everything() {
		t.Fatalf("SetOf(Everything()) = %v, %v; want everything", got, err)
	}
	// Two ranges written apart but adjacent, out of order: one range.
	sel := sharding.NewSelector(
		sharding.ShardRangeRequirement{Key: KeyNamespace, Start: "0x8000000000000000", End: HashSpaceEnd},
		sharding.ShardRangeRequirement{Key: KeyNamespace, Start: "0x0000000000000000", End: "0x8000000000000000"},
	)
	got, err := SetOf(sel)
	if err != nil {
		t.Fatal(err)
	}
	want := Set{Key: KeyNamespace, Ranges: Ranges{FullRange}}
	if !got.Equal(want) {
		t.Fatalf("SetOf(%v) = %v, want %v", sel, got, want)
	}
	for _, bad := range []sharding.Selector{
		sharding.NewSelector(sharding.ShardRangeRequirement{Key: "object.metadata.name", Start: "0x0000000000000000", End: HashSpaceEnd}),
		sharding.NewSelector(sharding.ShardRangeRequirement{Key: KeyUID, Start: "0x8000000000000000", End: "0x0000000000000000"}),
		sharding.NewSelector(sharding.ShardRangeRequirement{Key: KeyUID, Start: "0x00", End: HashSpaceEnd}),
		sharding.NewSelector(
			sharding.ShardRangeRequirement{Key: KeyUID, Start: "0x0000000000000000", End: HashSpaceEnd},
			sharding.ShardRangeRequirement{Key: KeyNamespace, Start: "0x0000000000000000", End: HashSpaceEnd},
		),
	} {
		if got, err := SetOf(bad); err == nil {
			t.Errorf("SetOf(%v) = %v, want an error", bad, got)
		}
	}
}
