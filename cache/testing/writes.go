package framework

import (
	"errors"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

// Get returns a deep copy of the object namespace/name, or a 404 Not Found
// status error.
func (s *Server[T]) Get(namespace, name string) (T, error) {
	var zero T
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return zero, errClosed()
	}
	cur, ok := s.items[objectKey(namespace, name)]
	if !ok {
		return zero, apierrors.NewNotFound(s.cfg.resource, name)
	}
	return s.copyOut(cur.obj)
}

// Create stores a deep copy of obj as the apiserver would on POST, and
// returns a deep copy of what was stored. It fills in what the apiserver
// fills in: a name from generateName, the uid, creationTimestamp (from the
// server's clock) and a new resourceVersion; it clears deletionTimestamp.
// Watches receive an ADDED event.
//
// Errors: obj nil or without metadata; 422 Invalid without name and
// generateName, or with a name, generateName or namespace the apiserver
// rejects (see [Options.ValidateName]); 400 Bad Request if resourceVersion
// is set; 409 AlreadyExists.
func (s *Server[T]) Create(obj T) (T, error) {
	var zero T
	in, accessor, err := copyIn(obj)
	if err != nil {
		return zero, fmt.Errorf("create %s: %w", s.cfg.typeDescription, err)
	}
	if accessor.GetName() == "" && accessor.GetGenerateName() == "" {
		return zero, s.newInvalid("", field.Required(field.NewPath("metadata", "name"), "name or generateName is required"))
	}
	if errs := s.validateNames(accessor); len(errs) > 0 {
		return zero, s.newInvalid(accessor.GetName(), errs...)
	}
	if accessor.GetResourceVersion() != "" {
		return zero, apierrors.NewBadRequest("resourceVersion should not be set on objects to be created")
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return zero, errClosed()
	}
	if accessor.GetName() == "" {
		s.nameSeq++
		accessor.SetName(accessor.GetGenerateName() + generatedSuffix(s.nameSeq))
	}
	key := objectKey(accessor.GetNamespace(), accessor.GetName())
	if _, exists := s.items[key]; exists {
		return zero, apierrors.NewAlreadyExists(s.cfg.resource, accessor.GetName())
	}
	if accessor.GetUID() == "" {
		s.uidSeq++
		accessor.SetUID(uidFor(s.uidSeq))
	}
	if ts := accessor.GetCreationTimestamp(); ts.IsZero() {
		accessor.SetCreationTimestamp(metav1.NewTime(s.cfg.clock.Now()).Rfc3339Copy())
	}
	accessor.SetDeletionTimestamp(nil)
	accessor.SetDeletionGracePeriodSeconds(nil)
	if gvk := in.GetObjectKind().GroupVersionKind(); s.inferredGVK.Empty() && !gvk.Empty() {
		s.inferredGVK = gvk
	}

	rv := s.rv + 1
	accessor.SetResourceVersion(formatRV(rv))
	st := s.newStored(in, accessor, rv)
	s.commitLocked(change{typ: watch.Added, rv: rv, key: key, obj: st})
	return s.copyOut(st.obj)
}

