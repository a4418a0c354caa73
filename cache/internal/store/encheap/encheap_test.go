package encheap

import (
	"flag"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	clientgocache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache/internal/project"
	"github.com/informer-go/informer/cache/internal/share/podtest"
	"github.com/informer-go/informer/cache/internal/store"
	"github.com/informer-go/informer/compare/kinds"
	"github.com/informer-go/informer/internal/benchkit"
)

var objects = flag.Int("objects", 10_000, "Pods or Secrets held by each benchmark")

// wireOf returns the protobuf of n objects made by newObj, in the order
// kube-apiserver lists them.
func wireOf[T interface{ Marshal() ([]byte, error) }](b *testing.B, n int, nameOf func(int) string, newObj func(i, rv int) T) [][]byte {
	order := benchkit.KeyOrderOf(n, nameOf)
	wire := make([][]byte, len(order))
	for k, i := range order {
		raw, err := newObj(i, i+1).Marshal()
		if err != nil {
			b.Fatal(err)
		}
		wire[k] = raw
	}
	return wire
}

// decoder returns a function decoding one object of the wire into a fresh
// object of new's type.
func decoder[T any, P interface {
	*T
	k8sruntime.Object
	Unmarshal([]byte) error
}](b *testing.B) func([]byte) k8sruntime.Object {
	return func(raw []byte) k8sruntime.Object {
		obj := P(new(T))
		if err := obj.Unmarshal(raw); err != nil {
			b.Fatal(err)
		}
		return obj
	}
}

// holder is a store being filled: client-go's Indexer or the encoded
// engine.
type holder interface {
	add(obj k8sruntime.Object)
	replace(objs []k8sruntime.Object)
}

// mode is how objects fresh from the decoder are held.
type mode struct {
	name    string
	trim    bool // drop managedFields first, as the built-in transform does
	encoded bool // the encoded engine rather than client-go's Indexer
}

var modes = []mode{
	{name: "client-go"},
	{name: "client-go+trim", trim: true},
	{name: "encode", encoded: true},
	{name: "encode+trim", trim: true, encoded: true},
}

func (m mode) newHolder(b *testing.B, recent int) holder {
	if !m.encoded {
		return &clientGoHolder{idx: clientgocache.NewIndexer(clientgocache.MetaNamespaceKeyFunc,
			clientgocache.Indexers{clientgocache.NamespaceIndex: clientgocache.MetaNamespaceIndexFunc})}
	}
	return newEngine(b, recent)
}

// prepare applies the mode's transform to obj.
func (m mode) prepare(obj k8sruntime.Object) k8sruntime.Object {
	if m.trim {
		if _, err := project.DropManagedFields(obj); err != nil {
			panic(err)
		}
	}
	return obj
}

type clientGoHolder struct{ idx clientgocache.Indexer }

func (h *clientGoHolder) add(obj k8sruntime.Object) {
	if err := h.idx.Add(obj); err != nil {
		panic(err)
	}
}

func (h *clientGoHolder) replace(objs []k8sruntime.Object) {
	list := make([]any, len(objs))
	for i, o := range objs {
		list[i] = o
	}
	if err := h.idx.Replace(list, "1"); err != nil {
		panic(err)
	}
}

// engine is the encoded store's engine driven as cache's encodedStore
// drives it through its threadSafeMap: encode, compute the indexed values
// with the wrapped index functions (from the source), store, drop the
// source.
type engine struct {
	enc      *store.Encoding
	set      *store.IndexSet
	contents *store.Contents
	// bytes counts the encoded bytes written.
	bytes int
}

func newEngine(b *testing.B, recent int) *engine {
	enc, err := store.NewEncoding(nil, store.EncodingOptions{Recent: recent})
	if err != nil {
		b.Fatal(err)
	}
	set, err := store.NewIndexSet(map[string]store.IndexFunc{clientgocache.NamespaceIndex: enc.IndexFunc(clientgocache.MetaNamespaceIndexFunc)})
	if err != nil {
		b.Fatal(err)
	}
	return &engine{enc: enc, set: set, contents: store.New(set, 0)}
}

func (e *engine) encode(obj k8sruntime.Object) (string, *store.Encoded) {
	key, err := clientgocache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		panic(err)
	}
	x, err := e.enc.Encode(obj)
	if err != nil {
		panic(err)
	}
	e.bytes += x.Len()
	return key, x
}

