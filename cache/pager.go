package cache

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultPageSize is the number of objects the reflector asks for per LIST
// page when it paginates, as client-go's tools/pager does.
const defaultPageSize int64 = 500

// listPageFunc fetches one page of a list.
type listPageFunc func(ctx context.Context, options metav1.ListOptions) (runtime.Object, error)

// listPager gathers a list page by page, the way client-go's tools/pager
// does for reflectors:
//
//   - The first request carries Limit = pageSize unless the caller set a
//     Limit; pageSize 0 asks for everything at once.
//   - Continuation requests carry the server's continue token and clear
//     ResourceVersion and ResourceVersionMatch (the token pins the snapshot).
//   - When a continuation request fails with Expired (the token outlived the
//     snapshot), one unpaginated request at the original resource version
//     replaces everything gathered so far.
//   - A single page without a continue token is returned as the server sent
//     it; several pages are merged into one [metainternalversion.List] that
//     carries the first page's resource version.
//
// A listPager holds no state between calls and is safe for concurrent use.
type listPager struct {
	pageSize int64
	fetch    listPageFunc
}

func newListPager(fetch listPageFunc) *listPager {
	return &listPager{pageSize: defaultPageSize, fetch: fetch}
}

// list gathers the complete list described by options. paginated reports
// whether the server split the answer into several pages, even when the
// final answer came from the unpaginated fallback. Items of merged pages are
// copied out of their page (see [meta.EachListItemWithAlloc]), so that the
// list object of one page is not kept alive by a single item.
func (p *listPager) list(ctx context.Context, options metav1.ListOptions) (_ runtime.Object, paginated bool, _ error) {
	if options.Limit == 0 {
		options.Limit = p.pageSize
	}
	requestedRV, requestedRVMatch := options.ResourceVersion, options.ResourceVersionMatch
	var merged *metainternalversion.List
	for {
		if err := ctx.Err(); err != nil {
			return nil, paginated, err
		}
		page, err := p.fetch(ctx, options)
		if err != nil {
			if options.Continue == "" || !apierrors.IsResourceExpired(err) {
				return nil, paginated, err
			}
			// The continue token expired: start over with one request for
			// everything at the resource version first asked for.
			options.Limit, options.Continue = 0, ""
			options.ResourceVersion, options.ResourceVersionMatch = requestedRV, requestedRVMatch
			full, err := p.fetch(ctx, options)
			if err != nil {
				return nil, paginated, err
			}
			if _, err := listMetaOf(full); err != nil {
				return nil, paginated, err
			}
			return full, paginated, nil
		}
		listMeta, err := listMetaOf(page)
		if err != nil {
			return nil, paginated, err
		}
		next := listMeta.GetContinue()
		if next == "" && merged == nil {
			return page, paginated, nil
		}
		if merged == nil {
			merged = &metainternalversion.List{Items: make([]runtime.Object, 0, options.Limit+1)}
			merged.ResourceVersion = listMeta.GetResourceVersion()
		}
		if err := meta.EachListItemWithAlloc(page, func(item runtime.Object) error {
			merged.Items = append(merged.Items, item)
			return nil
		}); err != nil {
			return nil, paginated, fmt.Errorf("read list page: %w", err)
		}
		if next == "" {
			return merged, paginated, nil
		}
		options.Continue = next
		options.ResourceVersion, options.ResourceVersionMatch = "", ""
		paginated = true
	}
}

// listMetaOf returns the list metadata of a page, or why the page is not a
// usable list: nil, a nil pointer (whose accessors would panic) or not a list.
func listMetaOf(page runtime.Object) (metav1.ListInterface, error) {
	if isNilObject(page) {
		return nil, fmt.Errorf("list returned a nil %T and no error", page)
	}
	listMeta, err := meta.ListAccessor(page)
	if err != nil {
		return nil, fmt.Errorf("returned object must be a list: %w", err)
	}
	return listMeta, nil
}
