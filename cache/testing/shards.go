package framework

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
)

// newInvalidShardSelector is kube-apiserver's answer to a shard selector it
// cannot parse: the registry returns a plain error, which the apiserver
// turns into a 500 without a reason.
func newInvalidShardSelector(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: "invalid shard selector: " + err.Error(),
	}}
}

// inShard reports whether the object is in the shard, with the apiserver's
// matcher; an object it cannot hash is not, as in the apiserver's watch
// cache.
func (st *stored) inShard(sel sharding.Selector) bool {
	ok, err := sel.Matches(st.obj)
	return ok && err == nil
}

// setShardInfo echoes the applied shard selector on a list response, as
// kube-apiserver does: in ListMeta.ShardInfo, or metadata.shardInfo of an
// unstructured list. A list type without either gets none.
func setShardInfo(list runtime.Object, sel sharding.Selector) error {
	info := &metav1.ShardInfo{Selector: sel.String()}
	if u, ok := list.(*unstructured.UnstructuredList); ok {
		return unstructured.SetNestedField(u.Object, info.Selector, "metadata", "shardInfo", "selector")
	}
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	if sharded, ok := listMeta.(metav1.ShardedListInterface); ok {
		sharded.SetShardInfo(info)
	}
	return nil
}
