package store

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-go/informer/cache/internal/codec"
)

// metaObj returns a protobuf-encodable test object.
func metaObj(name, rv string, labels map[string]string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Thing"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv, Labels: labels},
	}
}

func newTestEncoding(t *testing.T, example runtime.Object, recent int) *Encoding {
	t.Helper()
	e, err := NewEncoding(example, EncodingOptions{Recent: recent})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func mustEncode(t *testing.T, e *Encoding, obj any) *Encoded {
	t.Helper()
	x, err := e.Encode(obj)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestEncodingRoundTrip(t *testing.T) {
	for _, obj := range []runtime.Object{
		metaObj("a", "1", map[string]string{"app": "x"}),
		&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Thing", "metadata": map[string]any{"name": "u"}, "n": int64(3)}},
	} {
		t.Run(fmt.Sprintf("%T", obj), func(t *testing.T) {
			e := newTestEncoding(t, nil, -1)
			x := mustEncode(t, e, obj)
			x.DropSource()
			for range 2 {
				got, err := e.Decode(x)
				if err != nil {
					t.Fatal(err)
				}
				if got == obj {
					t.Fatal("Decode returned the object written")
				}
				if diff := cmp.Diff(obj, got); diff != "" {
					t.Errorf("Decode(Encode(obj)) (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestEncodingRefuses(t *testing.T) {
	if _, err := NewEncoding(&unstructured.UnstructuredList{}, EncodingOptions{}); !errors.Is(err, codec.ErrNoCodec) {
		t.Errorf("NewEncoding of a type without a codec: %v", err)
	}
	e := newTestEncoding(t, nil, 0)
	for _, obj := range []any{nil, "string", 3} {
		if _, err := e.Encode(obj); !errors.Is(err, ErrNotObject) {
			t.Errorf("Encode(%#v): error %v, want one wrapping ErrNotObject", obj, err)
		}
	}
	if _, err := e.Encode(&unstructured.UnstructuredList{}); !errors.Is(err, codec.ErrNoCodec) {
		t.Errorf("first Encode of a type without a codec: %v", err)
	}
	mustEncode(t, e, metaObj("a", "1", nil)) // the codec is chosen by the first object that has one
	if _, err := e.Encode(&metav1.Status{}); err == nil {
		t.Error("Encode of another type than the first object's succeeded")
	}
}

// TestEncodingChosenOnce encodes objects of two types concurrently as the
// first writes: one type wins, the other's writes fail, none panics.
func TestEncodingChosenOnce(t *testing.T) {
	e := newTestEncoding(t, nil, 0)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			var obj runtime.Object = metaObj("a", "1", nil)
			if i%2 == 1 {
				obj = &metav1.Status{Message: "m"}
			}
			_, errs[i] = e.Encode(obj)
		})
	}
	wg.Wait()
	var failedEven, failedOdd int
	for i, err := range errs {
		if err != nil {
			if i%2 == 0 {
				failedEven++
			} else {
				failedOdd++
			}
		}
	}
	if (failedEven == 0) == (failedOdd == 0) {
		t.Errorf("%d and %d writes of the two types failed: want all of exactly one type", failedEven, failedOdd)
	}
}

// TestEncodedSource checks what index functions and metadata see while an
// Encoded is written and after.
func TestEncodedSource(t *testing.T) {
	e := newTestEncoding(t, nil, 0)
	obj := metaObj("a", "7", map[string]string{"app": "x"})
	x := mustEncode(t, e, obj)
	var seen []any
	fn := e.IndexFunc(func(o any) ([]string, error) {
		seen = append(seen, o)
		return []string{o.(*metav1.PartialObjectMetadata).Labels["app"]}, nil
	})
	m, err := meta.Accessor(x)
	if err != nil || m.GetResourceVersion() != "7" {
		t.Fatalf("meta.Accessor of an Encoded being written = %v, %v", m, err)
	}
	if _, err := fn(x); err != nil || seen[0] != obj {
		t.Fatalf("index function during the write got %p (%v), want the source %p", seen[0], err, obj)
	}
	probe := metaObj("p", "", map[string]string{"app": "y"})
	if v, err := fn(probe); err != nil || seen[1] != probe || v[0] != "y" {
		t.Fatalf("index function on a probe = %v, %v", v, err)
	}
	x.DropSource()
	if _, err := meta.Accessor(x); err == nil {
		t.Error("meta.Accessor of a written Encoded succeeded: it would decode")
	}
	if v, err := fn(x); err != nil || seen[2] == obj || v[0] != "x" {
		t.Fatalf("index function after the write = %v, %v, called with %p", v, err, seen[2])
	}
	if _, err := fn(x); err != nil || seen[3] != seen[2] {
		t.Errorf("index functions called with x in a row got %p and %p, want one decode", seen[2], seen[3])
	}
	e.ForgetIndexed()
	if _, err := fn(x); err != nil || seen[4] == seen[2] {
		t.Errorf("index function after ForgetIndexed got the old decode %p", seen[4])
	}
	e.ForgetIndexed()
	x.data = []byte{0xff}
	if _, err := fn(x); !errors.Is(err, codec.ErrMalformed) {
		t.Errorf("index function on malformed bytes: error %v", err)
	}
}

// corrupt makes x's bytes undecodable, so that a read of x that succeeds
// shows that x was kept decoded.
func corrupt(x *Encoded) { x.data = []byte{0xff} }

func TestRecentObjects(t *testing.T) {
	t.Run("kept objects are copied out", func(t *testing.T) {
		e := newTestEncoding(t, nil, 4)
		want := metaObj("a", "1", map[string]string{"app": "x"})
		x := mustEncode(t, e, want.DeepCopy())
		x.DropSource()
		first, err := e.DecodeRecent(x)
		if err != nil {
			t.Fatal(err)
		}
		corrupt(x)
		first.(*metav1.PartialObjectMetadata).Labels["app"] = "scribbled"
		for range 2 {
			got, err := e.Decode(x)
			if err != nil {
				t.Fatalf("a kept object was decoded again: %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("kept object (-want +got):\n%s", diff)
			}
			got.(*metav1.PartialObjectMetadata).Labels["app"] = "scribbled"
		}
	})
	// Reads that keep nothing: the second decodes the bytes again.
	for _, tc := range []struct {
		name   string
		recent int
		read   func(e *Encoding, x *Encoded) (runtime.Object, error)
	}{
		{"Decode keeps nothing", 4, (*Encoding).Decode},
		{"DecodeRecent keeps nothing when none are kept", -1, (*Encoding).DecodeRecent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newTestEncoding(t, nil, tc.recent)
			x := mustEncode(t, e, metaObj("a", "1", nil))
			if _, err := tc.read(e, x); err != nil {
				t.Fatal(err)
			}
			corrupt(x)
			if _, err := tc.read(e, x); !errors.Is(err, codec.ErrMalformed) {
				t.Errorf("second read: %v, want a decode of the bytes", err)
			}
		})
	}
	t.Run("an object read again gets a second chance", func(t *testing.T) {
		e := newTestEncoding(t, nil, 1) // one pair of slots: every object competes for it
		var a, b, c *Encoded
		for _, x := range []**Encoded{&a, &b, &c} {
			*x = mustEncode(t, e, metaObj("x", "1", nil))
			(*x).DropSource()
		}
		// kept reports whether x is kept decoded, without reading it.
		kept := func(x *Encoded) bool {
			pair := e.recent.pair(x)
			for i := range pair {
				if en := pair[i].Load(); en != nil && en.x == x {
					return true
				}
			}
			return false
		}
		read := func(read func(*Encoded) (runtime.Object, error), x *Encoded) {
			t.Helper()
			if _, err := read(x); err != nil {
				t.Fatal(err)
			}
		}
		check := func(step string, want ...bool) {
			t.Helper()
			if got := []bool{kept(a), kept(b), kept(c)}; !slices.Equal(got, want) {
				t.Fatalf("after %s, a, b, c kept: %v, want %v", step, got, want)
			}
		}
		read(e.DecodeRecent, a)
		read(e.DecodeRecent, b)
		check("reading a and b", true, true, false)
		read(e.Decode, a)
		read(e.DecodeRecent, c)
		check("reading a again, then c", true, false, true)
		read(e.Decode, c)
		read(e.DecodeRecent, b)
		check("reading c again, then b", true, false, true)
		read(e.DecodeRecent, b)
		check("reading b again", false, true, true)

		corrupt(c)
		read(e.Decode, c) // a kept object is copied, not decoded
	})
}
