package cache

import (
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// Object is what the typed API works with: the objects of an informer, all of
// one Go type T, typically a pointer to an API struct. T must be comparable
// so that a missing object (the zero value, e.g. a nil pointer) can be
// recognised.
type Object interface {
	comparable

	GetName() string
	GetNamespace() string
}

// TypedResourceEventHandler is [ResourceEventHandler] for objects of type T.
// Deletions arrive as a [DeletedObject], which also covers deletions noticed
// only by a relist. The same rules apply: objects are shared and read-only,
// and one handler is called from one goroutine at a time.
type TypedResourceEventHandler[T Object] interface {
	OnAdd(obj T, isInInitialList bool)
	OnUpdate(oldObj, newObj T)
	OnDelete(obj DeletedObject[T])
}

// DeletedObject describes a deleted object of type T.
//
// Its methods work whether or not the object itself is known: GetKey and
// GetObjectName replace [DeletionHandlingMetaNamespaceKeyFunc] and
// [DeletionHandlingObjectToName], and GetName and GetNamespace make it usable
// with klog.KObj, with the same output as for the object.
type DeletedObject[T Object] struct {
	// OptionalObj is the deleted object. It may be stale (an older state
	// than the one deleted) or the zero value of T (e.g. nil) when the
	// informer noticed the deletion without knowing the object.
	OptionalObj T

	// FinalStateUnknown is nil when OptionalObj is the final state of the
	// object. Otherwise it is the tombstone the informer delivered, which
	// holds the object's key; its Obj is OptionalObj, untyped. A tombstone
	// of client-go's type (from a client-go informer) is copied into this
	// package's type.
	FinalStateUnknown *DeletedFinalStateUnknown
}

// GetObjectName returns the namespace and name of the deleted object: from
// the tombstone's key if there is a tombstone (a key without "/" is a name
// without namespace; further "/" stay in the name), otherwise from
// OptionalObj. It returns the zero ObjectName when neither is available.
func (d DeletedObject[T]) GetObjectName() ObjectName {
	if d.FinalStateUnknown != nil {
		namespace, name, found := strings.Cut(d.FinalStateUnknown.Key, "/")
		if !found {
			return ObjectName{Name: namespace}
		}
		return ObjectName{Namespace: namespace, Name: name}
	}
	var zero T
	if d.OptionalObj == zero {
		return ObjectName{}
	}
	return ObjectName{Namespace: d.OptionalObj.GetNamespace(), Name: d.OptionalObj.GetName()}
}

// GetName returns the name of the deleted object, without its namespace.
func (d DeletedObject[T]) GetName() string {
	return d.GetObjectName().Name
}

// GetNamespace returns the namespace of the deleted object, or "".
func (d DeletedObject[T]) GetNamespace() string {
	return d.GetObjectName().Namespace
}

// GetKey returns the key under which the deleted object was stored: the
// tombstone's key, or "namespace/name" (just "name" without namespace) of
// OptionalObj, or "" when neither is available.
func (d DeletedObject[T]) GetKey() string {
	if d.FinalStateUnknown != nil {
		return d.FinalStateUnknown.Key
	}
	var zero T
	if d.OptionalObj == zero {
		return ""
	}
	if namespace := d.OptionalObj.GetNamespace(); namespace != "" {
		return namespace + "/" + d.OptionalObj.GetName()
	}
	return d.OptionalObj.GetName()
}

// TypedResourceEventHandlerFuncs adapts up to three functions to
// [TypedResourceEventHandler]; nil functions ignore their events. AddFunc
// does not receive isInInitialList: use
// [TypedResourceEventHandlerDetailedFuncs] for that.
type TypedResourceEventHandlerFuncs[T Object] struct {
	AddFunc    func(obj T)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj DeletedObject[T])
}

// OnAdd calls AddFunc, if set, with obj.
func (r TypedResourceEventHandlerFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (r TypedResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set.
func (r TypedResourceEventHandlerFuncs[T]) OnDelete(obj DeletedObject[T]) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(obj)
	}
}

// TypedResourceEventHandlerDetailedFuncs is
// [TypedResourceEventHandlerFuncs] whose AddFunc also receives
// isInInitialList. Nil functions ignore their events.
type TypedResourceEventHandlerDetailedFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj DeletedObject[T])
}

// OnAdd calls AddFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnUpdate(oldObj, newObj T) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set.
func (r TypedResourceEventHandlerDetailedFuncs[T]) OnDelete(obj DeletedObject[T]) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(obj)
	}
}

// TypedFilteringResourceEventHandler is [FilteringResourceEventHandler] for
// objects of type T: it forwards to Handler the events of the objects
// FilterFunc accepts. An update turns into OnAdd(newObj, false) when only the
// new state passes, and into OnDelete of the old state (without tombstone)
// when only the old state does. On deletes the filter sees
// [DeletedObject.OptionalObj], which may be the zero value of T.
//
// A nil FilterFunc accepts everything and a nil Handler drops everything;
// client-go panics in both cases.
type TypedFilteringResourceEventHandler[T Object] struct {
	FilterFunc func(obj T) bool
	Handler    TypedResourceEventHandler[T]
}

