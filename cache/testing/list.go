package framework

import (
	"context"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// listRead says which state a list reads and how much of it.
type listRead struct {
	// exact is true for a read of the state at rv; otherwise the current
	// state is read.
	exact bool
	rv    uint64
	// limit is the page size; 0 means everything.
	limit int64
	// startKey is where the page starts (from a continue token).
	startKey string
	// fromContinue reports that the read continues an earlier page.
	fromContinue bool
	// cached is true for a read the watch cache may answer: the state is
	// the cache's, not older than rv (see Options.WatchCacheLag).
	cached bool
}

// list serves a LIST of namespace ("" for all) with opts.
//
// Semantics, as the apiserver with its watch cache:
//   - "" (most recent): the current state, paginated by limit;
//   - "0" (any): the watch cache's state (the current one unless
//     Options.WatchCacheLag), limit ignored (the watch cache does not
//     paginate);
//   - N with NotOlderThan, or N without a match and without limit: the
//     watch cache's state once the server reached N, not older than N,
//     paginated by limit;
//   - N with Exact, or N without a match but with a limit: the state at N
//     (410 Gone if compacted), paginated by limit;
//   - continue: the next page of the first page's state (410 Gone with a
//     fresh token if compacted).
//
// A future N waits up to the configured timeout, then fails with "Too large
// resource version".
func (s *Server[T]) list(ctx context.Context, namespace string, opts metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errClosed()
	}
	s.recordLocked(VerbList, namespace, opts)
	if err := s.faults.lists.take(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	latency := s.faults.listLatency
	s.mu.Unlock()

	if latency > 0 {
		if err := s.sleep(ctx, latency); err != nil {
			return nil, err
		}
	}
	if opts.Watch {
		return nil, apierrors.NewBadRequest("a list request cannot have watch=true: use Watch")
	}
	internal := internalOptions(opts)
	if errs := validation.ValidateListOptions(&internal, true); len(errs) > 0 {
		return nil, newInvalidOptions(errs)
	}
	f, err := s.newFilter(namespace, opts)
	if err != nil {
		return nil, err
	}
	prefix := ""
	if namespace != "" {
		prefix = namespace + "/"
	}
	read, err := s.planRead(ctx, prefix, opts)
	if err != nil {
		return nil, err
	}
	if read.fromContinue && s.takeContinueExpiry() {
		return nil, s.expiredListError(prefix, read)
	}

	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errClosed()
	}
	snapshotRV := s.rv
	state := s.items
	switch {
	case read.exact:
		var ok bool
		if state, ok = s.hist.stateAt(s.items, read.rv); !ok {
			s.mu.Unlock()
			return nil, s.expiredListError(prefix, read)
		}
		snapshotRV = read.rv
	case read.cached:
		snapshotRV, state = s.cachedStateLocked(read.rv)
	}
	entries := make([]*stored, 0, len(state))
	for key, st := range state {
		if strings.HasPrefix(key, prefix) && key >= read.startKey {
			entries = append(entries, st)
		}
	}
	s.mu.Unlock()

	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	var (
		objects []runtime.Object
		last    = -1 // index of the last returned entry
	)
	for i, st := range entries {
		if read.limit > 0 && int64(len(objects)) >= read.limit {
			break
		}
		last = i
		if f.matches(st) {
			objects = append(objects, st.obj.DeepCopyObject())
		}
	}
	if read.limit <= 0 {
		last = len(entries) - 1
	}

	list := s.cfg.newList()
	if err := meta.SetList(list, objects); err != nil {
		return nil, fmt.Errorf("list %s: build %T: %w", s.cfg.typeDescription, list, err)
	}
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return nil, fmt.Errorf("list %s: %T has no list metadata: %w", s.cfg.typeDescription, list, err)
	}
	listMeta.SetResourceVersion(formatRV(snapshotRV))
	if f.shard != nil {
		if err := setShardInfo(list, f.shard); err != nil {
			return nil, fmt.Errorf("list %s: set shardInfo on %T: %w", s.cfg.typeDescription, list, err)
		}
	}
	if remaining := len(entries) - 1 - last; remaining > 0 && last >= 0 {
		token, err := encodeContinue(prefix, entries[last].key+"\x00", int64(snapshotRV))
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", s.cfg.typeDescription, err)
		}
		listMeta.SetContinue(token)
		if !f.selective {
			count := int64(remaining)
			listMeta.SetRemainingItemCount(&count)
		}
	}
	if ul, ok := list.(*unstructured.UnstructuredList); ok {
		s.mu.Lock()
		gvk := s.gvkLocked()
		s.mu.Unlock()
		if !gvk.Empty() {
			ul.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		}
	}
	return list, nil
}

// planRead decides which state a list reads, waiting for a future
// resourceVersion if needed.
func (s *Server[T]) planRead(ctx context.Context, prefix string, opts metav1.ListOptions) (listRead, error) {
	read := listRead{limit: opts.Limit}
	if s.cfg.maxPageSize > 0 && read.limit > s.cfg.maxPageSize {
		read.limit = s.cfg.maxPageSize
	}
	if opts.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return listRead{}, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		startKey, rv, err := decodeContinue(opts.Continue, prefix)
		if err != nil {
			return listRead{}, err
		}
		read.startKey, read.fromContinue = startKey, true
		if rv > 0 {
			read.exact, read.rv = true, uint64(rv)
		}
		return read, nil
	}

	rv, err := parseRV(opts.ResourceVersion)
	if err != nil {
		return listRead{}, newInvalidResourceVersion(s.cfg.resource, opts.ResourceVersion, err)
	}
	switch {
	case opts.ResourceVersion == "":
		return read, nil
	case rv == 0:
		read.limit, read.cached = 0, true
		return read, nil
	}
	if err := s.waitForResourceVersion(ctx, rv); err != nil {
		return listRead{}, err
	}
	read.rv = rv
	switch {
	case opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact,
		opts.ResourceVersionMatch == "" && opts.Limit > 0:
		read.exact = true
	default:
		read.cached = true
	}
	return read, nil
}

// expiredListError is the 410 for a read of a compacted state. For a
// continued list it carries a fresh token that continues from the same key
// at the current state, as the apiserver's does.
func (s *Server[T]) expiredListError(prefix string, read listRead) error {
	if !read.fromContinue {
		return apierrors.NewResourceExpired(listTooOldMessage)
	}
	expired := apierrors.NewResourceExpired(continueTooOldMessage)
	if token, err := encodeContinue(prefix, read.startKey, -1); err == nil {
		expired.ErrStatus.ListMeta.Continue = token
	}
	return expired
}
