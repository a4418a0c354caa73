package conformance_test

import (
	"testing"

	"github.com/informer-go/informer/cache/testing/conformance"
)

// knownFailures are scenarios skipped against the real server, with the
// reason. Each entry is a bug to fix where the reason says, after which the
// entry goes.
var knownFailures = map[string]string{
	// The scenario names its sentinel object "sentinel-"+rv: for rv "" that
	// is "sentinel-", which a kube-apiserver rejects (a name must end with
	// an alphanumeric character) and the fake accepts.
	"watch/initial-state": `scenario bug in cache/testing/conformance: object name "sentinel-" is invalid`,
}

// TestConformance runs every conformance scenario against the cluster, each
// in a fresh namespace.
func TestConformance(t *testing.T) {
	cluster := env.Cluster(t)
	var scenarios []conformance.Scenario
	for _, sc := range conformance.Scenarios() {
		if reason, ok := knownFailures[sc.Name]; ok {
			sc.Run = func(t *testing.T, _ conformance.Target) {
				t.Skipf("known failure: %s", reason)
			}
		}
		scenarios = append(scenarios, sc)
	}
	conformance.RunScenarios(t, scenarios, func(t *testing.T) conformance.Target {
		return &configMapTarget{cluster: cluster, client: cluster.Client(), namespace: cluster.CreateNamespace(t)}
	})
}
