package compare

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-go/informer/compare/kinds"
	"github.com/informer-go/informer/internal/benchkit"
)

// Pods is the kind of the Pods of package kinds: Pods of Deployments as
// kube-apiserver returns them, about 24 KiB of heap each once decoded
// (10 KB as protobuf), a quarter of it managedFields.
var Pods = apiKindOf("pod", kinds.PodName, kinds.NewPod,
	func(rv string, items []corev1.Pod) *corev1.PodList {
		return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: items}
	},
	func(l *corev1.PodList) []corev1.Pod { return l.Items })

// Secrets is the kind of the Secrets of package kinds: TLS Secrets with
// about 5.5 KiB of data, about 9 KiB of heap each once decoded.
var Secrets = apiKindOf("secret", kinds.SecretName, kinds.NewSecret,
	func(rv string, items []corev1.Secret) *corev1.SecretList {
		return &corev1.SecretList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: items}
	},
	func(l *corev1.SecretList) []corev1.Secret { return l.Items })

// APIKinds are the kinds of k8s.io/api the memory workloads run with.
var APIKinds = []benchkit.Kind{Pods, Secrets}

// apiKindOf returns the Kind of the objects of type T that newObject
// builds, object i (named nameOf(i), in namespace benchkit.NamespaceOf(i))
// at a resource version, in lists of type L that list builds from items
// and items takes apart. Like the other kinds, a list holds its items in
// key order and the list is at resource version n.
func apiKindOf[T any, P interface {
	*T
	runtime.Object
	metav1.Object
}, L runtime.Object](name string, nameOf func(i int) string, newObject func(i, rv int) P, list func(rv string, items []T) L, items func(L) []T) benchkit.Kind {
	return benchkit.Kind{
		Name:    name,
		Example: func() runtime.Object { return P(new(T)) },
		List: func(n int) runtime.Object {
			objs := make([]T, n)
			for j, i := range benchkit.KeyOrderOf(n, nameOf) {
				objs[j] = *newObject(i, i+1)
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
				obj := newObject(s%n, n+s+1)
				obj.SetGeneration(int64(s))
				ups[s] = obj
			}
			return ups
		},
	}
}
