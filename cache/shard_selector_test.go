package cache

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-go/informer/cache/internal/shard"
)

// mustShard returns the selector of shard index of count on uids.
func mustShard(t testing.TB, index, count int) sharding.Selector {
	t.Helper()
	sel, err := ShardSelectorFor(ShardKeyUID, index, count)
	if err != nil {
		t.Fatal(err)
	}
	return sel
}

// checkSelector checks a constructor's result: an error containing wantErr
// if that is set, else the selector want. It reports whether the selector
// is usable.
func checkSelector(t *testing.T, want, wantErr string, sel sharding.Selector, err error) bool {
	t.Helper()
	switch {
	case wantErr != "":
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("error %v, want one containing %q", err, wantErr)
		}
		return false
	case err != nil:
		t.Errorf("error %v, want selector %q", err, want)
		return false
	case sel.String() != want:
		t.Errorf("selector %q, want %q", sel.String(), want)
		return false
	}
	return true
}

func TestShardSelectorFor(t *testing.T) {
	for _, tc := range []struct {
		key          string
		index, count int
		want         string
		wantErr      string
	}{
		// The examples of metav1.ListOptions.ShardSelector's documentation.
		{key: ShardKeyUID, index: 0, count: 2, want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{key: ShardKeyUID, index: 1, count: 2, want: "shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"},
		{key: ShardKeyUID, index: 0, count: 4, want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000')"},
		{key: ShardKeyUID, index: 1, count: 4, want: "shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000')"},
		{key: ShardKeyUID, index: 2, count: 4, want: "shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000')"},
		{key: ShardKeyUID, index: 3, count: 4, want: "shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')"},
		{key: ShardKeyNamespace, index: 1, count: 3, want: "shardRange(object.metadata.namespace, '0x5555555555555555', '0xaaaaaaaaaaaaaaaa')"},
		{key: ShardKeyUID, index: 0, count: 1, want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x10000000000000000')"},
		{key: "object.metadata.name", index: 0, count: 2, wantErr: `unsupported field "object.metadata.name"`},
		{key: ShardKeyUID, index: 2, count: 2, wantErr: "shard 2 of 2 does not exist"},
		{key: ShardKeyUID, index: -1, count: 2, wantErr: "shard -1 of 2 does not exist"},
		{key: ShardKeyUID, index: 0, count: 0, wantErr: "shard 0 of 0 does not exist"},
	} {
		t.Run(fmt.Sprintf("%s/%d-of-%d", tc.key, tc.index, tc.count), func(t *testing.T) {
			sel, err := ShardSelectorFor(tc.key, tc.index, tc.count)
			if !checkSelector(t, tc.want, tc.wantErr, sel, err) {
				return
			}
			if _, err := ParseShardSelector(sel.String()); err != nil {
				t.Errorf("the apiserver would refuse it: %v", err)
			}
		})
	}
}

// TestShardIndex checks that ShardIndex names the shard whose selector,
// applied by the apiserver's matcher, selects an object, for random uids
// and for hashes at the edges of every shard.
func TestShardIndex(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, count := range []int{1, 2, 3, 4, 7, 10, 64} {
		selectors := make([]sharding.Selector, count)
		for i := range count {
			selectors[i] = mustShard(t, i, count)
		}
		for range 300 {
			uid := fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.Uint32()&0xffff, rng.Uint32()&0xfff, rng.Uint32()&0xfff, rng.Uint64()&0xffffffffffff)
			obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)}}
			index, err := ShardIndex(ShardHash(uid), count)
			if err != nil {
				t.Fatal(err)
			}
			for i, sel := range selectors {
				if ok, err := sel.Matches(obj); err != nil || ok != (i == index) {
					t.Fatalf("uid %s: ShardIndex %d of %d, but shard %d's selector matches: %v, %v", uid, index, count, i, ok, err)
				}
			}
		}
		for i := range count {
			r, _ := shard.Bounds(i, count)
			for _, h := range []uint64{r.First, r.Last} {
				if got, _ := ShardIndex(h, count); got != i {
					t.Errorf("ShardIndex(%#x, %d) = %d, want %d", h, count, got, i)
				}
			}
		}
	}
	if _, err := ShardIndex(1, 0); err == nil {
		t.Error("ShardIndex with 0 shards did not fail")
	}
}

// TestShardHash checks the hash is 64-bit FNV-1a, the apiserver's.
func TestShardHash(t *testing.T) {
	for _, value := range []string{"", "default", "6f1c3c64-6f34-4b1e-9d0e-1b0b2c7f4e11"} {
		h := fnv.New64a()
		h.Write([]byte(value))
		if got, want := ShardHash(value), h.Sum64(); got != want {
			t.Errorf("ShardHash(%q) = %#x, want %#x", value, got, want)
		}
	}
}

func TestUnionShardSelectors(t *testing.T) {
	shard := func(index, count int) sharding.Selector { return mustShard(t, index, count) }
	ns, err := ShardSelectorFor(ShardKeyNamespace, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		selectors []sharding.Selector
		want      string
		wantErr   string
	}{
		{name: "adjacent shards merge", selectors: []sharding.Selector{shard(1, 4), shard(0, 4)}, want: shard(0, 2).String()},
		{name: "all shards are everything", selectors: []sharding.Selector{shard(0, 3), shard(2, 3), shard(1, 3)}, want: shard(0, 1).String()},
		{name: "apart", selectors: []sharding.Selector{shard(3, 4), shard(1, 4)},
			want: "shardRange(object.metadata.uid, '0x4000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0xc000000000000000', '0x10000000000000000')"},
		{name: "overlapping", selectors: []sharding.Selector{shard(0, 2), shard(1, 3)}, want: "shardRange(object.metadata.uid, '0x0000000000000000', '0xaaaaaaaaaaaaaaaa')"},
		{name: "one", selectors: []sharding.Selector{shard(1, 3)}, want: shard(1, 3).String()},
		{name: "with everything", selectors: []sharding.Selector{shard(1, 3), sharding.Everything()}, want: ""},
		{name: "with nil", selectors: []sharding.Selector{nil, shard(1, 3)}, want: ""},
		{name: "none", wantErr: "no selector given"},
		{name: "different fields", selectors: []sharding.Selector{shard(0, 2), ns}, wantErr: "all shard ranges must use the same field"},
		{name: "malformed", selectors: []sharding.Selector{sharding.NewSelector(sharding.ShardRangeRequirement{Key: ShardKeyUID, Start: "0x0", End: "0x1"})}, wantErr: "selector 0: invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := UnionShardSelectors(tc.selectors...)
			checkSelector(t, tc.want, tc.wantErr, sel, err)
		})
	}
}
