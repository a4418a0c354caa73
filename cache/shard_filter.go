package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
)

// shardFilter keeps what a shard selector selects, on the client, with the
// apiserver's own matcher. When the server honours the selector it removes
// nothing; when the server ignores it (the feature gate is off, or the
// server predates it) it is what keeps the informer on its shard.
type shardFilter struct {
	set shardSet
	// selector is set's canonical selector; nil when set selects
	// everything.
	selector sharding.Selector
}

func newShardFilter(set shardSet) shardFilter {
	f := shardFilter{set: set}
	if !set.everything() {
		f.selector = set.selector()
	}
	return f
}

// requestSelector is what the request's ShardSelector carries; "" for
// everything.
func (f shardFilter) requestSelector() string {
	if f.selector == nil {
		return ""
	}
	return f.selector.String()
}

// matches reports whether obj belongs to the shard. An object whose field
// cannot be read (no metadata) is kept, for the reflector to report.
func (f shardFilter) matches(obj runtime.Object) bool {
	if f.selector == nil || isNilObject(obj) {
		return true
	}
	ok, err := f.selector.Matches(obj)
	return ok || err != nil
}

// filterList removes the items of list outside the shard, in place, and
// returns how many it removed. It leaves list untouched, and copies
// nothing, when every item belongs to the shard.
func (f shardFilter) filterList(list runtime.Object) (removed int, err error) {
	if f.selector == nil {
		return 0, nil
	}
	outside := 0
	if err := meta.EachListItem(list, func(item runtime.Object) error {
		if !f.matches(item) {
			outside++
		}
		return nil
	}); err != nil {
		return 0, fmt.Errorf("filter list on shard: %w", err)
	}
	if outside == 0 {
		return 0, nil
	}
	items, err := extractListItems(list)
	if err != nil {
		return 0, fmt.Errorf("filter list on shard: %w", err)
	}
	kept := make([]runtime.Object, 0, len(items)-outside)
	for _, item := range items {
		if f.matches(item) {
			kept = append(kept, item)
		}
	}
	if err := meta.SetList(list, kept); err != nil {
		return 0, fmt.Errorf("filter list on shard: %w", err)
	}
	return len(items) - len(kept), nil
}
