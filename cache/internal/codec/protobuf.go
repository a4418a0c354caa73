package codec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// protoMessage is what a type needs for the protobuf format: the methods
// gogo protobuf generates for every k8s.io/api type and the metav1 object
// types.
type protoMessage interface {
	Marshal() ([]byte, error)
	Unmarshal([]byte) error
}

// sizedMarshaler is what gogo protobuf also generates: with it the body is
// written straight into the encoding's own slice, with no second copy.
type sizedMarshaler interface {
	Size() int
	MarshalToSizedBuffer([]byte) (int, error)
}

// tagTypeMeta is set in the first byte of a protobuf encoding when the
// object's TypeMeta follows it: uvarint length and bytes of apiVersion,
// then of kind.
const tagTypeMeta = 0x80

// protobufBody is the protobuf format of objects whose type, a pointer to
// elem, implements protoMessage.
type protobufBody struct {
	elem reflect.Type
	// sized is set when the type also has sizedMarshaler methods of its own.
	sized bool
	// last is the last TypeMeta decoded; a decode of the same apiVersion
	// and kind reuses its strings instead of allocating two more.
	last *atomic.Pointer[metav1.TypeMeta]
}

func newProtobufBody(elem reflect.Type, sized bool) protobufBody {
	return protobufBody{elem: elem, sized: sized, last: new(atomic.Pointer[metav1.TypeMeta])}
}

func (p protobufBody) encode(obj runtime.Object) ([]byte, error) {
	apiVersion, kind := typeMetaOf(obj)
	head := 1
	tag := byte(Protobuf)
	if apiVersion != "" || kind != "" {
		tag |= tagTypeMeta
		head += uvarintLen(len(apiVersion)) + len(apiVersion) + uvarintLen(len(kind)) + len(kind)
	}
	var b []byte
	if p.sized {
		m := obj.(sizedMarshaler)
		size := m.Size()
		b = make([]byte, head+size)
		n, err := m.MarshalToSizedBuffer(b[head:])
		if err != nil {
			return nil, err
		}
		if n != size {
			return nil, fmt.Errorf("marshal wrote %d bytes, its size was %d", n, size)
		}
	} else {
		body, err := obj.(protoMessage).Marshal()
		if err != nil {
			return nil, err
		}
		b = make([]byte, head+len(body))
		copy(b[head:], body)
	}
	b[0] = tag
	if tag&tagTypeMeta != 0 {
		i := 1 + binary.PutUvarint(b[1:], uint64(len(apiVersion)))
		i += copy(b[i:], apiVersion)
		i += binary.PutUvarint(b[i:], uint64(len(kind)))
		copy(b[i:], kind)
	}
	return b, nil
}

func (p protobufBody) decode(b []byte) (runtime.Object, error) {
	body := b[1:]
	var apiVersion, kind []byte
	if b[0]&tagTypeMeta != 0 {
		var ok bool
		if apiVersion, body, ok = cutString(body); !ok {
			return nil, errors.New("truncated apiVersion")
		}
		if kind, body, ok = cutString(body); !ok {
			return nil, errors.New("truncated kind")
		}
	}
	obj := reflect.New(p.elem).Interface().(runtime.Object)
	if err := obj.(protoMessage).Unmarshal(body); err != nil {
		return nil, err
	}
	if apiVersion != nil {
		p.setTypeMeta(obj, apiVersion, kind)
	}
	return obj, nil
}

// setTypeMeta sets obj's apiVersion and kind, reusing the strings of the
// last decoded TypeMeta when they are equal.
func (p protobufBody) setTypeMeta(obj runtime.Object, apiVersion, kind []byte) {
	tm := p.last.Load()
	if tm == nil || tm.APIVersion != string(apiVersion) || tm.Kind != string(kind) {
		tm = &metav1.TypeMeta{APIVersion: string(apiVersion), Kind: string(kind)}
		p.last.Store(tm)
	}
	if t, ok := obj.GetObjectKind().(*metav1.TypeMeta); ok {
		*t = *tm
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind))
}

// typeMetaOf returns obj's apiVersion and kind, exactly as stored when obj
// embeds metav1.TypeMeta.
func typeMetaOf(obj runtime.Object) (apiVersion, kind string) {
	ok := obj.GetObjectKind()
	if t, isTypeMeta := ok.(*metav1.TypeMeta); isTypeMeta {
		return t.APIVersion, t.Kind
	}
	return ok.GroupVersionKind().ToAPIVersionAndKind()
}

// cutString splits b into the uvarint-length-prefixed bytes at its start
// and the rest; ok is false when b is too short for them.
func cutString(b []byte) (s, rest []byte, ok bool) {
	n, size := binary.Uvarint(b)
	if size <= 0 || n > uint64(len(b)-size) {
		return nil, nil, false
	}
	end := size + int(n)
	return b[size:end:end], b[end:], true
}

// uvarintLen returns the length of n's uvarint encoding.
func uvarintLen(n int) int {
	l := 1
	for ; n >= 0x80; n >>= 7 {
		l++
	}
	return l
}
