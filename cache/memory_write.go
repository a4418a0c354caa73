package cache

import (
	"fmt"
	"slices"
	"sync"

	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/informer-go/informer/cache/internal/project"
)

// transform returns the informer's transform step: user (the informer's
// own transform, may be nil) and then the memory mode, in the order
// [MemoryOptions] documents. indexers are the informer's indexes when it
// starts; with Keep, the values of each are checked before and after the
// projection. A nil mode returns user unchanged.
func (m *memoryMode) transform(user TransformFunc, indexers Indexers) TransformFunc {
	if m == nil || !m.dropManagedFields && m.projection == nil && m.table == nil {
		return user
	}
	var check *indexCheck
	if m.projection != nil && len(indexers) > 0 {
		check = &indexCheck{indexers: indexers, reported: map[string]bool{}}
	}
	return func(obj any) (any, error) {
		if user != nil {
			var err error
			if obj, err = user(obj); err != nil {
				return obj, err
			}
		}
		return m.apply(obj, check)
	}
}

// apply trims, projects and shares obj, an object fresh from the decoder
// (or from the user's transform) that no reader holds yet.
func (m *memoryMode) apply(obj any, check *indexCheck) (any, error) {
	if isNilObject(obj) {
		return obj, nil // the queue's key function reports it
	}
	if m.dropManagedFields {
		obj, _ = project.DropManagedFields(obj) // never fails; leaves objects without metadata alone
	}
	if m.projection != nil {
		var before map[string][]string
		if check != nil {
			before = check.values(obj)
		}
		projected, err := m.projection.Apply(obj)
		if err != nil {
			return obj, fmt.Errorf("memory options: %w", err)
		}
		obj = projected
		if check != nil {
			check.compare(before, obj)
		}
	}
	if m.table != nil {
		obj = m.table.Share(obj)
	}
	return obj, nil
}

// indexCheck compares the index values of an object before and after its
// projection, and reports each index that differs once.
type indexCheck struct {
	indexers Indexers // read-only

	mu       sync.Mutex
	reported map[string]bool // guarded by mu; the indexes reported
}

// values returns the values of every index of obj; an index function that
// fails is left out (the store reports it).
func (c *indexCheck) values(obj any) map[string][]string {
	out := make(map[string][]string, len(c.indexers))
	for name, fn := range c.indexers {
		if fn == nil {
			continue
		}
		if v, err := fn(obj); err == nil {
			out[name] = v
		}
	}
	return out
}

// compare reports the indexes whose values of obj, projected, differ from
// before.
func (c *indexCheck) compare(before map[string][]string, obj any) {
	after := c.values(obj)
	for name, v := range before {
		if slices.Equal(v, after[name]) {
			continue
		}
		c.mu.Lock()
		first := !c.reported[name]
		c.reported[name] = true
		c.mu.Unlock()
		if first {
			utilruntime.HandleError(fmt.Errorf("memory options: index %q reads a field that Keep drops (values %q on the full object, %q projected): add its path to MemoryOptions.Keep", name, v, after[name]))
		}
	}
}
