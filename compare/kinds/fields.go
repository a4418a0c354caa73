package kinds

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// listKeys are the key fields of the associative lists of the objects of
// this package, by field name, as the OpenAPI schema of core/v1 declares
// them; every other list is atomic. (The names do not collide within a Pod
// or a Secret.)
var listKeys = map[string][]string{
	"containers":       {"name"},
	"env":              {"name"},
	"ports":            {"containerPort", "protocol"},
	"volumeMounts":     {"mountPath"},
	"volumes":          {"name"},
	"ownerReferences":  {"uid"},
	"conditions":       {"type"},
	"podIPs":           {"ip"},
	"hostIPs":          {"ip"},
	"imagePullSecrets": {"name"},
}

// fieldsV1 returns the managed-fields set (the FieldsV1 JSON of a
// ManagedFieldsEntry) of a manager that set every field of v, a value that
// marshals to a JSON object, such as
// map[string]any{"metadata": ..., "spec": pod.Spec}: a field f is "f:f",
// an item of an associative list "k:" and its key fields, a map or list
// item owned as a whole also lists ".".
func fieldsV1(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	set := map[string]any{}
	for name, child := range tree {
		s, err := fieldSetOf(name, child, false)
		if err != nil {
			return nil, err
		}
		set["f:"+name] = s
	}
	return json.Marshal(set) // sorted keys: a stable encoding
}

// fieldSetOf returns the set of the fields of value, the value of field
// name; whole says the field's own entry (".") is listed.
func fieldSetOf(name string, value any, whole bool) (map[string]any, error) {
	set := map[string]any{}
	switch v := value.(type) {
	case map[string]any:
		if len(v) == 0 {
			return set, nil
		}
		if whole {
			set["."] = map[string]any{}
		}
		for k, child := range v {
			s, err := fieldSetOf(k, child, true)
			if err != nil {
				return nil, err
			}
			set["f:"+k] = s
		}
	case []any:
		keys, ok := listKeys[name]
		if !ok || len(v) == 0 {
			return set, nil // atomic: owned as one value
		}
		if whole {
			set["."] = map[string]any{}
		}
		for _, item := range v {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("an item of list %q is not an object", name)
			}
			key, err := itemKey(m, keys)
			if err != nil {
				return nil, fmt.Errorf("list %q: %w", name, err)
			}
			s, err := fieldSetOf(name+"[]", m, true)
			if err != nil {
				return nil, err
			}
			set["k:"+key] = s
		}
	}
	return set, nil
}

// itemKey returns the key of an item of an associative list: a JSON object
// of its key fields, in sorted order.
func itemKey(item map[string]any, keys []string) (string, error) {
	key := map[string]any{}
	for _, k := range keys {
		v, ok := item[k]
		if !ok {
			return "", fmt.Errorf("an item lacks key field %q", k)
		}
		key[k] = v
	}
	b, err := json.Marshal(key)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// placeholders substitutes the values that vary between the objects built
// from one prototype into the prototype's managed-fields set: computing the
// set of every object anew would cost more than building the object.
type placeholders struct {
	// names are the placeholders, in the order of the values replace takes.
	names []string
	// proto is a set computed from a prototype whose varying values were
	// the placeholders.
	proto string
}

// replace returns the set with the placeholders replaced by values.
func (p placeholders) replace(values ...string) *metav1.FieldsV1 {
	pairs := make([]string, 0, 2*len(values))
	for k, v := range values {
		pairs = append(pairs, p.names[k], v)
	}
	return metav1.NewFieldsV1(strings.NewReplacer(pairs...).Replace(p.proto))
}

// check reports whether every placeholder occurs in the set.
func (p placeholders) check() error {
	for _, name := range p.names {
		if !strings.Contains(p.proto, name) {
			return fmt.Errorf("placeholder %q is not in the managed fields %s", name, p.proto)
		}
	}
	if slices.Contains(p.names, "") {
		return fmt.Errorf("an empty placeholder")
	}
	return nil
}