// Update replaces the stored object with a deep copy of obj as the apiserver
// would on PUT, and returns a deep copy of what was stored. A non-empty
// resourceVersion is a precondition: if it is not the stored one the update
// fails with 409 Conflict. uid, creationTimestamp and deletionTimestamp are
// kept from the stored object. An update that changes nothing is not written:
// the stored object is returned with its resourceVersion unchanged and no
// event is sent. An update that removes the last finalizer of an object
// being deleted deletes it (a DELETED event carrying the last stored state).
// Otherwise watches receive a MODIFIED event.
//
// Errors: obj nil or without metadata; 422 Invalid without a name or with a
// malformed resourceVersion; 404 Not Found; 409 Conflict.
func (s *Server[T]) Update(obj T) (T, error) {
	var zero T
	in, accessor, err := copyIn(obj)
	if err != nil {
		return zero, fmt.Errorf("update %s: %w", s.cfg.typeDescription, err)
	}
	name := accessor.GetName()
	if name == "" {
		return zero, s.newInvalid("", field.Required(field.NewPath("metadata", "name"), "name is required"))
	}
	var precondition uint64
	if rv := accessor.GetResourceVersion(); rv != "" {
		if precondition, err = strconv.ParseUint(rv, 10, 64); err != nil {
			return zero, newInvalidResourceVersion(s.cfg.resource, rv, err)
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return zero, errClosed()
	}
	key := objectKey(accessor.GetNamespace(), name)
	cur, ok := s.items[key]
	if !ok {
		return zero, apierrors.NewNotFound(s.cfg.resource, name)
	}
	if precondition != 0 && precondition != cur.rv {
		return zero, apierrors.NewConflict(s.cfg.resource, name, errors.New(optimisticLockMessage))
	}
	curAccessor, err := meta.Accessor(cur.obj)
	if err != nil {
		return zero, fmt.Errorf("update %s: stored object: %w", s.cfg.typeDescription, err)
	}
	if uid := accessor.GetUID(); uid != "" && uid != curAccessor.GetUID() {
		return zero, apierrors.NewConflict(s.cfg.resource, name,
			fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", curAccessor.GetUID(), uid))
	}
	accessor.SetUID(curAccessor.GetUID())
	accessor.SetCreationTimestamp(curAccessor.GetCreationTimestamp())
	accessor.SetDeletionTimestamp(curAccessor.GetDeletionTimestamp())
	accessor.SetDeletionGracePeriodSeconds(curAccessor.GetDeletionGracePeriodSeconds())
	accessor.SetResourceVersion(formatRV(cur.rv))
	if equality.Semantic.DeepEqual(in, cur.obj) {
		return s.copyOut(cur.obj)
	}
	if curAccessor.GetDeletionTimestamp() != nil && len(accessor.GetFinalizers()) == 0 {
		return s.deleteLocked(cur)
	}

	rv := s.rv + 1
	accessor.SetResourceVersion(formatRV(rv))
	st := s.newStored(in, accessor, rv)
	s.commitLocked(change{typ: watch.Modified, rv: rv, key: key, obj: st, prev: cur})
	return s.copyOut(st.obj)
}

// Delete deletes the object namespace/name as the apiserver would on DELETE
// without options. An object without finalizers is removed: watches receive
// a DELETED event carrying its last state stamped with the deletion's
// resourceVersion, and that is also what Delete returns. An object with
// finalizers only gets a deletionTimestamp (a MODIFIED event) and stays
// until an [Server.Update] removes its last finalizer; deleting it again
// changes nothing. Errors: 404 Not Found.
func (s *Server[T]) Delete(namespace, name string) (T, error) {
	var zero T
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return zero, errClosed()
	}
	cur, ok := s.items[objectKey(namespace, name)]
	if !ok {
		return zero, apierrors.NewNotFound(s.cfg.resource, name)
	}
	curAccessor, err := meta.Accessor(cur.obj)
	if err != nil {
		return zero, fmt.Errorf("delete %s: stored object: %w", s.cfg.typeDescription, err)
	}
	if len(curAccessor.GetFinalizers()) == 0 {
		return s.deleteLocked(cur)
	}
	if curAccessor.GetDeletionTimestamp() != nil {
		return s.copyOut(cur.obj)
	}
	obj := cur.obj.DeepCopyObject()
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return zero, fmt.Errorf("delete %s: stored object: %w", s.cfg.typeDescription, err)
	}
	now := metav1.NewTime(s.cfg.clock.Now()).Rfc3339Copy()
	var gracePeriod int64
	accessor.SetDeletionTimestamp(&now)
	accessor.SetDeletionGracePeriodSeconds(&gracePeriod)
	rv := s.rv + 1
	accessor.SetResourceVersion(formatRV(rv))
	st := s.newStored(obj, accessor, rv)
	s.commitLocked(change{typ: watch.Modified, rv: rv, key: cur.key, obj: st, prev: cur})
	return s.copyOut(st.obj)
}

// deleteLocked removes cur and returns its last state stamped with the
// deletion's resourceVersion.
func (s *Server[T]) deleteLocked(cur *stored) (T, error) {
	var zero T
	last := cur.obj.DeepCopyObject()
	accessor, err := meta.Accessor(last)
	if err != nil {
		return zero, fmt.Errorf("delete %s: stored object: %w", s.cfg.typeDescription, err)
	}
	rv := s.rv + 1
	accessor.SetResourceVersion(formatRV(rv))
	st := &stored{key: cur.key, obj: last, rv: rv, labels: cur.labels, fields: cur.fields}
	s.commitLocked(change{typ: watch.Deleted, rv: rv, key: cur.key, obj: st, prev: cur})
	return s.copyOut(last)
}

