package project

import (
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Annotation is the annotation that marks a projected object. Its value
// is the projection's kept paths, sorted and joined by commas (the paths
// every projection keeps, [AlwaysKept], are not listed).
const Annotation = "informer-go.io/projected"

// AlwaysKept returns the paths every projection keeps besides its own, so
// that a projected object can still be named: apiVersion, kind, and the
// metadata's name, namespace, uid and resourceVersion.
func AlwaysKept() []string { return append([]string(nil), alwaysKept...) }

// Projection keeps chosen field paths of the objects of one type and
// zeroes, or for unstructured objects deletes, everything else.
//
// A Projection is immutable after [New] and safe for concurrent use.
type Projection struct {
	paths  []string
	marker string
	typ    reflect.Type // the example's type, a pointer to a struct; nil for unstructured objects
	typed  *tnode       // the projection of *typ
	tree   *pathNode    // the kept paths, the always-kept ones included
}

// New returns the projection that keeps paths of objects of example's
// type. A path is JSON field names joined by dots ("metadata",
// "spec.nodeName", "status.containerStatuses.ready"); lists on the way are
// crossed, each element projected. Paths under another kept path are
// redundant and dropped.
//
// For a typed example (a pointer to a struct implementing metav1.Object),
// every path is checked against the type: a segment that names no JSON
// field, or that selects inside a map, an interface, a byte slice or a
// scalar, is an error naming the path and the type. For an
// *unstructured.Unstructured example a path is a sequence of map keys and
// only its syntax is checked. An example of another kind is an error.
func New(example any, paths []string) (*Projection, error) {
	kept, err := parsePaths(paths)
	if err != nil {
		return nil, err
	}
	p := &Projection{paths: kept, marker: strings.Join(kept, ","), tree: treeOf(append(kept, alwaysKept...))}
	if _, ok := example.(*unstructured.Unstructured); ok {
		return p, nil
	}
	t := reflect.TypeOf(example)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("project: example of type %T: want a pointer to a struct or an *unstructured.Unstructured", example)
	}
	if _, err := meta.Accessor(example); err != nil {
		return nil, fmt.Errorf("project: example of type %T has no object metadata to mark: %w", example, err)
	}
	for _, path := range kept {
		if err := validatePath(t.Elem(), path); err != nil {
			return nil, err
		}
	}
	p.typ, p.typed = t, compile(t.Elem(), p.tree)
	return p, nil
}

// Paths returns the projection's kept paths, sorted, without those every
// projection keeps.
func (p *Projection) Paths() []string { return append([]string(nil), p.paths...) }

// Apply projects obj in place and marks it with [Annotation], then returns
// it; it fits client-go's TransformFunc. obj must be of the example's
// type (for unstructured projections, an *unstructured.Unstructured);
// another type, or a nil pointer, is an error and obj is left untouched.
//
// Apply writes into obj, as a TransformFunc may: call it only on an object
// fresh from the decoder that no one else holds, before the cache
// publishes it. The cache's key function and indexers must read the full
// object, so compute keys and index values before projecting; a projected
// object keeps [AlwaysKept], so a key computed from it again (for a
// tombstone, say) is the same.
//
// For an unstructured object, a value that is not an object where a path
// goes on (a string at "spec" when "spec.nodeName" is kept) holds nothing
// at that path and is deleted; the elements of a list that are not objects
// are kept, so that the list keeps its length.
func (p *Projection) Apply(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok && p.typ == nil {
		if u == nil {
			return obj, fmt.Errorf("project: nil *unstructured.Unstructured")
		}
		if u.Object == nil {
			u.Object = map[string]any{}
		}
		projectMap(u.Object, p.tree, 0)
		markUnstructured(u.Object, p.marker)
		return obj, nil
	}
	if p.typ == nil || reflect.TypeOf(obj) != p.typ {
		return obj, fmt.Errorf("project: object of type %T, but the projection is for %s", obj, p.typeName())
	}
	v := reflect.ValueOf(obj)
	if v.IsNil() {
		return obj, fmt.Errorf("project: nil %T", obj)
	}
	p.typed.apply(v.Elem())
	m, err := meta.Accessor(obj)
	if err != nil { // New checked the type
		return obj, fmt.Errorf("project: %T: %w", obj, err)
	}
	ann := m.GetAnnotations()
	if marker, ok := ann[Annotation]; ok && marker == p.marker {
		// Projected already (a list handed to the queue again, a
		// streaming list's objects transformed as they arrived): only
		// read, as its maps may be shared with cached objects by now.
		return obj, nil
	}
	if ann == nil {
		ann = make(map[string]string, 1)
	}
	ann[Annotation] = p.marker
	m.SetAnnotations(ann)
	return obj, nil
}

func (p *Projection) typeName() string {
	if p.typ == nil {
		return "*unstructured.Unstructured"
	}
	return p.typ.String()
}

// maxDepth bounds the nesting of lists that projectList crosses without
// consuming a path segment, so that a list holding itself ends.
const maxDepth = 1000

// projectMap keeps in m, an object of an unstructured object, what n
// selects.
func projectMap(m map[string]any, n *pathNode, depth int) {
	for k, v := range m {
		c, ok := n.children[k]
		switch {
		case !ok:
			delete(m, k)
		case c.keep:
		default:
			switch x := v.(type) {
			case map[string]any:
				projectMap(x, c, depth+1)
			case []any:
				projectList(x, c, depth+1)
			default:
				delete(m, k) // nothing at the path inside a scalar
			}
		}
	}
}

// projectList projects the objects (and nested lists) of l with n.
func projectList(l []any, n *pathNode, depth int) {
	if depth >= maxDepth {
		return
	}
	for _, v := range l {
		switch x := v.(type) {
		case map[string]any:
			projectMap(x, n, depth+1)
		case []any:
			projectList(x, n, depth+1)
		}
	}
}

// markUnstructured sets the marker annotation of obj, creating its
// metadata and annotations when they are missing or not objects.
func markUnstructured(obj map[string]any, marker string) {
	md, ok := obj["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		obj["metadata"] = md
	}
	ann, ok := md["annotations"].(map[string]any)
	if v, marked := ann[Annotation].(string); marked && v == marker {
		return // marked already: only read, as its maps may be shared
	}
	if !ok {
		ann = make(map[string]any, 1)
		md["annotations"] = ann
	}
	ann[Annotation] = marker
}

// IsProjected reports whether obj carries [Annotation]: it was projected,
// and writing it back to the API server would clear the fields it lacks.
// An object without metadata is not projected.
func IsProjected(obj any) bool {
	_, ok := ProjectedPaths(obj)
	return ok
}

// ProjectedPaths returns the kept paths recorded in obj's [Annotation]
// (without [AlwaysKept]), and whether obj carries it.
func ProjectedPaths(obj any) ([]string, bool) {
	var v string
	var ok bool
	if u, isU := obj.(*unstructured.Unstructured); isU {
		if u == nil {
			return nil, false
		}
		var found bool
		v, found, _ = unstructured.NestedString(u.Object, "metadata", "annotations", Annotation)
		ok = found
	} else {
		m, err := meta.Accessor(obj)
		if err != nil || reflect.ValueOf(obj).Kind() == reflect.Pointer && reflect.ValueOf(obj).IsNil() {
			return nil, false
		}
		v, ok = m.GetAnnotations()[Annotation]
	}
	if !ok {
		return nil, false
	}
	if v == "" {
		return []string{}, true
	}
	return strings.Split(v, ","), true
}
