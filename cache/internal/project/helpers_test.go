package project

import (
	"encoding/json"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// model returns what a projection keeping paths makes of obj, computed
// naively: a copy of each kept path (the always-kept ones included) into
// an empty object, lists crossed element by element, then the marker.
func model(obj map[string]any, paths []string, marker string) map[string]any {
	out := map[string]any{}
	for _, p := range append(append([]string(nil), paths...), alwaysKept...) {
		out = copyPath(obj, out, strings.Split(p, "."), 0).(map[string]any)
	}
	md, ok := out["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		out["metadata"] = md
	}
	ann, ok := md["annotations"].(map[string]any)
	if !ok {
		ann = map[string]any{}
		md["annotations"] = ann
	}
	ann[Annotation] = marker
	return out
}

// copyPath copies into dst what path segs selects in src, both values of
// the same position, and returns dst.
func copyPath(src, dst any, segs []string, depth int) any {
	switch s := src.(type) {
	case map[string]any:
		d, ok := dst.(map[string]any)
		if !ok {
			d = map[string]any{}
		}
		v, ok := s[segs[0]]
		if !ok {
			return d
		}
		if len(segs) == 1 {
			d[segs[0]] = runtime.DeepCopyJSONValue(v)
			return d
		}
		switch v.(type) {
		case map[string]any, []any:
			d[segs[0]] = copyPath(v, d[segs[0]], segs[1:], depth+1)
		}
		return d
	case []any:
		d, ok := dst.([]any)
		if !ok {
			d = make([]any, len(s))
			for i, e := range s {
				switch e.(type) {
				case map[string]any, []any:
				default:
					d[i] = runtime.DeepCopyJSONValue(e)
				}
			}
		}
		if depth >= maxDepth {
			return d
		}
		for i, e := range s {
			switch e.(type) {
			case map[string]any, []any:
				d[i] = copyPath(e, d[i], segs, depth+1)
			}
		}
		return d
	}
	return dst
}

// toMap returns v marshalled to JSON and back into a map, with the zero
// values a typed object marshals (null, false, 0, "", {} and []) removed,
// so that a typed projection compares with the model of its JSON.
func toMap(v any) map[string]any {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		panic(err)
	}
	prune(m)
	return m
}

// prune removes the zero values of m, recursively; it returns whether m
// ends up empty.
func prune(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if prune(e) {
				delete(x, k)
			}
		}
		return len(x) == 0
	case []any:
		for _, e := range x {
			prune(e)
		}
		return len(x) == 0
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	}
	return false
}