func (e *engine) add(obj k8sruntime.Object) {
	key, x := e.encode(obj)
	values, err := e.set.Compute(key, x, 0, nil)
	if err != nil {
		panic(err)
	}
	e.contents.Put(key, x, values)
	x.DropSource()
}

func (e *engine) replace(objs []k8sruntime.Object) {
	keys := make([]string, len(objs))
	xs := make([]*store.Encoded, len(objs))
	for i, o := range objs {
		keys[i], xs[i] = e.encode(o)
	}
	c, err := store.Build(e.set, len(objs), func(yield func(string, any) bool) {
		for i, key := range keys {
			if !yield(key, xs[i]) {
				return
			}
		}
	})
	if err != nil {
		panic(err)
	}
	for _, x := range xs {
		x.DropSource()
	}
	e.contents = c
}

func (e *engine) get(key string) k8sruntime.Object {
	v, ok := e.contents.Get(key)
	if !ok {
		panic("missing " + key)
	}
	obj, err := e.enc.DecodeRecent(v.(*store.Encoded))
	if err != nil {
		panic(err)
	}
	return obj
}

// heapPerObject fills a holder of mode m with the wire's objects, each
// fresh from decode, and returns the live heap it holds per object,
// objects included, and, for the encoded engine, the encoded bytes per
// object.
func heapPerObject(b *testing.B, m mode, wire [][]byte, decode func([]byte) k8sruntime.Object) (heap, encoded float64) {
	before := benchkit.LiveHeap()
	h := m.newHolder(b, 0)
	for _, raw := range wire {
		h.add(m.prepare(decode(raw)))
	}
	n := float64(len(wire))
	heap = float64(benchkit.LiveHeap()-before) / n
	if e, ok := h.(*engine); ok {
		encoded = float64(e.bytes) / n
	}
	runtime.KeepAlive(h)
	return heap, encoded
}

