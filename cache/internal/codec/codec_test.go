package codec

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		example runtime.Object
		opts    Options
		want    Format // 0: New fails with ErrNoCodec
	}{
		{name: "nil example", example: nil},
		{name: "typed nil example", example: (*configMap)(nil), want: Protobuf},
		{name: "generated protobuf", example: &metav1.PartialObjectMetadata{}, want: Protobuf},
		{name: "hand-written protobuf", example: &configMap{}, want: Protobuf},
		{name: "protobuf preferred over allowed json", example: &configMap{}, opts: Options{AllowJSON: true}, want: Protobuf},
		{name: "unstructured defaults to cbor", example: &unstructured.Unstructured{}, want: CBOR},
		{name: "unstructured cbor", example: &unstructured.Unstructured{}, opts: Options{Unstructured: CBOR}, want: CBOR},
		{name: "unstructured json", example: &unstructured.Unstructured{}, opts: Options{Unstructured: JSON}, want: JSON},
		{name: "unstructured protobuf refused", example: &unstructured.Unstructured{}, opts: Options{Unstructured: Protobuf}},
		{name: "no protobuf, json not allowed", example: &plain{}},
		{name: "no protobuf, json allowed", example: &plain{}, opts: Options{AllowJSON: true}, want: JSON},
		{name: "unstructured list", example: &unstructured.UnstructuredList{}},
		{name: "protobuf promoted from the only embedded TypeMeta", example: &embedsTypeMeta{}},
		{name: "promoted protobuf, json allowed", example: &embedsTypeMeta{}, opts: Options{AllowJSON: true}, want: JSON},
		{name: "own protobuf beside one embedded TypeMeta", example: &shadowsTypeMeta{}},
		{name: "no TypeMeta", example: &faulty{}, want: Protobuf},
		{name: "Marshal and Unmarshal of other signatures", example: &otherMarshal{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.example, tc.opts)
			if tc.want == 0 {
				if !errors.Is(err, ErrNoCodec) {
					t.Fatalf("New: got codec %v, err %v; want an error wrapping ErrNoCodec", c, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if got := c.Format(); got != tc.want {
				t.Errorf("Format() = %v, want %v", got, tc.want)
			}
		})
	}
}

// roundTripCases are the codecs and objects of the round-trip tests.
func roundTripCases() []struct {
	name    string
	example runtime.Object
	opts    Options
	objs    []runtime.Object
} {
	return []struct {
		name    string
		example runtime.Object
		opts    Options
		objs    []runtime.Object
	}{
		{
			name: "generated protobuf", example: &metav1.PartialObjectMetadata{},
			objs: []runtime.Object{newMetadata(1, true), newMetadata(2, false), &metav1.PartialObjectMetadata{},
				&metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{Kind: "OnlyKind"}},
				&metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "odd/api/version", Kind: strings.Repeat("k", 300)}}},
		},
		{
			name: "hand-written protobuf", example: &configMap{},
			objs: []runtime.Object{newConfigMap(1, true), newConfigMap(2, false), &configMap{}},
		},
		{
			name: "unstructured cbor", example: &unstructured.Unstructured{},
			objs: []runtime.Object{newUnstructured(1), newUnstructured(2), &unstructured.Unstructured{Object: map[string]any{}}},
		},
		{
			name: "unstructured json", example: &unstructured.Unstructured{}, opts: Options{Unstructured: JSON},
			objs: []runtime.Object{newUnstructured(1), newUnstructured(2), &unstructured.Unstructured{Object: map[string]any{}}},
		},
		{
			name: "typed json", example: &plain{}, opts: Options{AllowJSON: true},
			objs: []runtime.Object{
				&plain{
					TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Plain"},
					ObjectMeta: newConfigMap(3, false).ObjectMeta,
					Spec:       plainSpec{Replicas: 1 << 60, Ratio: 0.5, Selector: map[string]string{"app": "a"}, Ports: []int32{80, 443}},
				},
				&plain{},
			},
		},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range roundTripCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := mustNew(t, tc.example, tc.opts)
			for _, obj := range tc.objs {
				before := obj.DeepCopyObject()
				b, err := c.Encode(obj)
				if err != nil {
					t.Fatalf("Encode: %v", err)
				}
				if len(b) != cap(b) {
					t.Errorf("Encode returned len %d cap %d, want a slice of its own length", len(b), cap(b))
				}
				got, err := c.Decode(b)
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				if diff := cmp.Diff(obj, got, equalTimes); diff != "" {
					t.Errorf("Decode(Encode(obj)) differs (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(before, obj, equalTimes); diff != "" {
					t.Errorf("Encode modified its object (-before +after):\n%s", diff)
				}
			}
		})
	}
}

