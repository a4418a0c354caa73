package cache

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// informerNames is the process-wide registry of reserved informer names.
var informerNames = struct {
	mu    sync.Mutex
	names map[string]*InformerName // guarded by mu; only reserved names
}{names: map[string]*InformerName{}}

// InformerName is a process-wide unique informer name, reserved with
// [NewInformerName] to scope the metrics of the informers that carry it. Its
// methods are safe for concurrent use and accept a nil receiver.
type InformerName struct {
	name     string
	reserved atomic.Bool // false once released

	mu        sync.Mutex
	resources map[schema.GroupVersionResource]*atomic.Bool // guarded by mu
}

// NewInformerName reserves name. It fails when name is empty or another
// InformerName holds it and has not been released.
func NewInformerName(name string) (*InformerName, error) {
	if name == "" {
		return nil, errors.New("informer name cannot be empty")
	}
	informerNames.mu.Lock()
	defer informerNames.mu.Unlock()
	if _, taken := informerNames.names[name]; taken {
		return nil, fmt.Errorf("informer name %q is already registered", name)
	}
	n := &InformerName{name: name, resources: map[schema.GroupVersionResource]*atomic.Bool{}}
	n.reserved.Store(true)
	informerNames.names[name] = n
	return n, nil
}

// Name returns the reserved name, or "" for a nil InformerName.
func (n *InformerName) Name() string {
	if n == nil {
		return ""
	}
	return n.name
}

// WithResource returns the identity of one informer of this name for the given
// resource. The identity is reserved (metrics are published for it) while the
// name is reserved and no earlier identity of this name claimed the same
// resource; a duplicate is logged and gets an unreserved identity.
func (n *InformerName) WithResource(gvr schema.GroupVersionResource) InformerNameAndResource {
	if n == nil {
		return InformerNameAndResource{gvr: gvr}
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	id := InformerNameAndResource{name: n.name, gvr: gvr, reserved: &atomic.Bool{}}
	if !n.reserved.Load() {
		return id
	}
	if _, dup := n.resources[gvr]; dup {
		klog.Background().Error(nil, "Informer identity registered twice, metrics will not be published for the duplicate",
			"informerName", n.name, "group", gvr.Group, "version", gvr.Version, "resource", gvr.Resource)
		return id
	}
	id.reserved.Store(true)
	n.resources[gvr] = id.reserved
	return id
}

// Release gives the name back: every identity derived from it stops being
// reserved and the name can be registered again. Releasing twice is harmless.
func (n *InformerName) Release() {
	if n == nil {
		return
	}
	n.mu.Lock()
	for _, reserved := range n.resources {
		reserved.Store(false)
	}
	clear(n.resources)
	n.reserved.Store(false)
	n.mu.Unlock()

	informerNames.mu.Lock()
	defer informerNames.mu.Unlock()
	if informerNames.names[n.name] == n {
		delete(informerNames.names, n.name)
	}
}

// ResetInformerNamesForTesting releases every registered name. It is meant for
// tests that register names repeatedly.
func ResetInformerNamesForTesting() {
	informerNames.mu.Lock()
	names := make([]*InformerName, 0, len(informerNames.names))
	for _, n := range informerNames.names {
		names = append(names, n)
	}
	informerNames.mu.Unlock()
	for _, n := range names {
		n.Release()
	}
}

// InformerNameAndResource identifies one informer for metrics: its reserved
// name and the resource it watches. The zero value is a valid, unreserved
// identity. It is a small value, safe to copy and to use concurrently.
type InformerNameAndResource struct {
	name     string
	gvr      schema.GroupVersionResource
	reserved *atomic.Bool // nil for identities never reserved
}

// Name returns the informer name, or "" when there is none.
func (n InformerNameAndResource) Name() string {
	return n.name
}

// GroupVersionResource returns the resource of this identity.
func (n InformerNameAndResource) GroupVersionResource() schema.GroupVersionResource {
	return n.gvr
}

// Reserved reports whether metrics are published for this identity: its name
// is still reserved and no other identity claimed the same name and resource.
func (n InformerNameAndResource) Reserved() bool {
	return n.reserved != nil && n.reserved.Load()
}
