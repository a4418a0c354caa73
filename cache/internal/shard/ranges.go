package shard

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/sharding"
)

// Range is a non-empty range of the 64-bit hash space, both bounds
// included, so that the whole space fits in uint64.
type Range struct {
	First, Last uint64
}

// Ranges is a set of hashes: ranges sorted by First, disjoint and not
// adjacent ([Normalize] makes them so). The zero value is the empty set.
type Ranges []Range

// FullRange is the whole hash space.
var FullRange = Range{First: 0, Last: math.MaxUint64}

// Normalize returns the ranges sorted, with overlapping and adjacent ranges
// merged. It does not modify rs.
func Normalize(rs []Range) Ranges {
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b Range) int {
		switch {
		case a.First < b.First:
			return -1
		case a.First > b.First:
			return 1
		default:
			return 0
		}
	})
	var out Ranges
	for _, r := range sorted {
		if n := len(out); n > 0 && (out[n-1].Last == math.MaxUint64 || r.First <= out[n-1].Last+1) {
			out[n-1].Last = max(out[n-1].Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Union returns the hashes in rs or in other.
func (rs Ranges) Union(other Ranges) Ranges {
	return Normalize(append(slices.Clone(rs), other...))
}

// Minus returns the hashes in rs but not in other.
func (rs Ranges) Minus(other Ranges) Ranges {
	var out Ranges
	for _, r := range rs {
		pieces := []Range{r}
		for _, o := range other {
			var next []Range
			for _, p := range pieces {
				next = append(next, p.cut(o)...)
			}
			pieces = next
		}
		out = append(out, pieces...)
	}
	return Normalize(out)
}

// cut returns what remains of r once o is taken out: zero, one or two
// ranges.
func (r Range) cut(o Range) []Range {
	if o.Last < r.First || o.First > r.Last {
		return []Range{r}
	}
	var out []Range
	if o.First > r.First {
		out = append(out, Range{First: r.First, Last: o.First - 1})
	}
	if o.Last < r.Last {
		out = append(out, Range{First: o.Last + 1, Last: r.Last})
	}
	return out
}

// Requirements renders the set as shard range requirements on key, in
// canonical form: 16 lowercase hex digits, the end of the space written
// as 2^64.
func (rs Ranges) Requirements(key string) []sharding.ShardRangeRequirement {
	reqs := make([]sharding.ShardRangeRequirement, len(rs))
	for i, r := range rs {
		end := HashSpaceEnd
		if r.Last != math.MaxUint64 {
			end = formatHash(r.Last + 1)
		}
		reqs[i] = sharding.ShardRangeRequirement{Key: key, Start: formatHash(r.First), End: end}
	}
	return reqs
}

// formatHash writes h as a shard selector bound.
func formatHash(h uint64) string {
	return fmt.Sprintf("0x%016x", h)
}

// parseHashBound reads a shard selector bound: "0x" and 16 lowercase hex
// digits, or 2^64 when end is true.
func parseHashBound(s string, end bool) (value uint64, isSpaceEnd bool, err error) {
	if end && s == HashSpaceEnd {
		return 0, true, nil
	}
	if len(s) != 18 || s[:2] != "0x" {
		return 0, false, fmt.Errorf("bound %q is not 0x followed by 16 hex digits", s)
	}
	for _, c := range s[2:] {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return 0, false, fmt.Errorf("bound %q has a character that is not a lowercase hex digit", s)
		}
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil {
		return 0, false, fmt.Errorf("bound %q: %w", s, err)
	}
	return v, false, nil
}

// rangeOf converts one requirement, checking its bounds as the apiserver
// does.
func rangeOf(req sharding.ShardRangeRequirement) (Range, error) {
	start, _, err := parseHashBound(req.Start, false)
	if err != nil {
		return Range{}, fmt.Errorf("shard range start: %w", err)
	}
	end, isSpaceEnd, err := parseHashBound(req.End, true)
	if err != nil {
		return Range{}, fmt.Errorf("shard range end: %w", err)
	}
	if isSpaceEnd {
		return Range{First: start, Last: math.MaxUint64}, nil
	}
	if end <= start {
		return Range{}, fmt.Errorf("shard range start %s must be less than end %s", req.Start, req.End)
	}
	return Range{First: start, Last: end - 1}, nil
}

// Bounds returns the range of shard index of count: the hash space split
// into count ranges of equal size (to one hash), shard i covering
// [i·2^64/count, (i+1)·2^64/count) rounded down, the last one ending at
// 2^64. It fails unless count >= 1 and 0 <= index < count.
func Bounds(index, count int) (Range, error) {
	if count < 1 || index < 0 || index >= count {
		return Range{}, fmt.Errorf("shard %d of %d does not exist: need count >= 1 and 0 <= index < count", index, count)
	}
	r := Range{First: start(uint64(index), uint64(count)), Last: math.MaxUint64}
	if index+1 < count {
		r.Last = start(uint64(index+1), uint64(count)) - 1
	}
	return r, nil
}

// start returns floor(index·2^64/count), for index < count.
func start(index, count uint64) uint64 {
	q, _ := bits.Div64(index, 0, count) // index < count: the quotient fits
	return q
}

// IndexOf returns which of count shards, split as [Bounds] splits them,
// holds hash. count must be at least 1.
func IndexOf(hash uint64, count int) int {
	// floor(hash·count/2^64) is the index, or one less when hash is at
	// the rounded-down start of the next shard.
	hi, _ := bits.Mul64(hash, uint64(count))
	index := int(hi)
	if index+1 < count && hash >= start(uint64(index+1), uint64(count)) {
		index++
	}
	return index
}