// TestDecodeIsFresh checks that decoded objects share nothing mutable with
// the bytes or with each other: mutating one, or the bytes, changes no
// other.
func TestDecodeIsFresh(t *testing.T) {
	for _, tc := range roundTripCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := mustNew(t, tc.example, tc.opts)
			obj := tc.objs[0]
			b, err := c.Encode(obj)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			first, err := c.Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			second, err := c.Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			scribble(first)
			for i := range b {
				b[i] = 0xff
			}
			if diff := cmp.Diff(obj, second, equalTimes); diff != "" {
				t.Errorf("a decoded object changed with another one or with the bytes (-want +got):\n%s", diff)
			}
		})
	}
}

// scribble mutates every map and byte slice of obj that a decode could
// share.
func scribble(obj runtime.Object) {
	switch o := obj.(type) {
	case *metav1.PartialObjectMetadata:
		o.Labels["app"] = "scribbled"
		if raw := o.ManagedFields[0].FieldsV1.GetRawBytes(); len(raw) > 0 {
			raw[0] = 'X' // the bytes themselves, unless apimachinery interns them as strings
		}
		o.OwnerReferences[0].Name = "scribbled"
		o.Kind = "Scribbled"
	case *configMap:
		o.Labels["app"] = "scribbled"
		o.Data["README"] = "scribbled"
	case *unstructured.Unstructured:
		o.Object["extra"].(map[string]any)["list"].([]any)[0] = "scribbled"
		o.Object["data"].(map[string]any)["README"] = "scribbled"
		o.SetLabels(map[string]string{"scribbled": "yes"})
	case *plain:
		o.Labels["app"] = "scribbled"
		o.Spec.Selector["app"] = "scribbled"
		o.Spec.Ports[0] = 1
	default:
		panic("scribble: unknown type")
	}
}

func TestTypeMetaCostsNothingWhenEmpty(t *testing.T) {
	c := mustNew(t, &metav1.PartialObjectMetadata{}, Options{})
	for _, typed := range []bool{false, true} {
		obj := newMetadata(1, typed)
		body, err := obj.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		b, err := c.Encode(obj)
		if err != nil {
			t.Fatal(err)
		}
		want := len(body) + 1
		if typed {
			want += 2 + len(obj.APIVersion) + len(obj.Kind)
		}
		if len(b) != want {
			t.Errorf("typed=%v: encoding is %d bytes, want %d (body %d)", typed, len(b), want, len(body))
		}
	}
}

