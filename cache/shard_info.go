package cache

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// ShardInfoOf returns the shard information of a list response: set when
// the server applied the request's shard selector (it echoes the selector),
// nil when it did not or list is not a list. It reads typed lists through
// their ListMeta and unstructured lists through metadata.shardInfo.
func ShardInfoOf(list runtime.Object) *metav1.ShardInfo {
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		if u == nil {
			return nil
		}
		selector, found, err := unstructured.NestedString(u.Object, "metadata", "shardInfo", "selector")
		if err != nil || !found {
			return nil
		}
		return &metav1.ShardInfo{Selector: selector}
	}
	if isNilObject(list) {
		return nil
	}
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil
	}
	if sharded, ok := listMeta.(metav1.ShardedListInterface); ok {
		return sharded.GetShardInfo()
	}
	return nil
}
