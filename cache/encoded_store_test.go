package cache

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-go/informer/cache/internal/codec"
	"github.com/informer-go/informer/cache/internal/store"
)

// storeEngineOf returns the threadSafeMap holding the state of s and what
// it stores for obj written under key: obj itself, or its encoding (whose
// source is dropped when the test ends).
func storeEngineOf(t *testing.T, s threadSafeStoreUnderTest, key string, obj any) (*threadSafeMap, any) {
	t.Helper()
	switch s := s.(type) {
	case *threadSafeMap:
		return s, obj
	case *encodedStore:
		x, err := s.encode(key, obj)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(x.DropSource)
		return s.m, x
	}
	t.Fatalf("unknown store %T", s)
	return nil, nil
}

// newTestEncodedStore returns an encoded store of PartialObjectMetadata.
func newTestEncodedStore(t testing.TB, indexers Indexers, opts encodeOptions) *encodedStore {
	t.Helper()
	s, err := newEncodedThreadSafeStore(indexers, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*encodedStore)
}

// TestEncodedStoreReadsAreFresh writes objects, modifies them and every
// object read back, and checks that the store still holds what was
// written: each read, whether decoded or copied from a recently read
// object, hands out an object of the caller's own.
func TestEncodedStoreReadsAreFresh(t *testing.T) {
	for _, size := range []int{-1, 0, 1} {
		t.Run(fmt.Sprintf("DecodedCacheSize=%d", size), func(t *testing.T) {
			s := newTestEncodedStore(t, Indexers{"labels": storeLabelIndexFunc}, encodeOptions{DecodedCacheSize: size})
			a := storeObj("ns", "a", "1", "app", "x")
			want := a.DeepCopy()
			s.Add("ns/a", a)
			a.Labels["app"] = "written-after"
			scribble := func(what string, obj any) {
				t.Helper()
				m, ok := obj.(*metav1.PartialObjectMetadata)
				if !ok {
					t.Fatalf("%s returned %T", what, obj)
				}
				if diff := cmp.Diff(want, m); diff != "" {
					t.Fatalf("%s (-want +got):\n%s", what, diff)
				}
				m.Labels["app"] = "scribbled by " + what
				m.Name = "scribbled"
			}
			for round := range 3 {
				got, ok := s.Get("ns/a")
				if !ok {
					t.Fatal("Get: missing")
				}
				scribble(fmt.Sprintf("Get #%d", round), got)
				scribble("List", s.List()[0])
				objs, err := s.ByIndex("labels", "x")
				if err != nil || len(objs) != 1 {
					t.Fatalf("ByIndex = %v, %v", objs, err)
				}
				scribble("ByIndex", objs[0])
				objs, err = s.Index("labels", storeObj("", "probe", "", "app", "x"))
				if err != nil || len(objs) != 1 {
					t.Fatalf("Index = %v, %v", objs, err)
				}
				scribble("Index", objs[0])
			}
			old, existed, err := s.swap("ns/a", storeObj("ns", "a", "2", "app", "x"))
			if err != nil || !existed {
				t.Fatalf("swap = %v, %v, %v", old, existed, err)
			}
			scribble("swap", old)
			want.ResourceVersion = "2"
			priors := make([]storedState, 1)
			s.transact([]ThreadSafeStoreTransaction{{Transaction{storeObj("ns", "a", "3", "app", "x"), TransactionTypeUpdate}, "ns/a"}}, priors)
			if !priors[0].existed {
				t.Fatal("transact found nothing")
			}
			scribble("transact", priors[0].obj)
		})
	}
}

// countingIndexFunc is storeLabelIndexFunc that counts its calls.
func countingIndexFunc(calls *atomic.Int64) IndexFunc {
	return func(obj any) ([]string, error) {
		calls.Add(1)
		return storeLabelIndexFunc(obj)
	}
}

