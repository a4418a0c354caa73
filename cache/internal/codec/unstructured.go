package codec

import (
	"bytes"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// cborSerializer encodes unstructured content as kube-apiserver does. It is
// only used to encode, which needs neither a creater nor a typer.
var cborSerializer = cbor.NewSerializer(nil, nil)

// selfDescribedCBOR is the tag that cborSerializer writes before every
// object (RFC 8949 section 3.4.6); the codec's first byte already names the
// format, so the tag is dropped.
const selfDescribedCBOR = "\xd9\xd9\xf7"

// unstructuredCBOR is the CBOR format of *unstructured.Unstructured: its
// content as apimachinery's CBOR serializer writes it. Decoded numbers are
// int64 or float64, as a decode of the server's CBOR gives them.
type unstructuredCBOR struct{}

func (unstructuredCBOR) encode(obj runtime.Object) ([]byte, error) {
	return encodeVia(byte(CBOR), func(buf *bytes.Buffer) ([]byte, error) {
		if err := cborSerializer.Encode(obj, buf); err != nil {
			return nil, err
		}
		out, ok := bytes.CutPrefix(buf.Bytes(), []byte(selfDescribedCBOR))
		if !ok {
			return nil, fmt.Errorf("cbor serializer output starts with %x, not the self-described tag", buf.Bytes()[:min(3, buf.Len())])
		}
		return out, nil
	})
}

func (unstructuredCBOR) decode(b []byte) (runtime.Object, error) {
	var content map[string]any
	if err := direct.Unmarshal(b[1:], &content); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: content}, nil
}

// unstructuredJSON is the JSON format of *unstructured.Unstructured: its
// content as apimachinery's JSON. Decoded numbers are int64 when integral,
// float64 otherwise, as a decode of the server's JSON gives them.
type unstructuredJSON struct{}

func (unstructuredJSON) encode(obj runtime.Object) ([]byte, error) {
	// UnstructuredContent, as the CBOR serializer: a nil content is {}.
	return encodeJSON(obj.(*unstructured.Unstructured).UnstructuredContent())
}

func (unstructuredJSON) decode(b []byte) (runtime.Object, error) {
	var content map[string]any
	if err := utiljson.Unmarshal(b[1:], &content); err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: content}, nil
}
