package share

import (
	"encoding/binary"
	"reflect"
	"strconv"
)

// randomValue builds an unstructured value (as a JSON decoder builds one:
// maps, lists, strings, int64, float64, bool and nil) from the bytes of a
// fuzz input, up to depth levels deep. Strings come mostly from a small
// pool, so that values repeat within and across objects.
type randomValue struct{ b []byte }

func (r *randomValue) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *randomValue) object(depth int) map[string]any {
	m := map[string]any{}
	for range int(r.byte() % 6) {
		m[r.string()] = r.value(depth - 1)
	}
	return m
}

func (r *randomValue) value(depth int) any {
	c := r.byte()
	if depth <= 0 {
		c %= 5
	}
	switch c % 8 {
	case 0:
		return r.string()
	case 1:
		return int64(c) << 20
	case 2:
		return float64(c) / 3
	case 3:
		return c%2 == 0
	case 4:
		return nil
	case 5, 6:
		return r.object(depth)
	default:
		l := make([]any, int(r.byte()%5))
		for i := range l {
			l[i] = r.value(depth - 1)
		}
		return l
	}
}

var stringPool = []string{"", "a", "app", "kubernetes.io/name", "v1", "Running", "True", "registry.example.com/web:1.2.3", "node-1", "ns-1"}

func (r *randomValue) string() string {
	c := r.byte()
	if c < 200 {
		// A fresh copy of a pooled string, as a decoder allocates one.
		return string([]byte(stringPool[int(c)%len(stringPool)]))
	}
	n := int(r.byte() % 24)
	if n > len(r.b) {
		n = len(r.b)
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// stringsOf returns the non-empty strings reachable from v through
// exported fields, maps (keys and values), slices, pointers and
// interfaces, keyed by a description of where each was found.
func stringsOf(v any) map[string]string {
	out := map[string]string{}
	var walk func(path string, v reflect.Value, depth int)
	walk = func(path string, v reflect.Value, depth int) {
		if depth > 64 {
			return
		}
		switch v.Kind() {
		case reflect.String:
			if v.Len() > 0 {
				out[path] = v.String()
			}
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(path, v.Elem(), depth+1)
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(path+"["+strconv.Itoa(i)+"]", v.Index(i), depth+1)
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				k := it.Key()
				kp := path + "{" + k.String() + "}"
				walk(kp+"#key", k, depth+1)
				walk(kp, it.Value(), depth+1)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(path+"."+v.Type().Field(i).Name, v.Field(i), depth+1)
				}
			}
		}
	}
	walk("", reflect.ValueOf(v), 0)
	return out
}

// fuzzSeed returns n bytes of a deterministic pseudo-random seed.
func fuzzSeed(seed uint64, n int) []byte {
	b := make([]byte, 0, n+8)
	for len(b) < n {
		seed = seed*6364136223846793005 + 1442695040888963407
		b = binary.LittleEndian.AppendUint64(b, seed)
	}
	return b[:n]
}
