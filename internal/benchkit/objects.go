package benchkit

import (
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Namespace is the namespace of the objects Objects and Updates return.
const Namespace = "ns"

func object(name string, rv int) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name, ResourceVersion: strconv.Itoa(rv)},
	}
}

// Objects returns n objects named o0…o<n-1> at resource versions 1…n.
func Objects(n int) []*metav1.PartialObjectMetadata {
	objs := make([]*metav1.PartialObjectMetadata, n)
	for i := range objs {
		objs[i] = object("o"+strconv.Itoa(i), i+1)
	}
	return objs
}

// Updates returns count updated states of the objects of Objects(n),
// cycling over them, at resource versions after theirs. Generation holds
// each update's sequence number, which LatencyHandler uses to find its send
// time.
func Updates(n, count int) []*metav1.PartialObjectMetadata {
	updates := make([]*metav1.PartialObjectMetadata, count)
	for i := range updates {
		obj := object("o"+strconv.Itoa(i%n), n+i+1)
		obj.Generation = int64(i)
		updates[i] = obj
	}
	return updates
}
