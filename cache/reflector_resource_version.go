package cache

import (
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// syncedVersion is where a reflector stands: the newest resource version it
// has handed its store everything up to, and whether the server can still
// serve it. Requests derive their resource version from it:
//
//   - a list asks for "0" (servable from the watch cache) before anything
//     was recorded, for the recorded version afterwards, and for "" (the
//     most recent state, a quorum read) while the version is unavailable;
//   - a streaming list asks for the recorded version, possibly "", or for ""
//     while it is unavailable;
//   - a watch resumes from the recorded version.
//
// The version is recorded from a list, a streaming list's initial-events-end
// bookmark, and the events of a watch that eventVersions admits. It is
// safe for concurrent use: others read the version while the reflector runs.
type syncedVersion struct {
	mu sync.RWMutex
	// version is the recorded resource version, "" before the first list.
	// Guarded by mu.
	version string
	// unavailable records that a request at version failed because the
	// server cannot serve it (the retry policy's fromMostRecent): the
	// next list or streaming list reads the most recent state. A request
	// that succeeds clears it. Guarded by mu.
	unavailable bool
}

// get returns the recorded version; watches resume from it.
func (v *syncedVersion) get() string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.version
}

// set records rv.
func (v *syncedVersion) set(rv string) {
	v.mu.Lock()
	v.version = rv
	v.mu.Unlock()
}

// setUnavailable records whether the server can serve the recorded version.
func (v *syncedVersion) setUnavailable(unavailable bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.unavailable = unavailable
}

// forList returns the resource version of the next list.
func (v *syncedVersion) forList() string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	switch {
	case v.unavailable:
		return ""
	case v.version == "":
		return "0"
	default:
		return v.version
	}
}

// forStreamingList returns the resource version of the next streaming list.
func (v *syncedVersion) forStreamingList() string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.unavailable {
		return ""
	}
	return v.version
}

// eventVersions decides which events of one plain watch carry a resource
// version the reflector records. A watch from "" or "0" starts with
// synthetic ADDED events of the current objects in no particular order: their
// versions are not recorded until an event of another type (a change or a
// bookmark) shows that they are over. Every other watch, including the one a
// streaming list hands over past its initial events, records every event's
// version. The zero value admits nothing until such an event.
type eventVersions struct {
	// open is set once versions are recorded.
	open bool
}

// eventVersionsFrom returns the eventVersions of a watch resuming at
// resourceVersion.
func eventVersionsFrom(resourceVersion string) eventVersions {
	return eventVersions{open: resourceVersion != "" && resourceVersion != "0"}
}

// admits reports whether the version of an applied event of type t is
// recorded.
func (e *eventVersions) admits(t watch.EventType) bool {
	if t != watch.Added {
		e.open = true
	}
	return e.open
}

// listResourceVersion returns the resource version of a list the pager
// accepted, "" if it has none.
func listResourceVersion(list runtime.Object) string {
	listMeta, err := meta.ListAccessor(list)
	if err != nil {
		return ""
	}
	return listMeta.GetResourceVersion()
}
