// Package kinds builds the objects that make informers' heaps large, as
// kube-apiserver returns them: Pods of Deployments and TLS Secrets of
// several KiB, with the managedFields of their managers. The in-memory
// comparison (package compare) serializes them and decodes them again for
// every list and event, as a client does; the end-to-end benchmark
// (e2e/bench) creates the Pods through a real kube-apiserver.
//
// Objects are spread over [benchkit.Namespaces] namespaces like the other
// benchmark kinds (object i lives in [benchkit.NamespaceOf](i)). Builders
// return objects to serialize: they may share constant strings with each
// other, which a decoder never does, so a benchmark that wants an
// informer's heap must decode them first. Values repeat across objects
// where they repeat in a cluster: the Pods of one Deployment differ only in
// their names, uids, IPs, node, container ids and times.
package kinds
