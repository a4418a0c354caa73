package cache

// ResourceEventHandler receives the notifications of an informer. Calls are
// informational: a handler cannot refuse an event. The objects it receives are
// shared with the informer's store and with every other handler, so a handler
// must not modify them, nor anything reachable from them.
//
//   - OnAdd reports an object the informer had not seen. isInInitialList is
//     true when the object came with the informer's initial list (or, for a
//     handler added to a running shared informer, with the replay of the
//     store's contents).
//   - OnUpdate reports a new state of a known object. Intermediate states may
//     have been skipped, so oldObj is only the last state this handler saw.
//     Relists and periodic resyncs also call OnUpdate, possibly with
//     identical objects.
//   - OnDelete reports the final state of a deleted object or, when the
//     deletion was only noticed by a relist, a [DeletedFinalStateUnknown]
//     whose Obj is the last known (possibly stale, possibly nil) state.
//
// The informer calls one handler from one goroutine at a time, in event order.
type ResourceEventHandler interface {
	OnAdd(obj any, isInInitialList bool)
	OnUpdate(oldObj, newObj any)
	OnDelete(obj any)
}

// ResourceEventHandlerFuncs adapts up to three functions to
// [ResourceEventHandler]; nil functions ignore their events. AddFunc does not
// receive isInInitialList: use [ResourceEventHandlerDetailedFuncs] for that.
// The objects passed remain read-only.
type ResourceEventHandlerFuncs struct {
	AddFunc    func(obj any)
	UpdateFunc func(oldObj, newObj any)
	DeleteFunc func(obj any)
}

// OnAdd calls AddFunc, if set, with obj.
func (r ResourceEventHandlerFuncs) OnAdd(obj any, isInInitialList bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (r ResourceEventHandlerFuncs) OnUpdate(oldObj, newObj any) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set.
func (r ResourceEventHandlerFuncs) OnDelete(obj any) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(obj)
	}
}

// ResourceEventHandlerDetailedFuncs is [ResourceEventHandlerFuncs] whose
// AddFunc also receives isInInitialList. Nil functions ignore their events.
type ResourceEventHandlerDetailedFuncs struct {
	AddFunc    func(obj any, isInInitialList bool)
	UpdateFunc func(oldObj, newObj any)
	DeleteFunc func(obj any)
}

// OnAdd calls AddFunc, if set.
func (r ResourceEventHandlerDetailedFuncs) OnAdd(obj any, isInInitialList bool) {
	if r.AddFunc != nil {
		r.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc, if set.
func (r ResourceEventHandlerDetailedFuncs) OnUpdate(oldObj, newObj any) {
	if r.UpdateFunc != nil {
		r.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc, if set.
func (r ResourceEventHandlerDetailedFuncs) OnDelete(obj any) {
	if r.DeleteFunc != nil {
		r.DeleteFunc(obj)
	}
}

// FilteringResourceEventHandler forwards to Handler the events of the objects
// FilterFunc accepts. An update turns into an add when only the new state
// passes the filter (OnAdd(newObj, false)), and into a delete when only the
// old state does (OnDelete(oldObj), with the old object, not a tombstone).
// On deletes the filter sees exactly what OnDelete received, which may be a
// [DeletedFinalStateUnknown]. FilterFunc must not modify the objects.
//
// A nil FilterFunc accepts everything and a nil Handler drops everything;
// client-go panics in both cases.
type FilteringResourceEventHandler struct {
	FilterFunc func(obj any) bool
	Handler    ResourceEventHandler
}

// accepts applies the filter; a nil filter accepts everything.
func (r FilteringResourceEventHandler) accepts(obj any) bool {
	return r.FilterFunc == nil || r.FilterFunc(obj)
}

// OnAdd forwards to Handler when the filter accepts obj.
func (r FilteringResourceEventHandler) OnAdd(obj any, isInInitialList bool) {
	if r.Handler == nil || !r.accepts(obj) {
		return
	}
	r.Handler.OnAdd(obj, isInInitialList)
}

// OnUpdate forwards an update, an add or a delete to Handler, depending on
// which of the two states the filter accepts, or nothing when it accepts
// neither.
func (r FilteringResourceEventHandler) OnUpdate(oldObj, newObj any) {
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
		r.Handler.OnDelete(oldObj)
	}
}

// OnDelete forwards to Handler when the filter accepts obj.
func (r FilteringResourceEventHandler) OnDelete(obj any) {
	if r.Handler == nil || !r.accepts(obj) {
		return
	}
	r.Handler.OnDelete(obj)
}
