package cache

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/informer-go/informer/internal/benchkit"
)

// storeBenchIndexers returns n of: namespace, app label, tier label.
func storeBenchIndexers(n int) Indexers {
	all := []struct {
		name string
		fn   IndexFunc
	}{
		{NamespaceIndex, MetaNamespaceIndexFunc},
		{"app", storeBenchLabelIndexFunc("app")},
		{"tier", storeBenchLabelIndexFunc("tier")},
	}
	out := Indexers{}
	for _, ix := range all[:n] {
		out[ix.name] = ix.fn
	}
	return out
}

func storeBenchLabelIndexFunc(label string) IndexFunc {
	return func(obj any) ([]string, error) {
		m, err := objectMeta(obj)
		if err != nil {
			return nil, err
		}
		return []string{m.GetLabels()[label]}, nil
	}
}

// storeBenchObjects returns n realistic objects in benchkit.Namespaces
// namespaces, at resource version rv, with an app label that depends on
// shift (and a tier label that does not).
func storeBenchObjects(n, rv, shift int) []*benchkit.Object {
	objs := make([]*benchkit.Object, n)
	for i := range objs {
		objs[i] = benchkit.NewObject(i, rv)
		objs[i].Labels["app"] = "app-" + strconv.Itoa((i+shift)%50)
	}
	return objs
}

func storeBenchFilled(b *testing.B, indexes int, objs []*benchkit.Object) Indexer {
	b.Helper()
	s := NewIndexer(MetaNamespaceKeyFunc, storeBenchIndexers(indexes))
	for _, o := range objs {
		if err := s.Add(o); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

func BenchmarkIndexerAdd(b *testing.B) {
	for _, indexes := range []int{0, 1, 3} {
		b.Run(fmt.Sprintf("indexes=%d", indexes), func(b *testing.B) {
			objs := storeBenchObjects(10_000, 1, 0)
			s := NewIndexer(MetaNamespaceKeyFunc, storeBenchIndexers(indexes))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%len(objs) == 0 && i > 0 {
					b.StopTimer()
					s = NewIndexer(MetaNamespaceKeyFunc, storeBenchIndexers(indexes))
					b.StartTimer()
				}
				if err := s.Add(objs[i%len(objs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkIndexerUpdate(b *testing.B) {
	for _, indexes := range []int{0, 1, 3} {
		for _, changing := range []bool{false, true} {
			b.Run(fmt.Sprintf("indexes=%d/valuesChange=%v", indexes, changing), func(b *testing.B) {
				s := storeBenchFilled(b, indexes, storeBenchObjects(10_000, 1, 0))
				// Two new versions of every object; with changing, the app
				// label (an indexed value when indexes=3) differs between them.
				shift := 0
				if changing {
					shift = 1
				}
				versions := [2][]*benchkit.Object{
					storeBenchObjects(10_000, 2, 0),
					storeBenchObjects(10_000, 3, shift),
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					objs := versions[(i/10_000)%2]
					if err := s.Update(objs[i%10_000]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkIndexerDelete(b *testing.B) {
	for _, indexes := range []int{0, 1, 3} {
		b.Run(fmt.Sprintf("indexes=%d", indexes), func(b *testing.B) {
			objs := storeBenchObjects(10_000, 1, 0)
			s := storeBenchFilled(b, indexes, objs)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if i%len(objs) == 0 && i > 0 {
					b.StopTimer()
					s = storeBenchFilled(b, indexes, objs)
					b.StartTimer()
				}
				if err := s.Delete(objs[i%len(objs)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// storeBench100k is a store of 100k realistic objects in 100 namespaces
// with three indexes, shared by the read benchmarks.
func storeBench100k(b *testing.B) (Indexer, []*benchkit.Object) {
	b.Helper()
	objs := storeBenchObjects(100_000, 1, 0)
	return storeBenchFilled(b, 3, objs), objs
}

func BenchmarkIndexerByIndex(b *testing.B) {
	s, _ := storeBench100k(b)
	for _, q := range []struct{ index, value string }{
		{NamespaceIndex, "ns-7"},   // 1,000 objects
		{"app", "app-7"},           // 2,000 objects
		{"tier", "tier-1"},         // 33,333 objects
		{NamespaceIndex, "absent"}, // none
	} {
		b.Run(fmt.Sprintf("objects=100000/%s=%s", q.index, q.value), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.ByIndex(q.index, q.value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkIndexerList(b *testing.B) {
	s, _ := storeBench100k(b)
	b.Run("List/objects=100000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = s.List()
		}
	})
	b.Run("ListKeys/objects=100000", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = s.ListKeys()
		}
	})
}

func BenchmarkIndexerReplace(b *testing.B) {
	objs := storeBenchObjects(100_000, 1, 0)
	list := make([]any, len(objs))
	for i, o := range objs {
		list[i] = o
	}
	s := NewIndexer(MetaNamespaceKeyFunc, storeBenchIndexers(3))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Replace(list, "1"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStoreGet(b *testing.B) {
	s, objs := storeBench100k(b)
	b.Run("GetByKey", func(b *testing.B) {
		keys := make([]string, 1024)
		for i := range keys {
			keys[i], _ = MetaNamespaceKeyFunc(objs[i*97])
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, ok, _ := s.GetByKey(keys[i%len(keys)]); !ok {
				b.Fatal("not found")
			}
		}
	})
	b.Run("Get/namespaced", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, ok, _ := s.Get(objs[(i*97)%len(objs)]); !ok {
				b.Fatal("not found")
			}
		}
	})
	b.Run("Get/DeletionHandlingMetaNamespaceKeyFunc", func(b *testing.B) {
		s := NewStore(DeletionHandlingMetaNamespaceKeyFunc)
		for _, o := range objs[:1000] {
			_ = s.Add(o)
		}
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, ok, _ := s.Get(objs[i%1000]); !ok {
				b.Fatal("not found")
			}
		}
	})
}
