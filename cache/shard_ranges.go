package cache

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/sharding"

	"github.com/informer-go/informer/internal/shardselector"
)

// hashSpaceEnd is the exclusive upper bound of the 64-bit hash space, 2^64,
// as shard selectors write it.
const hashSpaceEnd = shardselector.HashSpaceEnd

// hashRange is a non-empty range of the 64-bit hash space, both bounds
// included, so that the whole space fits in uint64.
type hashRange struct {
	first, last uint64
}

// hashRanges is a set of hashes: ranges sorted by first, disjoint and not
// adjacent (normalize makes them so). The zero value is the empty set.
type hashRanges []hashRange

// fullHashRange is the whole hash space.
var fullHashRange = hashRange{first: 0, last: math.MaxUint64}

// normalize returns the ranges sorted, with overlapping and adjacent ranges
// merged. It does not modify rs.
func normalize(rs []hashRange) hashRanges {
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b hashRange) int {
		switch {
		case a.first < b.first:
			return -1
		case a.first > b.first:
			return 1
		default:
			return 0
		}
	})
	var out hashRanges
	for _, r := range sorted {
		if n := len(out); n > 0 && (out[n-1].last == math.MaxUint64 || r.first <= out[n-1].last+1) {
			out[n-1].last = max(out[n-1].last, r.last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// union returns the hashes in rs or in other.
func (rs hashRanges) union(other hashRanges) hashRanges {
	return normalize(append(slices.Clone(rs), other...))
}

// minus returns the hashes in rs but not in other.
func (rs hashRanges) minus(other hashRanges) hashRanges {
	var out hashRanges
	for _, r := range rs {
		pieces := []hashRange{r}
		for _, o := range other {
			var next []hashRange
			for _, p := range pieces {
				next = append(next, p.cut(o)...)
			}
			pieces = next
		}
		out = append(out, pieces...)
	}
	return normalize(out)
}

// cut returns what remains of r once o is taken out: zero, one or two
// ranges.
func (r hashRange) cut(o hashRange) []hashRange {
	if o.last < r.first || o.first > r.last {
		return []hashRange{r}
	}
	var out []hashRange
	if o.first > r.first {
		out = append(out, hashRange{first: r.first, last: o.first - 1})
	}
	if o.last < r.last {
		out = append(out, hashRange{first: o.last + 1, last: r.last})
	}
	return out
}

// requirements renders the set as shard range requirements on key, in
// canonical form: 16 lowercase hex digits, the end of the space written
// as 2^64.
func (rs hashRanges) requirements(key string) []sharding.ShardRangeRequirement {
	reqs := make([]sharding.ShardRangeRequirement, len(rs))
	for i, r := range rs {
		end := hashSpaceEnd
		if r.last != math.MaxUint64 {
			end = formatHash(r.last + 1)
		}
		reqs[i] = sharding.ShardRangeRequirement{Key: key, Start: formatHash(r.first), End: end}
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
	if end && s == hashSpaceEnd {
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
func rangeOf(req sharding.ShardRangeRequirement) (hashRange, error) {
	start, _, err := parseHashBound(req.Start, false)
	if err != nil {
		return hashRange{}, fmt.Errorf("shard range start: %w", err)
	}
	end, isSpaceEnd, err := parseHashBound(req.End, true)
	if err != nil {
		return hashRange{}, fmt.Errorf("shard range end: %w", err)
	}
	if isSpaceEnd {
		return hashRange{first: start, last: math.MaxUint64}, nil
	}
	if end <= start {
		return hashRange{}, fmt.Errorf("shard range start %s must be less than end %s", req.Start, req.End)
	}
	return hashRange{first: start, last: end - 1}, nil
}

// shardSet is a shard selector in the form this package computes with: the
// field it hashes and the set of hashes it selects. An empty key stands for
// everything (no selector).
type shardSet struct {
	key    string
	ranges hashRanges
}

// shardSetOf validates sel as the apiserver would parse its String, and
// converts it. A nil or empty selector selects everything.
func shardSetOf(sel sharding.Selector) (shardSet, error) {
	if sel == nil || sel.Empty() {
		return shardSet{}, nil
	}
	// One home for the rules: what the apiserver would accept.
	if _, err := shardselector.Parse(sel.String()); err != nil {
		return shardSet{}, fmt.Errorf("invalid shard selector: %w", err)
	}
	reqs := sel.Requirements()
	ranges := make([]hashRange, 0, len(reqs))
	for _, req := range reqs {
		r, err := rangeOf(req)
		if err != nil {
			return shardSet{}, err
		}
		ranges = append(ranges, r)
	}
	return shardSet{key: reqs[0].Key, ranges: normalize(ranges)}, nil
}

// everything reports whether the set selects every object.
func (s shardSet) everything() bool {
	return s.key == ""
}

// selector renders the set as a canonical selector: ranges sorted and
// merged. An empty set of ranges cannot be written as a selector; callers
// check for it first.
func (s shardSet) selector() sharding.Selector {
	if s.everything() {
		return sharding.Everything()
	}
	return sharding.NewSelector(s.ranges.requirements(s.key)...)
}

// equal reports whether s and other select the same objects.
func (s shardSet) equal(other shardSet) bool {
	return s.key == other.key && slices.Equal(s.ranges, other.ranges)
}
