package compare

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/compare/kinds"
	"github.com/informer-go/informer/internal/benchkit"
)

// Pods is the kind of the Pods of package kinds: Pods of Deployments as
// kube-apiserver returns them, about 24 KiB of heap each once decoded
// (10 KB as protobuf), 28 % of it managedFields.
var Pods = benchkit.KindOf("pod", kinds.PodName,
	func(p *corev1.Pod, i, rv int) { *p = *kinds.NewPod(i, rv) },
	func(rv string, items []corev1.Pod) *corev1.PodList {
		return &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: items}
	},
	func(l *corev1.PodList) []corev1.Pod { return l.Items })

// Secrets is the kind of the Secrets of package kinds: TLS Secrets with
// about 5.5 KiB of data, about 9 KiB of heap each once decoded (7 KB as
// protobuf).
var Secrets = benchkit.KindOf("secret", kinds.SecretName,
	func(s *corev1.Secret, i, rv int) { *s = *kinds.NewSecret(i, rv) },
	func(rv string, items []corev1.Secret) *corev1.SecretList {
		return &corev1.SecretList{ListMeta: metav1.ListMeta{ResourceVersion: rv}, Items: items}
	},
	func(l *corev1.SecretList) []corev1.Secret { return l.Items })

// APIKinds are the kinds of k8s.io/api the memory workloads run with.
var APIKinds = []benchkit.Kind{Pods, Secrets}