// accepts applies the filter; a nil filter accepts everything.
func (r TypedFilteringResourceEventHandler[T]) accepts(obj T) bool {
	return r.FilterFunc == nil || r.FilterFunc(obj)
}

// OnAdd forwards to Handler when the filter accepts obj.
func (r TypedFilteringResourceEventHandler[T]) OnAdd(obj T, isInInitialList bool) {
	if r.Handler == nil || !r.accepts(obj) {
		return
	}
	r.Handler.OnAdd(obj, isInInitialList)
}

// OnUpdate forwards an update, an add or a delete to Handler, depending on
// which of the two states the filter accepts, or nothing when it accepts
// neither.
func (r TypedFilteringResourceEventHandler[T]) OnUpdate(oldObj, newObj T) {
	if r.Handler == nil {
		return
	}
	newer, older := r.accepts(newObj), r.accepts(oldObj)
	switch {
	case newer && older:
		r.Handler.OnUpdate(oldObj, newObj)
	case newer:
		r.Handler.OnAdd(newObj, false)
	case older:
		r.Handler.OnDelete(DeletedObject[T]{OptionalObj: oldObj})
	}
}

// OnDelete forwards to Handler when the filter accepts obj.OptionalObj.
func (r TypedFilteringResourceEventHandler[T]) OnDelete(obj DeletedObject[T]) {
	if r.Handler == nil || !r.accepts(obj.OptionalObj) {
		return
	}
	r.Handler.OnDelete(obj)
}

// typedResourceEventHandler adapts a TypedResourceEventHandler to the
// untyped notifications of an informer. Objects that are not of type T (a
// misconfigured informer) are reported as errors: adds and updates are
// dropped, deletes are still delivered, keyed, with a zero OptionalObj.
// client-go panics instead.
type typedResourceEventHandler[T Object] struct {
	handler TypedResourceEventHandler[T]
}

var _ ResourceEventHandler = typedResourceEventHandler[*metav1.PartialObjectMetadata]{}

func (h typedResourceEventHandler[T]) OnAdd(obj any, isInInitialList bool) {
	typed, ok := obj.(T)
	if !ok {
		h.wrongType("add", obj)
		return
	}
	h.handler.OnAdd(typed, isInInitialList)
}

func (h typedResourceEventHandler[T]) OnUpdate(oldObj, newObj any) {
	typedOld, okOld := oldObj.(T)
	typedNew, okNew := newObj.(T)
	if !okOld || !okNew {
		h.wrongType("update", newObj)
		return
	}
	h.handler.OnUpdate(typedOld, typedNew)
}

func (h typedResourceEventHandler[T]) OnDelete(obj any) {
	if tomb, ok := asTombstone(obj); ok {
		deleted := DeletedObject[T]{FinalStateUnknown: &tomb}
		if tomb.Obj != nil {
			typed, ok := tomb.Obj.(T)
			if !ok {
				h.wrongType("delete", tomb.Obj)
			}
			deleted.OptionalObj = typed
		}
		h.handler.OnDelete(deleted)
		return
	}
	if typed, ok := obj.(T); ok {
		h.handler.OnDelete(DeletedObject[T]{OptionalObj: typed})
		return
	}
	h.wrongType("delete", obj)
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	h.handler.OnDelete(DeletedObject[T]{FinalStateUnknown: &DeletedFinalStateUnknown{Key: key, Obj: obj}})
}

func (h typedResourceEventHandler[T]) wrongType(event string, obj any) {
	var want T
	utilruntime.HandleError(fmt.Errorf("typed event handler %s: %s notification carries a %T, not a %T", h.name(), event, obj, want))
}

// name describes the wrapped handler the way nameForHandler describes
// untyped ones: the common qualifier of the functions of the Funcs
// adapters, otherwise the package path and name of the handler's type.
// Registrations and logs use it instead of the adapter's own type name.
func (h typedResourceEventHandler[T]) name() string {
	var name string
	switch handler := h.handler.(type) {
	case nil:
		return ""
	case TypedResourceEventHandlerFuncs[T]:
		name = nameForFunctions(handler.AddFunc, handler.UpdateFunc, handler.DeleteFunc)
	case *TypedResourceEventHandlerFuncs[T]:
		if handler != nil {
			name = nameForFunctions(handler.AddFunc, handler.UpdateFunc, handler.DeleteFunc)
		}
	case TypedResourceEventHandlerDetailedFuncs[T]:
		name = nameForFunctions(handler.AddFunc, handler.UpdateFunc, handler.DeleteFunc)
	case *TypedResourceEventHandlerDetailedFuncs[T]:
		if handler != nil {
			name = nameForFunctions(handler.AddFunc, handler.UpdateFunc, handler.DeleteFunc)
		}
	default:
		t := reflect.TypeOf(handler)
		if v := reflect.ValueOf(handler); v.Kind() == reflect.Pointer && !v.IsNil() {
			t = t.Elem()
		}
		if t.PkgPath() != "" {
			name = t.PkgPath() + "." + t.Name()
		}
	}
	if name == "" {
		name = fmt.Sprintf("%T", h.handler)
	}
	return name
}
