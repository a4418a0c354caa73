package project

import (
	"fmt"
	"reflect"
	"strings"
)

// jsonField is a field of a struct as encoding/json sees it: its JSON name
// and where it is, through inline embedded structs.
type jsonField struct {
	name  string
	index []int
	typ   reflect.Type
}

// jsonFields returns the JSON fields of struct type t, those of inline
// embedded structs (an anonymous struct field without a JSON name, such as
// `json:",inline"` TypeMeta) promoted; a direct field wins over a promoted
// one of the same name.
func jsonFields(t reflect.Type) map[string]jsonField {
	out := map[string]jsonField{}
	var promoted []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && f.Tag.Get("json") == "-" {
			continue
		}
		if f.Anonymous && name == "" && inlineStruct(f.Type) {
			for _, p := range jsonFields(derefStruct(f.Type)) {
				promoted = append(promoted, jsonField{name: p.name, index: append([]int{i}, p.index...), typ: p.typ})
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = jsonField{name: name, index: []int{i}, typ: f.Type}
	}
	for _, p := range promoted {
		if _, ok := out[p.name]; !ok {
			out[p.name] = p
		}
	}
	return out
}

func inlineStruct(t reflect.Type) bool { return derefStruct(t).Kind() == reflect.Struct }

func derefStruct(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// validatePath checks that path selects a field of type t: every segment
// names a JSON field of the struct reached so far, through pointers,
// slices and arrays; a map, an interface, a byte slice or a scalar can be
// kept whole but has nothing to select inside.
func validatePath(t reflect.Type, path string) error {
	segs := strings.Split(path, ".")
	at := t
	for k, seg := range segs {
		at = elemOf(at)
		if at.Kind() != reflect.Struct {
			return fmt.Errorf("project: path %q: %s is %s, which has no fields to select (keep it whole with %q)",
				path, strings.Join(segs[:k], "."), describe(at), strings.Join(segs[:k], "."))
		}
		f, ok := jsonFields(at)[seg]
		if !ok {
			where := strings.Join(segs[:k], ".")
			if where == "" {
				where = "the object"
			}
			return fmt.Errorf("project: path %q: %s (%s) has no field %q", path, where, at, seg)
		}
		at = f.typ
	}
	return nil
}

// elemOf returns the type reached through t's pointers, slices and arrays
// (byte slices excepted).
func elemOf(t reflect.Type) reflect.Type {
	for {
		switch t.Kind() {
		case reflect.Pointer, reflect.Array:
			t = t.Elem()
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 {
				return t
			}
			t = t.Elem()
		default:
			return t
		}
	}
}

func describe(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map:
		return "a map (" + t.String() + ")"
	case reflect.Interface:
		return "an interface (" + t.String() + ")"
	case reflect.Slice:
		return "a byte slice (" + t.String() + ")"
	}
	return "a " + t.String()
}

// action is what a typed projection does to a field.
type action uint8

const (
	keepField action = iota
	zeroField
	descendField
)

// tnode is the compiled projection of a value of one type: for a struct,
// what to do with each field; for a pointer, slice or array, the
// projection of its elements.
type tnode struct {
	kind   reflect.Kind
	fields []tfield // struct
	elem   *tnode   // pointer, slice, array
}

type tfield struct {
	index  int
	action action
	child  *tnode // descendField
}

// compile returns the projection of type t that keeps what n selects, or
// nil when n keeps t whole. Segments that name no field are ignored: the
// user's paths were validated, and the always-kept ones need not exist.
func compile(t reflect.Type, n *pathNode) *tnode {
	if n.keep {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Array:
		return &tnode{kind: t.Kind(), elem: compile(t.Elem(), n)}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil
		}
		return &tnode{kind: reflect.Slice, elem: compile(t.Elem(), n)}
	case reflect.Struct:
		return compileStruct(t, n)
	}
	return nil // nothing selectable inside: validated paths never end here
}

// compileStruct returns the projection of struct type t: a field selected
// by n is kept or descended into, an inline embedded struct is descended
// into with the part of n its promoted fields match, and every other
// exported field is zeroed.
func compileStruct(t reflect.Type, n *pathNode) *tnode {
	fields := jsonFields(t)
	sub := make(map[int]*pathNode) // direct field index → what n selects in it
	for seg, c := range n.children {
		f, ok := fields[seg]
		if !ok {
			continue
		}
		if len(f.index) == 1 {
			sub[f.index[0]] = c
			continue
		}
		// A promoted field: select it in the embedded struct.
		s := sub[f.index[0]]
		if s == nil {
			s = &pathNode{children: map[string]*pathNode{}}
			sub[f.index[0]] = s
		}
		if s.children != nil {
			s.children[seg] = c
		}
	}
	node := &tnode{kind: reflect.Struct}
	for i := range t.NumField() {
		f := t.Field(i)
		c, selected := sub[i]
		switch {
		case selected:
			if child := compile(f.Type, c); child != nil {
				node.fields = append(node.fields, tfield{index: i, action: descendField, child: child})
			}
		case f.IsExported() || (f.Anonymous && inlineStruct(f.Type)):
			node.fields = append(node.fields, tfield{index: i, action: zeroField})
		}
	}
	return node
}

// apply projects v, an addressable value of the node's type, in place.
func (n *tnode) apply(v reflect.Value) {
	if n == nil {
		return
	}
	switch n.kind {
	case reflect.Pointer:
		if !v.IsNil() {
			n.elem.apply(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		if n.elem == nil {
			return
		}
		for i := range v.Len() {
			n.elem.apply(v.Index(i))
		}
	case reflect.Struct:
		for _, f := range n.fields {
			fv := v.Field(f.index)
			switch f.action {
			case zeroField:
				if fv.CanSet() && !fv.IsZero() {
					fv.SetZero()
				}
			case descendField:
				f.child.apply(fv)
			}
		}
	}
}
