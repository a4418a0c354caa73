package cache

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-go/informer/cache/internal/shard"
)

// filterShardList removes the items of list outside the shard of f, in
// place, and returns how many it removed: when the server honours the shard
// selector it removes nothing, when it ignores it this keeps the list on
// the shard. It leaves list untouched, and copies nothing, when every item
// belongs to the shard.
func filterShardList(f shard.Filter, list runtime.Object) (removed int, err error) {
	if f.Everything() {
		return 0, nil
	}
	outside := 0
	if err := meta.EachListItem(list, func(item runtime.Object) error {
		if !f.Matches(item) {
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
		if f.Matches(item) {
			kept = append(kept, item)
		}
	}
	if err := meta.SetList(list, kept); err != nil {
		return 0, fmt.Errorf("filter list on shard: %w", err)
	}
	return len(items) - len(kept), nil
}
