// Package podtest builds realistic Pods for the tests and benchmarks of the
// memory modes' leaf packages (share, project), without k8s.io/api: [Pod]
// mirrors core/v1's Pod, and [JSON] renders Pod i as kube-apiserver returns
// a running Pod of a Deployment (labels, annotations, an owner reference,
// two containers with env, ports, probes, resources and volume mounts,
// tolerations, conditions, container statuses, and the managedFields of
// kube-controller-manager and the kubelet), shaped after the Pods of the
// compare module's kinds package. Values repeat across Pods where they
// repeat in a cluster: the Pods of one Deployment differ only in their
// names, uids, IPs, node, token volume, container ids and times.
//
// [Typed] and [Unstructured] decode Pod i afresh, so that every string and
// map of the result belongs to it alone, as a client's decoder hands it to
// an informer.
package podtest
