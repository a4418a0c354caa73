// Package compare holds side-by-side benchmarks of informer-go's
// SharedIndexInformer (in its default DeltaFIFO mode and with InOrder set)
// and client-go v0.37.2's, fed the same scripted list and watch events.
//
// It has no library code: everything lives in its tests. Run
//
//	go test -run '^$' -bench . -benchmem
//
// in this directory; README.md explains the metrics and shows results.
package compare