// benchHeap reports the heap per object of every mode, and its ratio to
// client-go's, measured in the same run.
func benchHeap(b *testing.B, wire [][]byte, decode func([]byte) k8sruntime.Object, unit string) {
	base, _ := heapPerObject(b, modes[0], wire, decode)
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			var perObj, encoded float64
			for b.Loop() {
				perObj, encoded = heapPerObject(b, m, wire, decode)
			}
			b.ReportMetric(perObj, "heap-B/"+unit)
			b.ReportMetric(perObj/base, "x-client-go")
			if m.encoded {
				b.ReportMetric(encoded, "encoded-B/"+unit)
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkEncodedPodHeap reports the live heap per Pod held, the Pod
// included, for client-go's Indexer and the encoded engine, with and
// without managedFields.
func BenchmarkEncodedPodHeap(b *testing.B) {
	benchHeap(b, wireOf(b, *objects, kinds.PodName, kinds.NewPod), decoder[corev1.Pod](b), "pod")
}

// BenchmarkEncodedSecretHeap is BenchmarkEncodedPodHeap for TLS Secrets of
// several KiB.
func BenchmarkEncodedSecretHeap(b *testing.B) {
	benchHeap(b, wireOf(b, *objects, kinds.SecretName, kinds.NewSecret), decoder[corev1.Secret](b), "secret")
}

// BenchmarkEncodedSync reports the wall and CPU time per Pod of an initial
// sync's store work: decode the list from protobuf, transform, and
// replace the store's contents (encoding each Pod for the encoded
// engine), and the ratio of the CPU time to client-go's.
func BenchmarkEncodedSync(b *testing.B) {
	wire := wireOf(b, *objects, kinds.PodName, kinds.NewPod)
	decode := decoder[corev1.Pod](b)
	sync := func(m mode) (wall, cpu time.Duration) {
		h := m.newHolder(b, 0)
		start, began := benchkit.ReadUsage(), time.Now()
		objs := make([]k8sruntime.Object, len(wire))
		for k, raw := range wire {
			objs[k] = m.prepare(decode(raw))
		}
		h.replace(objs)
		return time.Since(began), start.Spent().CPU
	}
	var base time.Duration
	for range 3 {
		_, cpu := sync(modes[0])
		if base == 0 || cpu < base {
			base = cpu
		}
	}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			var wall, cpu time.Duration
			runs := 0
			for b.Loop() {
				w, c := sync(m)
				wall, cpu, runs = wall+w, cpu+c, runs+1
			}
			n := float64(runs * len(wire))
			b.ReportMetric(float64(wall.Nanoseconds())/n, "ns/pod")
			b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/pod")
			b.ReportMetric(float64(cpu)/float64(runs)/float64(base), "cpu-x-client-go")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// BenchmarkEncodedGet reports the median and 99th percentile latency of
// Get on a store of Pods without managedFields: of one of 64 Pods read
// over and over (kept decoded: a deep copy), of Pods read in random order
// (a decode each, mostly, and a deep copy to keep it), of Pods read in
// random order from a store that keeps none decoded (a decode each), and,
// for scale, client-go's.
func BenchmarkEncodedGet(b *testing.B) {
	benchGet(b, wireOf(b, *objects, kinds.PodName, kinds.NewPod), decoder[corev1.Pod](b))
}

// BenchmarkEncodedUnstructuredGet is BenchmarkEncodedGet for unstructured
// Pods, kept as CBOR.
func BenchmarkEncodedUnstructuredGet(b *testing.B) {
	wire, decode := unstructuredPods(b)
	benchGet(b, wire, decode)
}

// benchGet is BenchmarkEncodedGet for the wire's objects. Each case fills
// its own store, so that the heap the collector scans is that store's.
func benchGet(b *testing.B, wire [][]byte, decode func([]byte) k8sruntime.Object) {
	keys := make([]string, len(wire))
	for k, raw := range wire {
		keys[k], _ = clientgocache.MetaNamespaceKeyFunc(decode(raw))
	}
	r := rand.New(rand.NewPCG(1, 2))
	hot := make([]string, 64)
	for i := range hot {
		hot[i] = keys[r.IntN(len(keys))]
	}
	// fill returns a Get of a store of the mode's holder, recent objects
	// kept decoded (for the encoded engine).
	fill := func(m mode, recent int) func(key string) any {
		h := m.newHolder(b, recent)
		for _, raw := range wire {
			h.add(m.prepare(decode(raw)))
		}
		if e, ok := h.(*engine); ok {
			return func(key string) any { return e.get(key) }
		}
		idx := h.(*clientGoHolder).idx
		return func(key string) any { obj, _, _ := idx.GetByKey(key); return obj }
	}
	for _, tc := range []struct {
		name   string
		keys   []string
		m      mode
		recent int
	}{
		{"recent", hot, modes[3], 0},
		{"random", keys, modes[3], 0},
		{"none-kept", keys, modes[3], -1},
		{"client-go", keys, modes[1], 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			get := fill(tc.m, tc.recent)
			for _, key := range tc.keys[:min(len(tc.keys), 64)] {
				get(key) // warm: the recent ones are kept decoded
			}
			var took []time.Duration
			for b.Loop() {
				key := tc.keys[r.IntN(len(tc.keys))]
				began := time.Now()
				runtime.KeepAlive(get(key))
				took = append(took, time.Since(began))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}

// BenchmarkEncodedUnstructuredPodHeap is BenchmarkEncodedPodHeap for the
// Pods of cache/internal/share/podtest as a dynamic client decodes them
// (unstructured, from JSON), which the encoded engine keeps as CBOR.
func BenchmarkEncodedUnstructuredPodHeap(b *testing.B) {
	wire, decode := unstructuredPods(b)
	benchHeap(b, wire, decode, "pod")
}

// unstructuredPods returns the JSON of about -objects Pods of podtest, in
// the order kube-apiserver lists them, and their decoder, a dynamic
// client's.
func unstructuredPods(b *testing.B) ([][]byte, func([]byte) k8sruntime.Object) {
	ids := podtest.List(podtest.Namespaces, max(*objects/(podtest.Namespaces*podtest.DeploymentsPerNamespace), 1))
	wire := make([][]byte, len(ids))
	for k, i := range ids {
		wire[k] = podtest.JSON(i)
	}
	return wire, func(raw []byte) k8sruntime.Object {
		u := new(unstructured.Unstructured)
		if err := u.UnmarshalJSON(raw); err != nil {
			b.Fatal(err)
		}
		return u
	}
}
