package cache

import (
	"errors"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/sharding"

	"github.com/informer-go/informer/cache/internal/shard"
)

// The fields a shard selector can hash, written as the apiserver's
// shardRange() expects them (object-rooted, unlike field selectors).
const (
	// ShardKeyUID spreads objects by their uid: even shards whatever the
	// names and namespaces.
	ShardKeyUID = shard.KeyUID
	// ShardKeyNamespace keeps the objects of a namespace in one shard.
	ShardKeyNamespace = shard.KeyNamespace
)

// ParseShardSelector parses a shard selector as kube-apiserver parses
// [metav1.ListOptions.ShardSelector]: shardRange(field, 'start', 'end')
// calls joined by ||, where field is [ShardKeyUID] or [ShardKeyNamespace],
// and start and end are quoted "0x" and 16 lowercase hex digits with
// start < end (end may be '0x10000000000000000', 2^64). Parentheses, any
// whitespace and // comments are allowed, as in CEL. The requirements keep
// the order they are written in, so that the selector's String is what the
// apiserver echoes in [metav1.ListMeta.ShardInfo].
//
// kube-apiserver parses the expression with CEL, which this module does
// not depend on. ParseShardSelector reads CEL's expression syntax
// (identifiers, field selection, calls, literals, lists, maps, message
// literals and operators) and applies the apiserver's rules to the result,
// with the apiserver's error messages. It refuses, rather than guess, the
// few CEL forms it does not read: escape sequences in string literals and
// backquoted field names. For those and other syntax errors, the text after
// "CEL parse error: Syntax error:" differs from CEL's. An empty or blank selector is an error: omit the
// parameter instead.
func ParseShardSelector(selector string) (sharding.Selector, error) {
	return shard.Parse(selector)
}

// ShardSelectorFor returns the selector of shard index of count on key
// ([ShardKeyUID] or [ShardKeyNamespace]): the 64-bit hash space split into
// count ranges of equal size (to one hash), shard i covering
// [i·2^64/count, (i+1)·2^64/count) rounded down, the last one ending at
// 2^64. The count shards of one count are disjoint and together cover every
// object. It fails unless count >= 1 and 0 <= index < count.
//
// The selector's String is what [metav1.ListOptions.ShardSelector] takes,
// e.g. for shard 1 of 2:
//
//	shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')
func ShardSelectorFor(key string, index, count int) (sharding.Selector, error) {
	if !shard.IsKey(key) {
		return nil, fmt.Errorf("shard selector: unsupported field %q; supported: %s, %s", key, ShardKeyUID, ShardKeyNamespace)
	}
	r, err := shard.Bounds(index, count)
	if err != nil {
		return nil, fmt.Errorf("shard selector: %w", err)
	}
	return shard.Set{Key: key, Ranges: shard.Ranges{r}}.Selector(), nil
}

// UnionShardSelectors returns a selector matching every object that one of
// selectors matches, in canonical form: its ranges sorted and merged, so
// that the union of shards 0 and 1 of 4 is written as shard 0 of 2. A nil
// or empty selector matches everything, and so does the union. All others
// must hash the same field. Selectors not made by this package are
// validated as [ParseShardSelector] would. At least one selector is needed:
// the empty union selects nothing, which no selector can say.
func UnionShardSelectors(selectors ...sharding.Selector) (sharding.Selector, error) {
	if len(selectors) == 0 {
		return nil, errors.New("union of shard selectors: no selector given")
	}
	var union shard.Set
	for i, sel := range selectors {
		s, err := shard.SetOf(sel)
		if err != nil {
			return nil, fmt.Errorf("union of shard selectors: selector %d: %w", i, err)
		}
		if s.Everything() {
			return sharding.Everything(), nil
		}
		if i > 0 && s.Key != union.Key {
			return nil, fmt.Errorf("union of shard selectors: all shard ranges must use the same field, got %q and %q", union.Key, s.Key)
		}
		union = shard.Set{Key: s.Key, Ranges: union.Ranges.Union(s.Ranges)}
	}
	return union.Selector(), nil
}

// ShardHash returns the hash the apiserver places an object by: 64-bit
// FNV-1a of value, the object's uid or namespace (see
// [sharding.HashField]). An object is in a shard selector's range when
// start <= ShardHash(value) < end.
func ShardHash(value string) uint64 {
	// HashField writes exactly 16 lowercase hex digits, which always parse.
	h, _ := strconv.ParseUint(sharding.HashField(value), 16, 64)
	return h
}

// ShardIndex returns which of count shards, split as [ShardSelectorFor]
// splits them, holds hash. It fails unless count >= 1.
func ShardIndex(hash uint64, count int) (int, error) {
	if count < 1 {
		return 0, fmt.Errorf("shard index: %d shards: need at least 1", count)
	}
	return shard.IndexOf(hash, count), nil
}
