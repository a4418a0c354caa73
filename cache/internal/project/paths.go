package project

import (
	"fmt"
	"slices"
	"strings"
)

// pathNode is a node of the tree of kept paths: a segment's children, or
// keep when everything under it is kept.
type pathNode struct {
	keep     bool
	children map[string]*pathNode
}

// alwaysKept are the paths every projection keeps, beside the marker: what
// identifies the object and its version, so that a key function, a
// tombstone or a lister can still name a projected object. A typed object
// without one of these fields simply has nothing there to keep.
var alwaysKept = []string{"apiVersion", "kind", "metadata.name", "metadata.namespace", "metadata.uid", "metadata.resourceVersion"}

// parsePaths checks paths and returns them sorted, without duplicates and
// without those under another kept path.
func parsePaths(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("project: no paths to keep")
	}
	for _, p := range paths {
		if p == "" {
			return nil, fmt.Errorf("project: empty path")
		}
		for _, seg := range strings.Split(p, ".") {
			if seg == "" {
				return nil, fmt.Errorf("project: path %q has an empty segment", p)
			}
			if strings.TrimSpace(seg) != seg || strings.ContainsAny(seg, "[]*") {
				return nil, fmt.Errorf("project: path %q: segment %q is not a field name (a path is field names joined by dots, such as spec.nodeName)", p, seg)
			}
		}
	}
	sorted := slices.Clone(paths)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var out []string
	for _, p := range sorted {
		if len(out) > 0 && strings.HasPrefix(p, out[len(out)-1]+".") {
			continue // under a path kept whole
		}
		out = append(out, p)
	}
	return out, nil
}

// treeOf returns the tree of paths.
func treeOf(paths []string) *pathNode {
	root := &pathNode{}
	for _, p := range paths {
		n := root
		for _, seg := range strings.Split(p, ".") {
			if n.keep {
				break
			}
			if n.children == nil {
				n.children = map[string]*pathNode{}
			}
			c, ok := n.children[seg]
			if !ok {
				c = &pathNode{}
				n.children[seg] = c
			}
			n = c
		}
		n.keep, n.children = true, nil
	}
	return root
}