// Compact forgets the whole change history, as an etcd compaction at the
// current revision followed by a watch cache that lost its window would:
// afterwards, a watch or an exact list from any older resourceVersion, and a
// continue token of an older list, fail with 410 Gone.
func (s *Server[T]) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.compact(s.rv)
}

// AdvanceResourceVersion moves the server's resourceVersion one step
// without changing any object, as writes to other resources advance the etcd
// revision that a real cluster's resourceVersions come from, and returns the
// new resourceVersion. Lists report it; open watches that allow bookmarks
// learn it from their next periodic bookmark, so that a client can see its
// last synced resourceVersion catch up with the server's without a change to
// the objects it watches. Errors: 503 once the server is closed.
func (s *Server[T]) AdvanceResourceVersion() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", errClosed()
	}
	s.rv++
	close(s.rvChanged)
	s.rvChanged = make(chan struct{})
	return formatRV(s.rv), nil
}

// commitLocked applies c to the current state, records it and sends it to
// the watch streams.
func (s *Server[T]) commitLocked(c change) {
	s.rv = c.rv
	if c.typ == watch.Deleted {
		delete(s.items, c.key)
	} else {
		s.items[c.key] = c.obj
	}
	s.hist.add(c)
	close(s.rvChanged)
	s.rvChanged = make(chan struct{})
	s.dispatchLocked(c)
}

// copyIn deep-copies obj so that the server owns the copy.
func copyIn[T runtime.Object](obj T) (runtime.Object, metav1.Object, error) {
	if isNil(obj) {
		return nil, nil, errors.New("object is nil")
	}
	in := obj.DeepCopyObject()
	accessor, err := meta.Accessor(in)
	if err != nil {
		return nil, nil, err
	}
	return in, accessor, nil
}

// copyOut returns a deep copy of a stored object for a caller to own.
func (s *Server[T]) copyOut(obj runtime.Object) (T, error) {
	out, ok := obj.DeepCopyObject().(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("stored object %T is not a %s", obj, s.cfg.typeDescription)
	}
	return out, nil
}

func (s *Server[T]) newInvalid(name string, errs ...*field.Error) error {
	kind := s.cfg.gvk.Kind
	if kind == "" {
		kind = s.cfg.resource.Resource
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: s.cfg.resource.Group, Kind: kind}, name, errs)
}

// generatedSuffix returns the 5-character suffix of the n-th generated name,
// drawn from the apiserver's alphabet (no vowels, no ambiguous digits).
func generatedSuffix(n uint64) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	var b [5]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = alphabet[n%uint64(len(alphabet))]
		n /= uint64(len(alphabet))
	}
	return string(b[:])
}

// validateNames checks a created object's name, generateName and namespace
// as the apiserver does.
func (s *Server[T]) validateNames(accessor metav1.Object) []*field.Error {
	var errs []*field.Error
	meta := field.NewPath("metadata")
	if name := accessor.GetName(); name != "" {
		for _, msg := range s.cfg.validateName(name, false) {
			errs = append(errs, field.Invalid(meta.Child("name"), name, msg))
		}
	} else {
		generateName := accessor.GetGenerateName()
		for _, msg := range s.cfg.validateName(generateName, true) {
			errs = append(errs, field.Invalid(meta.Child("generateName"), generateName, msg))
		}
	}
	if ns := accessor.GetNamespace(); ns != "" {
		for _, msg := range validation.ValidateNamespaceName(ns, false) {
			errs = append(errs, field.Invalid(meta.Child("namespace"), ns, msg))
		}
	}
	return errs
}

// uidFor returns the uid of the seq-th created object: a version 4 UUID
// whose bits are a fixed scramble of seq. Like the apiserver's random uids
// they spread evenly over the hash space that shard selectors split, and
// unlike them they are the same in every run.
func uidFor(seq uint64) types.UID {
	hi := splitmix64(seq)
	lo := splitmix64(hi)
	return types.UID(fmt.Sprintf("%08x-%04x-%04x-%04x-%012x",
		hi>>32, (hi>>16)&0xffff, hi&0x0fff|0x4000, (lo>>48)&0x3fff|0x8000, lo&0xffff_ffff_ffff))
}

// splitmix64 is one step of the SplitMix64 generator: a bijection of
// uint64 that spreads consecutive inputs over the whole range.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
