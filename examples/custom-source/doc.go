// Command custom-source feeds an informer from a source that is not
// Kubernetes: an in-process inventory of items with its own resourceVersion
// counter (inventory.go). Anything that can list its records at a version
// and stream the changes after it can drive a SharedIndexInformer, with its
// indexes, handlers and listers.
//
//	go run ./examples/custom-source
package main
