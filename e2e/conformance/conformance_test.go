package conformance_test

import (
	"testing"

	"github.com/informer-go/informer/cache/testing/conformance"
)

// TestConformance runs every conformance scenario against the cluster, each
// in a fresh namespace: what passes against the in-memory fake must pass here.
func TestConformance(t *testing.T) {
	cluster := env.Cluster(t)
	conformance.Run(t, func(t *testing.T) conformance.Target {
		return &configMapTarget{cluster: cluster, client: cluster.Client(), namespace: cluster.CreateNamespace(t)}
	})
}
