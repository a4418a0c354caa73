// Command quickstart shows the core of the library in one run, with no
// cluster: an in-memory kube-apiserver holds a few ConfigMaps, a
// SharedIndexInformer keeps an indexed local copy of them, a handler hears
// about every change, and index queries and a lister read the local copy.
//
//	go run ./examples/quickstart    # or: make demo
package main
