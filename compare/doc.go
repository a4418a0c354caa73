// Package compare measures informer-go's SharedIndexInformer, in its
// default DeltaFIFO pipeline and with InOrder set, side by side with
// client-go v0.37.2's, on the same inputs: initial syncs, watch updates
// unpaced and paced, reads, a full resync, the heap and the goroutines an
// informer keeps. [Run] alternates the libraries within every round and
// keeps every sample; [Results] writes the medians as a markdown table and
// the headline ratios as an SVG chart.
//
// Both libraries are fed by the same [benchkit.Source] and the same
// objects, built by [benchkit.Kind]: realistic objects first, tiny
// PartialObjectMetadata as a second case. The memory workloads add [Pods]
// and [Secrets] of k8s.io/api (built by package kinds), which the source
// serves serialized and decodes for every list and event, as a client
// does, and variant libraries (client-go and informer-go with a transform
// that drops managedFields; later, memory modes) that run only those. The
// command cmd/benchcompare
// (`make bench-compare` at the root) runs it; README.md explains every
// workload and how its numbers are taken.
package compare