// TestEncodedStoreIndexesAtWrite checks that indexed values are computed
// once per write, from the object written, and never by a read; only an
// index added later reads the stored objects, decoded.
func TestEncodedStoreIndexesAtWrite(t *testing.T) {
	var calls atomic.Int64
	var seen []any
	s := newTestEncodedStore(t, Indexers{"labels": func(obj any) ([]string, error) {
		seen = append(seen, obj)
		return countingIndexFunc(&calls)(obj)
	}}, encodeOptions{})
	a, b := storeObj("ns", "a", "1", "app", "x"), storeObj("ns", "b", "1", "app", "y")
	s.Add("ns/a", a)
	s.Replace(map[string]any{"ns/a": a, "ns/b": b}, "5")
	s.Transaction(ThreadSafeStoreTransaction{Transaction{a, TransactionTypeUpdate}, "ns/a"})
	if err := s.fill([]string{"ns/b"}, []any{b}); !errors.Is(err, errStoreNotEmpty) {
		t.Fatalf("fill of a store holding objects: %v", err)
	}
	if got := calls.Load(); got != 4 {
		t.Errorf("index function called %d times by 4 writes, want 4", got)
	}
	for _, obj := range seen {
		if obj != a && obj != b {
			t.Errorf("index function called with %p, not an object written", obj)
		}
	}
	calls.Store(0)
	s.Get("ns/a")
	s.List()
	_, _ = s.ByIndex("labels", "x")
	_, _ = s.IndexKeys("labels", "x")
	s.ListIndexFuncValues("labels")
	if got := calls.Load(); got != 0 {
		t.Errorf("reads called the index function %d times", got)
	}
	if _, err := s.Index("labels", storeObj("", "probe", "", "app", "x")); err != nil {
		t.Fatal(err)
	}
	if got := calls.Load(); got != 1 {
		t.Errorf("Index called the index function %d times, want once, for its probe", got)
	}

	var added atomic.Int64
	if err := s.AddIndexers(Indexers{"more": countingIndexFunc(&added)}); err != nil {
		t.Fatal(err)
	}
	if got := added.Load(); got != 2 {
		t.Errorf("AddIndexers called the added function %d times, want once per object", got)
	}
	keys, err := s.IndexKeys("more", "y")
	if diff := cmp.Diff([]string{"ns/b"}, keys); err != nil || diff != "" {
		t.Errorf("the added index (-want +got):\n%s (err %v)", diff, err)
	}
	if got := s.GetIndexers()["labels"]; got == nil {
		t.Fatal("GetIndexers lost an index")
	} else if values, err := got(storeObj("", "p", "", "app", "z")); err != nil || !slices.Contains(values, "app=z") {
		t.Errorf("GetIndexers' function on a caller's object = %v, %v", values, err)
	}
}

// unprotobuf is a runtime.Object without protobuf methods: no codec.
type unprotobuf struct {
	metav1.TypeMeta
	metav1.ObjectMeta
}

