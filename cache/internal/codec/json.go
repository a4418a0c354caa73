package codec

import (
	"bytes"
	"encoding/json"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// typedJSON is the JSON format of typed objects, a pointer to elem, which
// carry their TypeMeta in their JSON.
type typedJSON struct {
	elem reflect.Type
}

func (j typedJSON) encode(obj runtime.Object) ([]byte, error) {
	return encodeJSON(obj)
}

func (j typedJSON) decode(b []byte) (runtime.Object, error) {
	obj := reflect.New(j.elem).Interface().(runtime.Object)
	if err := utiljson.Unmarshal(b[1:], obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// encodeJSON returns the JSON format's encoding of v: its first byte, then
// v's JSON as encoding/json writes it (the encoding of
// k8s.io/apimachinery/pkg/util/json).
func encodeJSON(v any) ([]byte, error) {
	return encodeVia(byte(JSON), func(buf *bytes.Buffer) ([]byte, error) {
		if err := json.NewEncoder(buf).Encode(v); err != nil {
			return nil, err
		}
		// Encoder.Encode ends the value with a newline that Marshal does not.
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	})
}
