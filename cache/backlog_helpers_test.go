package cache

import (
	"fmt"
	"maps"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// replayView is a ResourceEventHandler that replays what it is told into a
// view of the objects (key to resource version) and records every call that
// a handler of a consistent informer must never get: an add of an object it
// has, an update or delete of one it does not have, an update whose old
// object is not the state it was last told. Its methods are safe for
// concurrent use.
type replayView struct {
	mu       sync.Mutex
	objs     map[string]string // key -> resource version
	calls    int
	problems []string
	// onCall, when set, runs at the start of every call, outside the lock.
	onCall func()
}

func newReplayView() *replayView { return &replayView{objs: map[string]string{}} }

func (v *replayView) OnAdd(obj any, _ bool) {
	v.enter()
	key, rv := describeObject(obj)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	if have, ok := v.objs[key]; ok {
		v.problems = append(v.problems, fmt.Sprintf("add %s@%s while it has @%s", key, rv, have))
	}
	v.objs[key] = rv
}

func (v *replayView) OnUpdate(oldObj, newObj any) {
	v.enter()
	key, rv := describeObject(newObj)
	_, oldRV := describeObject(oldObj)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	switch have, ok := v.objs[key]; {
	case !ok:
		v.problems = append(v.problems, fmt.Sprintf("update %s@%s while it does not have it", key, rv))
	case have != oldRV:
		v.problems = append(v.problems, fmt.Sprintf("update %s from @%s while it has @%s", key, oldRV, have))
	}
	v.objs[key] = rv
}

func (v *replayView) OnDelete(obj any) {
	v.enter()
	key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls++
	if err != nil {
		v.problems = append(v.problems, fmt.Sprintf("delete without a key: %v", err))
		return
	}
	if _, ok := v.objs[key]; !ok {
		v.problems = append(v.problems, fmt.Sprintf("delete %s while it does not have it", key))
	}
	delete(v.objs, key)
}

func (v *replayView) enter() {
	if v.onCall != nil {
		v.onCall()
	}
}

// snapshot returns a copy of the view, the number of calls and the problems.
func (v *replayView) snapshot() (map[string]string, int, []string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return maps.Clone(v.objs), v.calls, append([]string(nil), v.problems...)
}

// storeView returns the key to resource version map of a store's objects.
func storeView(store Store) map[string]string {
	view := map[string]string{}
	for _, obj := range store.List() {
		key, rv := describeObject(obj)
		view[key] = rv
	}
	return view
}

// setUID returns obj with uid set.
func setUID(obj *metav1.PartialObjectMetadata, uid string) *metav1.PartialObjectMetadata {
	obj.UID = types.UID(uid)
	return obj
}