// TestUnstructuredNumbers documents the one difference between the
// formats of unstructured objects: JSON turns an integral float into an
// integer, CBOR keeps it a float.
func TestUnstructuredNumbers(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{"f": 2.0, "i": int64(2), "big": int64(1)<<62 + 1}}
	for _, tc := range []struct {
		format Format
		want   map[string]any
	}{
		{CBOR, map[string]any{"f": 2.0, "i": int64(2), "big": int64(1)<<62 + 1}},
		{JSON, map[string]any{"f": int64(2), "i": int64(2), "big": int64(1)<<62 + 1}},
	} {
		t.Run(tc.format.String(), func(t *testing.T) {
			c := mustNew(t, &unstructured.Unstructured{}, Options{Unstructured: tc.format})
			b, err := c.Encode(obj)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got.(*unstructured.Unstructured).Object); diff != "" {
				t.Errorf("decoded content (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnstructuredNilContent checks that both formats encode a nil
// content as an empty one.
func TestUnstructuredNilContent(t *testing.T) {
	for _, f := range []Format{CBOR, JSON} {
		c := mustNew(t, &unstructured.Unstructured{}, Options{Unstructured: f})
		b, err := c.Encode(&unstructured.Unstructured{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]any{}, got.(*unstructured.Unstructured).Object); diff != "" {
			t.Errorf("%v: decoded content (-want +got):\n%s", f, diff)
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	faultyCodec := mustNew(t, &faulty{}, Options{})
	cmCodec := mustNew(t, &configMap{}, Options{})
	uCodec := mustNew(t, &unstructured.Unstructured{}, Options{})
	tests := []struct {
		name string
		c    *Codec
		obj  runtime.Object
	}{
		{"nil", cmCodec, nil},
		{"typed nil", cmCodec, (*configMap)(nil)},
		{"other type", cmCodec, &faulty{}},
		{"other type for unstructured", uCodec, &configMap{}},
		{"marshal fails", faultyCodec, &faulty{Name: "fail"}},
		{"marshal panics", faultyCodec, &faulty{Name: "panic"}},
		{"content cbor cannot encode", uCodec, &unstructured.Unstructured{Object: map[string]any{"c": make(chan int)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := tc.c.Encode(tc.obj)
			if err == nil {
				t.Fatalf("Encode = %q, want an error", b)
			}
			t.Log(err)
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	mdCodec := mustNew(t, &metav1.PartialObjectMetadata{}, Options{})
	cmCodec := mustNew(t, &configMap{}, Options{})
	faultyCodec := mustNew(t, &faulty{}, Options{})
	cborCodec := mustNew(t, &unstructured.Unstructured{}, Options{})
	jsonCodec := mustNew(t, &unstructured.Unstructured{}, Options{Unstructured: JSON})
	typedJSONCodec := mustNew(t, &plain{}, Options{AllowJSON: true})
	md, err := mdCodec.Encode(newMetadata(1, true))
	if err != nil {
		t.Fatal(err)
	}
	u, err := cborCodec.Encode(newUnstructured(1))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    *Codec
		b    []byte
	}{
		{"nil", mdCodec, nil},
		{"empty", cmCodec, []byte{}},
		{"unknown format", mdCodec, []byte{0x7f}},
		{"protobuf bytes to cbor codec", cborCodec, md},
		{"cbor bytes to protobuf codec", mdCodec, u},
		{"cbor bytes to json codec", jsonCodec, u},
		{"type meta flag on cbor", cborCodec, append([]byte{byte(CBOR) | tagTypeMeta}, u[1:]...)},
		{"truncated apiVersion", mdCodec, md[:3]},
		{"truncated kind", mdCodec, md[:len("meta.k8s.io/v1")+3]},
		{"huge apiVersion length", mdCodec, []byte{byte(Protobuf) | tagTypeMeta, 0xff, 0xff, 0xff, 0xff, 0x0f}},
		{"truncated body", mdCodec, md[:len(md)-7]},
		{"garbage body", cmCodec, []byte{byte(Protobuf), 0x0b, 0xff}},
		{"unmarshal fails", faultyCodec, []byte("\x01fail")},
		{"unmarshal panics", faultyCodec, []byte("\x01panic")},
		{"truncated cbor", cborCodec, u[:len(u)/2]},
		{"cbor not a map", cborCodec, []byte{byte(CBOR), 0x01}},
		{"json not an object", jsonCodec, []byte("\x02[1]")},
		{"bad json", typedJSONCodec, []byte("\x02{\"spec\":")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obj, err := tc.c.Decode(tc.b)
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("Decode = %v, %v; want an error wrapping ErrMalformed", obj, err)
			}
			t.Log(err)
		})
	}
}

// TestDecodeTruncations decodes every prefix of valid encodings: each is an
// error or an object, never a panic. (A protobuf prefix that ends between
// two fields is a valid, shorter message: the snapshot's checksum, not the
// codec, catches such truncation.)
func TestDecodeTruncations(t *testing.T) {
	for _, tc := range roundTripCases() {
		t.Run(tc.name, func(t *testing.T) {
			c := mustNew(t, tc.example, tc.opts)
			b, err := c.Encode(tc.objs[0])
			if err != nil {
				t.Fatal(err)
			}
			for n := range len(b) {
				if _, err := c.Decode(bytes.Clone(b[:n])); err != nil && !errors.Is(err, ErrMalformed) {
					t.Fatalf("Decode of %d of %d bytes: %v does not wrap ErrMalformed", n, len(b), err)
				}
			}
		})
	}
}
