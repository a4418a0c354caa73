package codec

import (
	"bytes"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FuzzDecode hands arbitrary bytes to a codec of every format. Each decode
// is an error wrapping ErrMalformed, never a panic (not even a recovered
// one: the Unmarshal methods under test do not panic), or an object whose
// encoding is stable: encoding it, decoding that and encoding again gives
// the same bytes.
func FuzzDecode(f *testing.F) {
	codecs := map[string]*Codec{
		"metadata":   mustNew(f, &metav1.PartialObjectMetadata{}, Options{}),
		"configmap":  mustNew(f, &configMap{}, Options{}),
		"cbor":       mustNew(f, &unstructured.Unstructured{}, Options{}),
		"json":       mustNew(f, &unstructured.Unstructured{}, Options{Unstructured: JSON}),
		"typed json": mustNew(f, &plain{}, Options{AllowJSON: true}),
	}
	for _, tc := range roundTripCases() {
		c := mustNew(f, tc.example, tc.opts)
		for _, obj := range tc.objs {
			b, err := c.Encode(obj)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte{byte(Protobuf) | tagTypeMeta, 0x80})
	f.Add([]byte("\x02{\"a\":[1,2.5,{\"b\":null}]}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		for name, c := range codecs {
			obj, err := c.Decode(b)
			if !bytes.Equal(b, in) {
				t.Fatalf("%s: Decode modified its input", name)
			}
			if err != nil {
				if !errors.Is(err, ErrMalformed) {
					t.Fatalf("%s: Decode error %v does not wrap ErrMalformed", name, err)
				}
				if errors.As(err, new(recovered)) {
					t.Fatalf("%s: Decode panicked: %v", name, err)
				}
				continue
			}
			first, err := c.Encode(obj)
			if err != nil {
				t.Fatalf("%s: Encode of a decoded object: %v", name, err)
			}
			again, err := c.Decode(first)
			if err != nil {
				t.Fatalf("%s: Decode of an encoded object: %v", name, err)
			}
			second, err := c.Encode(again)
			if err != nil {
				t.Fatalf("%s: Encode of a decoded object: %v", name, err)
			}
			if !bytes.Equal(first, second) {
				t.Fatalf("%s: encoding not stable:\n%q\n%q", name, first, second)
			}
		}
	})
}