func (u *unprotobuf) DeepCopyObject() runtime.Object {
	out := *u
	u.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// TestEncodedStoreRefusesWhatItCannotEncode covers types without a codec,
// at construction and at the first write, and objects of another type than
// the store's.
func TestEncodedStoreRefusesWhatItCannotEncode(t *testing.T) {
	if _, err := newEncodedThreadSafeStore(nil, encodeOptions{exampleObject: &unprotobuf{}}); !errors.Is(err, codec.ErrNoCodec) {
		t.Errorf("construction with an example without a codec: error %v, want one wrapping codec.ErrNoCodec", err)
	}
	if _, err := newEncodedThreadSafeStore(nil, encodeOptions{exampleObject: &metav1.PartialObjectMetadata{}}); err != nil {
		t.Errorf("construction with an example with a codec: %v", err)
	}

	tests := []struct {
		name    string
		example runtime.Object
		writes  []any
		wantErr error
	}{
		{name: "first write of a type without a codec", writes: []any{&unprotobuf{ObjectMeta: metav1.ObjectMeta{Name: "a"}}}, wantErr: codec.ErrNoCodec},
		{name: "not a runtime.Object", writes: []any{"a string"}, wantErr: store.ErrNotObject},
		{name: "another type than the first write's", writes: []any{storeObj("", "a", "1"), &metav1.Status{}}},
		{name: "another type than the example's", example: &metav1.Status{}, writes: []any{storeObj("", "a", "1")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			handled := storeHandledErrors(t)
			s := newTestEncodedStore(t, Indexers{}, encodeOptions{exampleObject: tc.example})
			for _, obj := range tc.writes {
				s.Add("a", obj)
			}
			if errs := handled(); len(errs) != 1 || tc.wantErr != nil && !errors.Is(errs[0], tc.wantErr) {
				t.Errorf("reported %v, want one error wrapping %v", errs, tc.wantErr)
			}
			if len(tc.writes) == 1 && len(s.ListKeys()) != 0 {
				t.Errorf("the refused write stored %v", s.ListKeys())
			}
		})
	}
}

// corruptStored replaces the bytes stored under key, which must exist,
// with data, keeping its indexed values: what memory corruption would do.
func corruptStored(t testing.TB, s *encodedStore, key string, data []byte) {
	t.Helper()
	s.m.lock.Lock()
	defer s.m.lock.Unlock()
	v, ok := s.m.contents.Get(key)
	if !ok {
		t.Fatalf("%s is not stored", key)
	}
	obj, err := s.enc.Decode(v.(*store.Encoded))
	if err != nil {
		t.Fatal(err)
	}
	values, err := s.m.contents.IndexSet().Compute(key, obj, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.m.contents.Put(key, store.EncodedFromBytes(data), values)
}

// TestEncodedStoreMalformedBytes checks what every operation does with an
// object whose bytes no longer decode: a reported error, nothing else
// lost, and a write of the key mends it.
func TestEncodedStoreMalformedBytes(t *testing.T) {
	handled := storeHandledErrors(t)
	s := newTestEncodedStore(t, Indexers{"labels": storeLabelIndexFunc}, encodeOptions{})
	s.Add("ns/a", storeObj("ns", "a", "1", "app", "x"))
	s.Add("ns/broken", storeObj("ns", "broken", "1", "app", "x"))
	s.Get("ns/broken") // kept decoded: corrupting the bytes makes a new Encoded, so the kept copy cannot answer
	corruptStored(t, s, "ns/broken", []byte{0xff, 0x00, 0x12})

	reported := func(what string, n int) {
		t.Helper()
		errs := handled()
		if len(errs) != n {
			t.Fatalf("%s reported %v, want %d errors", what, errs, n)
		}
		for _, err := range errs {
			if !errors.Is(err, codec.ErrMalformed) {
				t.Errorf("%s reported %v, not wrapping codec.ErrMalformed", what, err)
			}
		}
	}
	if obj, ok := s.Get("ns/broken"); ok || obj != nil {
		t.Errorf("Get of malformed bytes = %v, %v; want nothing", obj, ok)
	}
	reported("Get", 1)
	if got := storeKeysOf(t, s.List()); !cmp.Equal(got, []string{"ns/a"}) {
		t.Errorf("List = %v, want the readable object", got)
	}
	reported("Get, List", 2)
	objs, err := s.ByIndex("labels", "x")
	if got := storeKeysOf(t, objs); err != nil || !cmp.Equal(got, []string{"ns/a"}) {
		t.Errorf("ByIndex = %v, %v; want the readable object", got, err)
	}
	reported("Get, List, ByIndex", 3)
	if keys, err := s.IndexKeys("labels", "x"); err != nil || !cmp.Equal(keys, []string{"ns/a", "ns/broken"}) {
		t.Errorf("IndexKeys = %v, %v; the index does not read objects", keys, err)
	}
	if err := s.AddIndexers(Indexers{"name": storeNameIndexFunc}); !errors.Is(err, codec.ErrMalformed) {
		t.Errorf("AddIndexers over malformed bytes: error %v, want one wrapping codec.ErrMalformed", err)
	}
	if _, ok := s.GetIndexers()["name"]; ok {
		t.Error("a failed AddIndexers added its index")
	}
	old, existed, err := s.swap("ns/broken", storeObj("ns", "broken", "2", "app", "y"))
	if err != nil || existed || old != nil {
		t.Errorf("swap over malformed bytes = %v, %v, %v; want an add", old, existed, err)
	}
	reported("Get, List, ByIndex, swap", 4)
	if obj, ok := s.Get("ns/broken"); !ok || obj.(*metav1.PartialObjectMetadata).ResourceVersion != "2" {
		t.Errorf("Get after a write mended the key = %v, %v", obj, ok)
	}
	if err := s.AddIndexers(Indexers{"name": storeNameIndexFunc}); err != nil {
		t.Errorf("AddIndexers once mended: %v", err)
	}
}

// FuzzEncodedStoreMalformed stores arbitrary bytes in place of one object
// and runs every operation: no panic, errors that say the bytes are
// malformed, the other objects intact, and a write mends the key.
func FuzzEncodedStoreMalformed(f *testing.F) {
	seed := newTestEncodedStore(f, nil, encodeOptions{})
	for _, obj := range []*metav1.PartialObjectMetadata{storeObj("ns", "broken", "1", "app", "x"), storeObj("", "broken", "", "fail", "")} {
		x, err := seed.enc.Encode(obj)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(x.Bytes())
		f.Add(x.Bytes()[:x.Len()/2])
	}
	f.Add([]byte{})
	f.Add([]byte{byte(codec.Protobuf) | 0x80, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		handled := storeHandledErrors(t)
		s := newTestEncodedStore(t, Indexers{"labels": storeLabelIndexFunc, NamespaceIndex: MetaNamespaceIndexFunc}, encodeOptions{DecodedCacheSize: 2})
		good := []*metav1.PartialObjectMetadata{storeObj("ns", "a", "1", "app", "x"), storeObj("ns", "b", "2", "app", "x")}
		for _, obj := range good {
			s.Add(obj.Namespace+"/"+obj.Name, obj)
		}
		s.Add("ns/broken", storeObj("ns", "broken", "3", "app", "x"))
		corruptStored(t, s, "ns/broken", data)

		// intact checks that objs hold each readable object (the bytes
		// may decode, even to a copy of one of them).
		intact := func(objs []any) {
			t.Helper()
			for _, want := range good {
				if !slices.ContainsFunc(objs, func(o any) bool { return cmp.Equal(o, any(want)) }) {
					t.Fatalf("%s/%s is missing from %v", want.Namespace, want.Name, objs)
				}
			}
		}
		s.Get("ns/broken")
		s.Get("ns/broken")
		intact(s.List())
		objs, err := s.ByIndex(NamespaceIndex, "ns")
		if err != nil {
			t.Fatal(err)
		}
		intact(objs)
		objs, err = s.Index("labels", storeObj("", "p", "", "app", "x"))
		if err != nil {
			t.Fatal(err)
		}
		intact(objs)
		if err := s.AddIndexers(Indexers{"name": storeNameIndexFunc}); err != nil && !errors.Is(err, codec.ErrMalformed) && !errors.Is(err, errStoreIndexFailed) {
			t.Fatalf("AddIndexers: %v", err)
		}
		for _, err := range handled() {
			if !errors.Is(err, codec.ErrMalformed) {
				t.Fatalf("reported %v, not wrapping codec.ErrMalformed", err)
			}
		}
		s.Update("ns/broken", storeObj("ns", "broken", "4"))
		if obj, ok := s.Get("ns/broken"); !ok || obj.(*metav1.PartialObjectMetadata).ResourceVersion != "4" {
			t.Fatalf("Get after a write mended the key = %v, %v", obj, ok)
		}
		intact(s.List())
	})
}

// TestEncodedStoreConcurrentUse races writers, readers that modify what
// they read, and AddIndexers; run with -race, which reports any memory a
// read shares with the store. The final state is checked against what was
// written last.
func TestEncodedStoreConcurrentUse(t *testing.T) {
	s := newTestEncodedStore(t, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, encodeOptions{DecodedCacheSize: 8})
	const writers, perWriter = 3, 150
	scribble := func(objs ...any) {
		for _, o := range objs {
			m := o.(*metav1.PartialObjectMetadata)
			m.Name += "!"
			if m.Labels != nil {
				m.Labels["app"] = "scribbled"
			}
		}
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				obj := storeObj(fmt.Sprintf("ns%d", w), fmt.Sprintf("o%d", i%10), fmt.Sprint(i), "app", fmt.Sprint(i%3))
				key, _ := MetaNamespaceKeyFunc(obj)
				old, _, err := s.swap(key, obj)
				if err != nil {
					t.Errorf("swap: %v", err)
					return
				}
				if old != nil {
					scribble(old)
				}
				scribble(obj) // the caller's again once written
				if i%7 == 0 {
					s.Delete(key)
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			for i := range 60 {
				objs, _ := s.ByIndex(NamespaceIndex, "ns1")
				scribble(objs...)
				scribble(s.List()...)
				if obj, ok := s.Get("ns0/o1"); ok {
					scribble(obj)
				}
				if i == 20 {
					_ = s.AddIndexers(Indexers{fmt.Sprintf("labels%d", i): storeLabelIndexFunc})
				}
			}
		})
	}
	wg.Wait()

	for _, obj := range s.List() {
		m := obj.(*metav1.PartialObjectMetadata)
		key, _ := MetaNamespaceKeyFunc(obj)
		if m.Labels["app"] == "scribbled" || m.Name[len(m.Name)-1] == '!' {
			t.Errorf("%s holds a reader's or writer's modification: %v", key, m)
		}
		if got, ok := s.Get(key); !ok || !cmp.Equal(got, obj) {
			t.Errorf("Get(%s) = %v, %v; List has %v", key, got, ok, obj)
		}
	}
}

// TestEncodedStoreUnstructured stores unstructured objects, kept as CBOR:
// reads are equal to what was written, numbers keep their types, and each
// read is the caller's own.
func TestEncodedStoreUnstructured(t *testing.T) {
	s := newTestEncodedStore(t, Indexers{NamespaceIndex: MetaNamespaceIndexFunc}, encodeOptions{})
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "ns", "name": "w", "resourceVersion": "4"},
		"spec":     map[string]any{"replicas": int64(3), "ratio": 0.5, "whole": float64(2), "tags": []any{"a", "b"}},
	}}
	want := obj.DeepCopy()
	s.Add("ns/w", obj)
	obj.Object["spec"].(map[string]any)["replicas"] = int64(9)
	for range 3 {
		got, ok := s.Get("ns/w")
		if !ok {
			t.Fatal("Get: missing")
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Get (-want +got):\n%s", diff)
		}
		got.(*unstructured.Unstructured).Object["spec"].(map[string]any)["tags"].([]any)[0] = "scribbled"
	}
	objs, err := s.ByIndex(NamespaceIndex, "ns")
	if err != nil || len(objs) != 1 || !cmp.Equal(any(want), objs[0]) {
		t.Errorf("ByIndex = %v, %v", objs, err)
	}
	if rv := s.LastStoreSyncResourceVersion(); rv != "4" {
		t.Errorf("resource version %q, want the object's", rv)
	}
}
