package cache

import (
	"context"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache/internal/shard"
)

// handover moves the stream from the shard its reader holds to the target
// shard, at the resourceVersion its reader reached: it stops the server's
// watch, lists the leaving and the entering objects at exactly that
// resourceVersion, opens a watch of the target shard from it, then sends
// DELETED for each leaving object (stamped with the resourceVersion, as the
// apiserver stamps objects leaving a selector), ADDED for each entering one
// and, if there were any and the reader allows bookmarks, a BOOKMARK at the
// resourceVersion, which the ADDED objects' older resourceVersions would
// otherwise leave behind. If any step fails the stream sends a 410 Expired
// error, for the reader to relist, and ends. It reports whether the stream
// goes on.
func (w *shardStream) handover(ctx context.Context, st *streamState) bool {
	if st.inner != nil {
		st.inner.Stop()
		st.inner = nil
	}
	rv := st.stream.ResourceVersion()
	to, changed := w.owner.targetState()
	plan, err := shard.PlanHandover(st.stream.Filter().Set(), to)
	var events []watch.Event
	if err == nil {
		events, err = w.owner.handoverEvents(ctx, plan, rv, w.options)
	}
	var inner watch.Interface
	if err == nil {
		options := w.options
		options.ResourceVersion, options.ResourceVersionMatch, options.SendInitialEvents = rv, "", nil
		inner, err = w.owner.watchShard(ctx, options, shard.NewFilter(to))
	}
	logger := w.owner.loggerFor(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		logger.V(2).Info("Shard handover failed, the reflector relists", "resourceVersion", rv, "err", err)
		w.fail(ctx, relistError(err))
		return false
	}
	w.owner.setHeld(to)
	st.stream.MoveTo(to)
	st.inner, st.changed = inner, changed
	logger.V(4).Info("Shard handover", "resourceVersion", rv, "events", len(events), "shardSelector", st.stream.Filter().RequestSelector())
	for _, ev := range events {
		if !w.send(ctx, ev) {
			return false
		}
	}
	return true
}

// handoverEvents lists what leaves and what enters at exactly rv, with the
// label and field selectors of the reader's watch options, and returns the
// events that tell the reader.
func (s *ShardedListWatch) handoverEvents(ctx context.Context, plan shard.Plan, rv string, options metav1.ListOptions) ([]watch.Event, error) {
	selectors := metav1.ListOptions{LabelSelector: options.LabelSelector, FieldSelector: options.FieldSelector}
	var events []watch.Event
	if len(plan.Leaving) > 0 {
		leaving, err := s.listAt(ctx, plan.LeavingSet(), rv, selectors)
		if err != nil {
			return nil, err
		}
		for _, obj := range leaving {
			if m, err := meta.Accessor(obj); err == nil {
				m.SetResourceVersion(rv)
			}
			events = append(events, watch.Event{Type: watch.Deleted, Object: obj})
		}
	}
	if len(plan.Entering) > 0 {
		entering, err := s.listAt(ctx, plan.EnteringSet(), rv, selectors)
		if err != nil {
			return nil, err
		}
		for _, obj := range entering {
			events = append(events, watch.Event{Type: watch.Added, Object: obj})
		}
		if len(entering) > 0 && options.AllowWatchBookmarks {
			if bookmark, ok := bookmarkLike(entering[0], rv); ok {
				events = append(events, watch.Event{Type: watch.Bookmark, Object: bookmark})
			}
		}
	}
	return events, nil
}

// listAt lists the objects of set that selectors' label and field
// selectors select at exactly rv, page by page.
func (s *ShardedListWatch) listAt(ctx context.Context, set shard.Set, rv string, selectors metav1.ListOptions) ([]runtime.Object, error) {
	f := shard.NewFilter(set)
	pager := newListPager(func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
		return s.listShard(ctx, options, f)
	})
	selectors.ResourceVersion, selectors.ResourceVersionMatch = rv, metav1.ResourceVersionMatchExact
	list, _, err := pager.list(ctx, selectors)
	if err != nil {
		return nil, err
	}
	items, err := extractListItems(list)
	if err != nil {
		return nil, err
	}
	objs := make([]runtime.Object, 0, len(items))
	for _, item := range items {
		if !isNilObject(item) {
			objs = append(objs, item)
		}
	}
	return objs, nil
}

// bookmarkLike returns an empty object of obj's Go type and kind with
// resourceVersion rv, as the apiserver's bookmarks are; false when obj's
// type cannot be instantiated that way.
func bookmarkLike(obj runtime.Object, rv string) (runtime.Object, bool) {
	var empty runtime.Object
	if u, ok := obj.(*unstructured.Unstructured); ok {
		b := &unstructured.Unstructured{}
		b.SetGroupVersionKind(u.GroupVersionKind())
		empty = b
	} else {
		t := reflect.TypeOf(obj)
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return nil, false
		}
		var ok bool
		if empty, ok = reflect.New(t.Elem()).Interface().(runtime.Object); !ok {
			return nil, false
		}
		empty.GetObjectKind().SetGroupVersionKind(obj.GetObjectKind().GroupVersionKind())
	}
	m, err := meta.Accessor(empty)
	if err != nil {
		return nil, false
	}
	m.SetResourceVersion(rv)
	return empty, true
}
