package shard

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/sharding"
)

// Set is a shard selector in the form this package computes with: the
// field it hashes and the set of hashes it selects. The zero value, with
// an empty Key, stands for everything (no selector).
type Set struct {
	// Key is the field hashed, [KeyUID] or [KeyNamespace]; "" for
	// everything.
	Key string
	// Ranges are the hashes selected, normalized (see [Normalize]).
	Ranges Ranges
}

// SetOf validates sel as the apiserver would parse its String, and
// converts it. A nil or empty selector selects everything.
func SetOf(sel sharding.Selector) (Set, error) {
	if sel == nil || sel.Empty() {
		return Set{}, nil
	}
	// One home for the rules: what the apiserver would accept.
	if _, err := Parse(sel.String()); err != nil {
		return Set{}, fmt.Errorf("invalid shard selector: %w", err)
	}
	reqs := sel.Requirements()
	ranges := make([]Range, 0, len(reqs))
	for _, req := range reqs {
		r, err := rangeOf(req)
		if err != nil {
			return Set{}, err
		}
		ranges = append(ranges, r)
	}
	return Set{Key: reqs[0].Key, Ranges: Normalize(ranges)}, nil
}

// Everything reports whether the set selects every object.
func (s Set) Everything() bool {
	return s.Key == ""
}

// Selector renders the set as a canonical selector: ranges sorted and
// merged. An empty set of ranges cannot be written as a selector; callers
// check for it first.
func (s Set) Selector() sharding.Selector {
	if s.Everything() {
		return sharding.Everything()
	}
	return sharding.NewSelector(s.Ranges.Requirements(s.Key)...)
}

// Equal reports whether s and other select the same objects.
func (s Set) Equal(other Set) bool {
	return s.Key == other.Key && slices.Equal(s.Ranges, other.Ranges)
}
