package cache

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/klog/v2"
)

// The reflector's paginated list: a list request (paginated or not, see
// [Reflector]) whose items replace the store's contents.

// list fetches the complete list, replaces the store's contents with it and
// records its resource version. It returns nil at once when ctx ends, while
// the request may still be running (see fetchList). A panic of the
// ListerWatcher is returned as an error.
func (r *Reflector) list(ctx context.Context) (err error) {
	r.observer.listStarted(ListMethodPaginated)
	defer func() {
		if err != nil {
			r.observer.listFailed(ListMethodPaginated, err)
			r.cycleFailure = err
		}
	}()
	options := metav1.ListOptions{ResourceVersion: r.versions.forList()}
	res, ok := r.fetchList(ctx, options)
	if !ok {
		return nil
	}
	if res.err != nil {
		return fmt.Errorf("list %s: %w", r.typeDescription, res.err)
	}
	if gvk, isTable := isUnsupportedTableList(res.list); isTable {
		return fmt.Errorf("list %s: unsupported list kind %v", r.typeDescription, gvk)
	}
	if options.ResourceVersion == "0" && res.paginated {
		r.paginatedResult = true
	}
	r.versions.setUnavailable(false)

	objs, resourceVersion, err := r.listedObjects(ctx, res.list)
	if err != nil {
		return fmt.Errorf("list %s: %w", r.typeDescription, err)
	}
	if err := r.store.Replace(objs, resourceVersion); err != nil {
		return fmt.Errorf("list %s: unable to sync list result: %w", r.typeDescription, err)
	}
	r.observer.listed(ListMethodPaginated, len(objs), resourceVersion)
	r.backoff.inContact(r.clock.Now())
	r.setLastSyncResourceVersion(resourceVersion)
	klog.FromContext(ctx).V(4).Info("Listed", "reflector", r.name, "type", r.typeDescription,
		"resourceVersion", resourceVersion, "items", len(objs), "paginated", res.paginated)
	return nil
}

// listResult is what the list goroutine hands back.
type listResult struct {
	list      runtime.Object
	paginated bool
	err       error
}

// fetchList makes the list request of options, paginated or not (see
// [Reflector]), and, when the retry policy says so, its one retry from the
// most recent state. It reports false, at once, when ctx ends first: the
// goroutine making the requests exits when the ListerWatcher returns, and its
// result is dropped. A panic of the ListerWatcher is returned as an error.
func (r *Reflector) fetchList(ctx context.Context, options metav1.ListOptions) (listResult, bool) {
	pager := newListPager(r.listerWatcher.ListWithContext)
	switch {
	case r.WatchListPageSize != 0:
		pager.pageSize = r.WatchListPageSize
	case r.paginatedResult:
		// The server paginated a list at "0": it has no watch cache for
		// this resource, so keep the default page size.
	case options.ResourceVersion != "" && options.ResourceVersion != "0":
		// Ask for everything at once: the watch cache serves lists at a
		// resource version only without a limit. It answers with data at
		// least as new as asked for, so this never goes back in time.
		pager.pageSize = 0
	}

	done := make(chan listResult, 1)
	// The goroutine exits when the ListerWatcher returns; fetchList does
	// not wait for it when ctx ends first (see above).
	go func() {
		var res listResult
		defer func() {
			if p := recover(); p != nil {
				res = listResult{err: fmt.Errorf("list panicked: %v", p)}
			}
			done <- res
		}()
		res.list, res.paginated, res.err = pager.list(ctx, options)
		if res.err == nil && options.ResourceVersion != "" {
			// A list at "" is taken with whatever version it carries:
			// versions are opaque to clients, and asking again for the
			// most recent state would not change it.
			res.err = checkResourceVersion(listResourceVersion(res.list), "the list")
		}
		if res.err != nil && r.judge(ctx, failure{step: stepList, resourceVersion: options.ResourceVersion}, res.err).action == actionRelistNow {
			res.list, res.paginated, res.err = pager.list(ctx, metav1.ListOptions{ResourceVersion: r.versions.forList()})
		}
	}()
	var res listResult
	select {
	case <-ctx.Done():
		return res, false
	case res = <-done:
	}
	return res, ctx.Err() == nil
}

// listedObjects returns the items of list that the reflector accepts, each
// object once, and the list's resource version. Items it does not accept are
// logged and dropped, and so, with a log, are all copies but the last of an
// object listed more than once.
func (r *Reflector) listedObjects(ctx context.Context, list runtime.Object) ([]any, string, error) {
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, "", fmt.Errorf("unable to understand list result %T: %w", list, err)
	}
	items, err := extractListItems(list)
	if err != nil {
		return nil, "", fmt.Errorf("unable to understand list result %T: %w", list, err)
	}
	objs := make([]any, 0, len(items))
	// A broken server may list an object twice. kube-apiserver lists in key
	// order, so names that strictly increase prove there are no duplicates
	// without a map.
	increasing := true
	var last ObjectName
	for _, item := range items {
		m, err := r.expected.check(item, fromList)
		if err != nil {
			utilruntime.HandleErrorWithContext(ctx, err, "Dropping list item", "reflector", r.name, "type", r.typeDescription)
			continue
		}
		if name := MetaObjectToName(m); increasing {
			increasing = len(objs) == 0 || nameLess(last, name)
			last = name
		}
		objs = append(objs, item)
	}
	if !increasing {
		var duplicates int
		if objs, duplicates = keepLastCopies(objs); duplicates > 0 {
			utilruntime.HandleErrorWithContext(ctx, nil, "List holds objects more than once; keeping the last copy of each",
				"reflector", r.name, "type", r.typeDescription, "duplicates", duplicates)
		}
	}
	return objs, listMeta.GetResourceVersion(), nil
}

// nameLess orders object names by namespace, then name.
func nameLess(a, b ObjectName) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	return a.Name < b.Name
}

// keepLastCopies returns objs, whose items have metadata, with every object
// (by namespace and name) once: one listed more than once keeps its first
// place and its last copy, as in a streaming list, so that no store or
// handler sees it twice. It reports how many copies it dropped; objs is
// reused.
func keepLastCopies(objs []any) (_ []any, duplicates int) {
	places := make(map[ObjectName]int, len(objs))
	kept := objs[:0]
	for _, obj := range objs {
		m, err := objectMeta(obj)
		if err != nil {
			// Not an item listedObjects accepts; keep it.
			kept = append(kept, obj)
			continue
		}
		name := MetaObjectToName(m)
		if i, listed := places[name]; listed {
			kept[i] = obj
			duplicates++
			continue
		}
		places[name] = len(kept)
		kept = append(kept, obj)
	}
	return kept, duplicates
}

// extractListItems returns the items of list. Unlike
// [meta.ExtractListWithAlloc] it does not panic on a nil item of a list of
// runtime.Object (the nil is returned, for the check of list items to
// reject), and reports any other panic of the extraction as an error.
func extractListItems(list runtime.Object) (items []runtime.Object, err error) {
	if l, ok := list.(*metainternalversion.List); ok {
		return l.Items, nil
	}
	defer func() {
		if p := recover(); p != nil {
			items, err = nil, fmt.Errorf("extract list items: %v", p)
		}
	}()
	return meta.ExtractListWithAlloc(list)
}
