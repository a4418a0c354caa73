// Package benchkit holds the inputs and measuring tools of the informer
// benchmarks, so that the benchmarks of the cache package and of the compare
// module (against client-go) feed the same objects and measure the same way:
//
//   - the objects: [Realistic], the [Object] kind shaped like a ConfigMap
//     from the API server, and [Metadata], tiny PartialObjectMetadata; both
//     spread over [Namespaces] namespaces;
//   - [Sender], which plays the API server of a watch, as fast as the
//     informer takes events or at a fixed rate;
//   - [LatencyHandler], which counts its calls, signals a target count and
//     records the latency from each send to its handler call;
//   - [Usage] and [LiveHeap]: CPU time, allocations and retained heap.
package benchkit
