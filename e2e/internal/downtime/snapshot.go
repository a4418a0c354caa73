package downtime

import (
	"path/filepath"

	"github.com/informer-go/informer/cache"
)

// snapshotOption sets on the options of an informer-go informer the option
// that makes it keep its cache in a snapshot under src.SnapshotDir
// (identified by src.ClusterID and src.Namespace) and resume from it on
// Run (issue 24). The libraries "informer-go-snapshot" and
// "informer-go-inorder-snapshot" of [Libraries] use it. Snapshots are
// written at stop only: the scenario stops every informer cleanly.
var snapshotOption = func(opts *cache.SharedIndexInformerOptions, src Source) {
	opts.Snapshot = &cache.SnapshotOptions{
		Path:            filepath.Join(src.SnapshotDir, "configmaps.snapshot"),
		ClusterIdentity: src.ClusterID,
		Namespace:       src.Namespace,
		Interval:        -1,
	}
}
