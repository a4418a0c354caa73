package cache

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestShardInfoOf(t *testing.T) {
	info := &metav1.ShardInfo{Selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"}
	for _, tc := range []struct {
		name string
		list runtime.Object
		want *metav1.ShardInfo
	}{
		{name: "typed", list: &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ShardInfo: info}}, want: info},
		{name: "typed without", list: &metav1.PartialObjectMetadataList{}},
		{name: "unstructured", list: &unstructured.UnstructuredList{Object: map[string]any{
			"metadata": map[string]any{"shardInfo": map[string]any{"selector": info.Selector}},
		}}, want: info},
		{name: "unstructured without", list: &unstructured.UnstructuredList{Object: map[string]any{}}},
		{name: "unstructured malformed", list: &unstructured.UnstructuredList{Object: map[string]any{"metadata": "x"}}},
		{name: "nil unstructured", list: (*unstructured.UnstructuredList)(nil)},
		{name: "nil typed", list: (*metav1.PartialObjectMetadataList)(nil)},
		{name: "nil"},
		{name: "not a list", list: &metav1.PartialObjectMetadata{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ShardInfoOf(tc.list)); diff != "" {
				t.Errorf("ShardInfoOf (-want +got):\n%s", diff)
			}
		})
	}
}
