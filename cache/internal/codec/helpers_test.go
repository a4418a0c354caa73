package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/informer-go/informer/internal/benchkit"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// configMap is a ConfigMap-shaped test type with hand-written protobuf
// methods, as k8s.io/api types have generated ones (this module cannot
// import k8s.io/api): field 1 is the ObjectMeta, field 2 repeats data
// entries (key 1, value 2), as in core/v1's generated.proto. It has no
// Size or MarshalToSizedBuffer, so it takes the codec's plain Marshal path.
type configMap struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Data              map[string]string `json:"data,omitempty"`
}

func (o *configMap) DeepCopyObject() runtime.Object {
	out := &configMap{TypeMeta: o.TypeMeta, Data: maps.Clone(o.Data)}
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

func (o *configMap) Marshal() ([]byte, error) {
	meta, err := o.ObjectMeta.Marshal()
	if err != nil {
		return nil, err
	}
	b := appendField(nil, 1, meta)
	for _, k := range slices.Sorted(maps.Keys(o.Data)) {
		entry := appendField(appendField(nil, 1, []byte(k)), 2, []byte(o.Data[k]))
		b = appendField(b, 2, entry)
	}
	return b, nil
}

func (o *configMap) Unmarshal(b []byte) error {
	return eachField(b, func(num uint64, v []byte) error {
		switch num {
		case 1:
			return o.ObjectMeta.Unmarshal(v)
		case 2:
			var key, value string
			err := eachField(v, func(num uint64, v []byte) error {
				switch num {
				case 1:
					key = string(v)
				case 2:
					value = string(v)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if o.Data == nil {
				o.Data = map[string]string{}
			}
			o.Data[key] = value
		}
		return nil
	})
}

// appendField appends a length-delimited protobuf field.
func appendField(b []byte, num uint64, v []byte) []byte {
	b = binary.AppendUvarint(b, num<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// eachField calls f with every length-delimited field of b, the only wire
// type configMap uses.
func eachField(b []byte, f func(num uint64, v []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return errors.New("bad field key")
		}
		b = b[n:]
		if key&7 != 2 {
			return fmt.Errorf("wire type %d", key&7)
		}
		size, n := binary.Uvarint(b)
		if n <= 0 || size > uint64(len(b)-n) {
			return errors.New("bad field length")
		}
		if err := f(key>>3, b[n:n+int(size)]); err != nil {
			return err
		}
		b = b[n+int(size):]
	}
	return nil
}

// faulty is a test type whose protobuf methods misbehave on request: its
// Marshal fails or panics by the object's name, its Unmarshal panics on
// bytes containing "panic" and fails on bytes containing "fail". It has no
// TypeMeta (its kind is schema.EmptyObjectKind).
type faulty struct {
	Name string
}

func (o *faulty) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (o *faulty) DeepCopyObject() runtime.Object   { c := *o; return &c }

// embedsTypeMeta embeds only metav1.TypeMeta, whose protobuf methods are
// promoted to it: they would encode the TypeMeta alone.
type embedsTypeMeta struct {
	metav1.TypeMeta
	Name string
}

func (o *embedsTypeMeta) DeepCopyObject() runtime.Object { c := *o; return &c }

// shadowsTypeMeta embeds only metav1.TypeMeta and declares protobuf methods
// of its own, which reflection cannot tell from promoted ones.
type shadowsTypeMeta struct {
	embedsTypeMeta
}

func (o *shadowsTypeMeta) Marshal() ([]byte, error) { return []byte(o.Name), nil }
func (o *shadowsTypeMeta) Unmarshal(b []byte) error { o.Name = string(b); return nil }

// otherMarshal has methods named Marshal and Unmarshal of other signatures.
type otherMarshal struct{ faulty }

func (o *otherMarshal) Marshal() string                { return o.Name }
func (o *otherMarshal) Unmarshal(s string)             { o.Name = s }
func (o *otherMarshal) DeepCopyObject() runtime.Object { c := *o; return &c }

func (o *faulty) Marshal() ([]byte, error) {
	switch o.Name {
	case "panic":
		panic("faulty marshal")
	case "fail":
		return nil, errors.New("faulty marshal")
	}
	return []byte(o.Name), nil
}

func (o *faulty) Unmarshal(b []byte) error {
	switch {
	case strings.Contains(string(b), "panic"):
		_ = b[len(b)] // a real runtime panic: index out of range
	case strings.Contains(string(b), "fail"):
		return errors.New("faulty unmarshal")
	}
	o.Name = string(b)
	return nil
}

// plain is a typed object without protobuf methods: only JSON can encode
// it, when allowed.
type plain struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              plainSpec `json:"spec"`
}

type plainSpec struct {
	Replicas int64             `json:"replicas"`
	Ratio    float64           `json:"ratio"`
	Selector map[string]string `json:"selector,omitempty"`
	Ports    []int32           `json:"ports,omitempty"`
}

func (o *plain) DeepCopyObject() runtime.Object {
	out := &plain{TypeMeta: o.TypeMeta, Spec: o.Spec}
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Selector = maps.Clone(o.Spec.Selector)
	out.Spec.Ports = slices.Clone(o.Spec.Ports)
	return out
}

// newConfigMap returns benchmark object i as a configMap, with a TypeMeta
// when typed is set.
func newConfigMap(i int, typed bool) *configMap {
	o := benchkit.NewObject(i, i+1)
	cm := &configMap{ObjectMeta: o.ObjectMeta, Data: o.Data}
	if typed {
		cm.TypeMeta = metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	}
	return cm
}

// newMetadata returns benchmark object i's metadata as a
// PartialObjectMetadata with the managedFields of two managers (raw JSON
// in FieldsV1), with a TypeMeta when typed is set.
func newMetadata(i int, typed bool) *metav1.PartialObjectMetadata {
	o := benchkit.NewObject(i, i+1)
	m := &metav1.PartialObjectMetadata{ObjectMeta: o.ObjectMeta}
	if typed {
		m.TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
	}
	at := o.CreationTimestamp
	m.ManagedFields = []metav1.ManagedFieldsEntry{
		{
			Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "v1", Time: &at, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:data":{".":{},"f:config.yaml":{},"f:settings.json":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}`),
		},
		{
			Manager: "controller", Operation: metav1.ManagedFieldsOperationApply,
			APIVersion: "v1", Time: &at, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:annotations":{"f:example.com/checksum":{}}}}`),
		},
	}
	return m
}

// newUnstructured returns benchmark object i as a client decodes it from
// JSON into an *unstructured.Unstructured, plus a nested object holding
// every JSON type.
func newUnstructured(i int) *unstructured.Unstructured {
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(newConfigMap(i, true))
	if err != nil {
		panic(err)
	}
	content["extra"] = map[string]any{
		"int": int64(-1) << 60, "float": 0.25, "bool": true, "null": nil,
		"list": []any{"a", int64(1), map[string]any{"b": false}}, "empty": map[string]any{},
	}
	return &unstructured.Unstructured{Object: content}
}

// equalTimes compares metav1.Time by instant: a protobuf round trip gives
// back the same instant in the local time zone, as it does for client-go.
var equalTimes = cmp.Comparer(func(a, b metav1.Time) bool { return a.Equal(&b) })

// mustNew returns New(example, opts) or fails the test.
func mustNew(tb testing.TB, example runtime.Object, opts Options) *Codec {
	tb.Helper()
	c, err := New(example, opts)
	if err != nil {
		tb.Fatalf("New(%T): %v", example, err)
	}
	return c
}
