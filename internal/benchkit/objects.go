package benchkit

import (
	"slices"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Namespaces is the number of namespaces the objects of every kind are
// spread over: object i lives in namespace NamespaceOf(i).
const Namespaces = 100

// DataBytes is the size of the data of an [Object]: DataKeys values of
// DataBytes/DataKeys bytes each.
const (
	DataBytes = 1024
	DataKeys  = 4
)

// NamespaceOf returns the namespace of object i of every kind.
func NamespaceOf(i int) string { return "ns-" + strconv.Itoa(i%Namespaces) }

// NameOf returns the name of object i of every kind.
func NameOf(i int) string { return "object-" + strconv.Itoa(i) }

// KeyOrder returns 0..n-1 in the order of the objects' keys,
// NamespaceOf(i)/NameOf(i): the order in which kube-apiserver lists them
// (etcd's key order), and so the order of the items of a Kind's List.
func KeyOrder(n int) []int { return KeyOrderOf(n, NameOf) }

// KeyOrderOf is KeyOrder for objects named nameOf(i), in namespace
// NamespaceOf(i).
func KeyOrderOf(n int, nameOf func(i int) string) []int {
	keys := make([]string, n)
	order := make([]int, n)
	for i := range order {
		keys[i] = NamespaceOf(i) + "/" + nameOf(i)
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	return order
}

// created is the creation time of object 0; object i was created i seconds
// later.
var created = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// dataKeys are the keys of an Object's data.
var dataKeys = [DataKeys]string{"config.yaml", "settings.json", "startup.sh", "README"}

// NewObject returns object i at resource version rv as a decoder would
// build it: every string and map allocated for this object alone. Its
// ObjectMeta has a uid, a creation timestamp, five labels (among them
// "app", one of 50 values, and "tier", one of 3), two annotations and a
// controller owner reference; its data holds [DataBytes] bytes.
func NewObject(i, rv int) *Object {
	obj := new(Object)
	fillObject(obj, i, rv)
	return obj
}

// fillObject makes *obj object i at resource version rv.
func fillObject(obj *Object, i, rv int) {
	app := "app-" + strconv.Itoa(i%50)
	*obj = Object{
		ObjectMeta: metav1.ObjectMeta{
			Name:              NameOf(i),
			Namespace:         NamespaceOf(i),
			UID:               UID(0, i),
			ResourceVersion:   strconv.Itoa(rv),
			CreationTimestamp: metav1.NewTime(created.Add(time.Duration(i) * time.Second)),
			Labels: map[string]string{
				"app":     app,
				"tier":    "tier-" + strconv.Itoa(i%3),
				"team":    "team-" + strconv.Itoa(i%7),
				"env":     strings.Clone("production"),
				"version": "v1." + strconv.Itoa(i%4),
			},
			Annotations: map[string]string{
				"example.com/owner":    "team-" + strconv.Itoa(i%7) + "@example.com",
				"example.com/checksum": checksum(i),
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion:         "apps/v1",
				Kind:               "Deployment",
				Name:               app,
				UID:                UID(1, i%50),
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Data: data(i),
	}
}

// UID returns a UUID-shaped uid, unique per (space, i) for i < 2^48.
func UID(space, i int) types.UID {
	b := []byte("00000000-0000-4000-8000-000000000000")
	putHex(b[:8], uint64(space))
	putHex(b[24:], uint64(i))
	return types.UID(b)
}

// checksum returns 64 hex digits derived from i, like a sha256 sum.
func checksum(i int) string {
	b := make([]byte, 64)
	for k := range 4 {
		putHex(b[16*k:16*(k+1)], uint64(i+k)*0x9e3779b97f4a7c15)
	}
	return string(b)
}

// putHex writes v in hexadecimal into dst, zero-padded on the left.
func putHex(dst []byte, v uint64) {
	const digits = "0123456789abcdef"
	for k := len(dst) - 1; k >= 0; k-- {
		dst[k] = digits[v&15]
		v >>= 4
	}
}

// data returns object i's data: DataKeys values of DataBytes/DataKeys bytes,
// each starting with the object's number, cut from one allocation.
func data(i int) map[string]string {
	const size = DataBytes / DataKeys
	num := strconv.Itoa(i)
	var b strings.Builder
	b.Grow(DataBytes)
	for k := range DataKeys {
		b.WriteString(num)
		for j := len(num); j < size; j++ {
			b.WriteByte('a' + byte((i+j+k)%26))
		}
	}
	all := b.String()
	m := make(map[string]string, DataKeys)
	for k, key := range dataKeys {
		m[key] = all[k*size : (k+1)*size]
	}
	return m
}

// fillMetadata makes *obj object i at resource version rv of the tiny kind:
// a PartialObjectMetadata with only a namespace, a name and a resource
// version.
func fillMetadata(obj *metav1.PartialObjectMetadata, i, rv int) {
	*obj = metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Name: NameOf(i), Namespace: NamespaceOf(i), ResourceVersion: strconv.Itoa(rv),
	}}
}

// Kind is one shape of benchmark object and the builders of its inputs.
// Every builder returns new objects, so that no two lists share anything.
type Kind struct {
	// Name names the kind in benchmark names.
	Name string
	// Example returns an empty object of the kind, the example object of an
	// informer.
	Example func() runtime.Object
	// List returns a list of n new objects, object i at resource version
	// i+1, and the list at resource version n. The items are in the order
	// kube-apiserver lists them, that of their keys (namespace, then name),
	// not in the order of i.
	List func(n int) runtime.Object
	// Items returns pointers to the items of a list that List returned.
	Items func(list runtime.Object) []runtime.Object
	// Updates returns count new states of the first n objects of List,
	// cycling over them: update s is object s%n at resource version n+s+1,
	// with Generation s (which [LatencyHandler] reads).
	Updates func(n, count int) []runtime.Object
}

// KindOf returns the Kind of objects of type T named nameOf(i) in
// namespace NamespaceOf(i), which fill makes object i at a resource
// version, in lists of type L, which list builds from items and items takes
// apart.
func KindOf[T any, P interface {
	*T
	runtime.Object
	metav1.Object
}, L runtime.Object](name string, nameOf func(i int) string, fill func(obj P, i, rv int), list func(rv string, items []T) L, items func(L) []T) Kind {
	return Kind{
		Name:    name,
		Example: func() runtime.Object { return P(new(T)) },
		List: func(n int) runtime.Object {
			objs := make([]T, n)
			for j, i := range KeyOrderOf(n, nameOf) {
				fill(P(&objs[j]), i, i+1)
			}
			return list(strconv.Itoa(n), objs)
		},
		Items: func(l runtime.Object) []runtime.Object {
			objs := items(l.(L))
			out := make([]runtime.Object, len(objs))
			for i := range objs {
				out[i] = P(&objs[i])
			}
			return out
		},
		Updates: func(n, count int) []runtime.Object {
			ups := make([]runtime.Object, count)
			for s := range ups {
				obj := P(new(T))
				fill(obj, s%n, n+s+1)
				obj.SetGeneration(int64(s))
				ups[s] = obj
			}
			return ups
		},
	}
}

// Realistic is the kind of [Object].
var Realistic = KindOf("realistic", NameOf, fillObject,
	func(rv string, items []Object) *ObjectList {
		return &ObjectList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: items}
	},
	func(l *ObjectList) []Object { return l.Items })

// Metadata is the tiny kind, [metav1.PartialObjectMetadata] with only a
// namespace, a name and a resource version.
var Metadata = KindOf("metadata", NameOf, fillMetadata,
	func(rv string, items []metav1.PartialObjectMetadata) *metav1.PartialObjectMetadataList {
		return &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: items}
	},
	func(l *metav1.PartialObjectMetadataList) []metav1.PartialObjectMetadata { return l.Items })

// Kinds are the kinds every informer benchmark runs with, the realistic one
// first.
var Kinds = []Kind{Realistic, Metadata}
