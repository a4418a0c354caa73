package framework

import (
	"fmt"
	"maps"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"

	"github.com/informer-go/informer/cache/internal/shard"
)

// Field selector labels every resource supports.
const (
	fieldName      = "metadata.name"
	fieldNamespace = "metadata.namespace"
)

// filter decides which objects a request sees: its namespace, its label
// and field selectors, and its shard selector.
type filter struct {
	// namespace restricts the request; "" means all namespaces.
	namespace string
	labels    labels.Selector
	fields    fields.Selector
	// shard is the request's shard selector, nil without one (or when the
	// server ignores shard selectors).
	shard sharding.Selector
	// selective reports whether a label or field selector was given; the
	// apiserver reports remainingItemCount only for unselective lists (a
	// shard selector does not count).
	selective bool
}

// newFilter parses the selectors of opts the way the apiserver does: a
// malformed selector, or a field label the resource does not support, is a
// 400 Bad Request.
func (s *Server[T]) newFilter(namespace string, opts metav1.ListOptions) (filter, error) {
	f := filter{namespace: namespace, labels: labels.Everything(), fields: fields.Everything()}
	if opts.LabelSelector != "" {
		sel, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return filter{}, apierrors.NewBadRequest(err.Error())
		}
		f.labels = sel
	}
	if opts.FieldSelector != "" {
		sel, err := fields.ParseSelector(opts.FieldSelector)
		if err != nil {
			return filter{}, apierrors.NewBadRequest(err.Error())
		}
		for _, req := range sel.Requirements() {
			if !s.supportsField(req.Field) {
				return filter{}, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", req.Field))
			}
		}
		f.fields = sel
	}
	f.selective = !f.labels.Empty() || !f.fields.Empty()
	if opts.ShardSelector != "" && !s.cfg.ignoreShards {
		sel, err := shard.Parse(opts.ShardSelector)
		if err != nil {
			return filter{}, newInvalidShardSelector(err)
		}
		f.shard = sel
	}
	return f, nil
}

func (s *Server[T]) supportsField(label string) bool {
	if label == fieldName || label == fieldNamespace {
		return true
	}
	_, ok := s.cfg.fields[label]
	return ok
}

// matches reports whether st is visible to the request.
func (f filter) matches(st *stored) bool {
	if f.namespace != "" && st.fields[fieldNamespace] != f.namespace {
		return false
	}
	if f.shard != nil && !st.inShard(f.shard) {
		return false
	}
	return f.labels.Matches(labels.Set(st.labels)) && f.fields.Matches(fields.Set(st.fields))
}

// newStored wraps obj (owned by the server from now on) with its key and
// selector attributes.
func (s *Server[T]) newStored(obj runtime.Object, accessor metav1.Object, rv uint64) *stored {
	st := &stored{
		key:    objectKey(accessor.GetNamespace(), accessor.GetName()),
		obj:    obj,
		rv:     rv,
		labels: maps.Clone(accessor.GetLabels()),
		fields: map[string]string{
			fieldName:      accessor.GetName(),
			fieldNamespace: accessor.GetNamespace(),
		},
	}
	if typed, ok := obj.(T); ok {
		for label, extract := range s.cfg.fields {
			st.fields[label] = extract(typed)
		}
	}
	return st
}
