package downtime

import "github.com/informer-go/informer/cache"

// snapshotOption sets on the options of an informer-go informer the option
// that makes it keep its cache in a snapshot under src.SnapshotDir
// (identified by src.ClusterID) and resume from it on Run (issue 24). The
// libraries "informer-go-snapshot" and "informer-go-inorder-snapshot" of
// [Libraries] use it, and are skipped with a reason while it is nil.
//
// It is nil until the option exists. The integrator of issue 24 sets it
// here, along the lines of
//
//	var snapshotOption = func(opts *cache.SharedIndexInformerOptions, src Source) {
//		opts.Snapshot = &cache.SnapshotOptions{Dir: src.SnapshotDir, ClusterID: src.ClusterID}
//	}
//
// An integration through the factories instead replaces the Build of those
// two libraries in Libraries; their expected outcomes stay.
var snapshotOption func(opts *cache.SharedIndexInformerOptions, src Source)
