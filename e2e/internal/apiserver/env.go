package apiserver

import (
	"context"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/informer-go/informer/e2e/internal/binaries"
)

// EnvSkip, set to 1, lets the tests skip when the binaries cannot be
// obtained (built or found in $KUBEBUILDER_ASSETS). By default that is a
// failure: CI must really run the tests.
const EnvSkip = "INFORMER_E2E_SKIP"

// Env is the cluster of one test binary. Declare one per package and run
// the tests with [Env.Run] from TestMain:
//
//	var env apiserver.Env
//
//	func TestMain(m *testing.M) { os.Exit(env.Run(m, nil)) }
//
//	func TestSomething(t *testing.T) {
//		cluster := env.Cluster(t)
//		ns := cluster.CreateNamespace(t)
//		...
//	}
type Env struct {
	cluster *Cluster
	// skip is why the tests skip, when the binaries are missing and
	// $INFORMER_E2E_SKIP allows it.
	skip string
}

// Run obtains the binaries (building them if needed, with progress on
// stderr), starts the cluster with extra kube-apiserver flags apiServerArgs,
// runs the tests, stops the cluster and checks for leaked goroutines. It
// returns the exit code for os.Exit. The cluster's directory is kept, and
// the tails of its logs printed, when a test failed.
func (e *Env) Run(m *testing.M, apiServerArgs []string) int {
	ctx := context.Background()
	paths, err := binaries.Ensure(ctx, os.Stderr)
	if err != nil {
		if os.Getenv(EnvSkip) != "1" {
			fmt.Fprintf(os.Stderr, "e2e: cannot obtain etcd and kube-apiserver: %v\n"+
				"(set %s=1 to skip the end-to-end tests instead, or %s to a directory holding both)\n",
				err, EnvSkip, binaries.EnvAssets)
			return 1
		}
		e.skip = fmt.Sprintf("etcd and kube-apiserver are not available and %s=1: %v", EnvSkip, err)
		fmt.Fprintf(os.Stderr, "e2e: SKIPPING: %s\n", e.skip)
		return m.Run()
	}
	cluster, err := Start(ctx, Options{Binaries: paths, APIServerArgs: apiServerArgs})
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	e.cluster = cluster
	code := m.Run()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "e2e: tests failed; cluster logs kept in %s\n%s", cluster.Dir(), cluster.LogTails(50))
	}
	// Stopping the cluster first ends the connections of client-go's
	// transports, and with them their goroutines.
	cluster.Stop(code != 0)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: goroutines leaked: %v\n", err)
			code = 1
		}
	}
	return code
}

// Cluster returns the running cluster, or skips the test when the binaries
// are missing and $INFORMER_E2E_SKIP allows it. If the test fails, the
// tails of the cluster's logs are logged at its end.
func (e *Env) Cluster(t testing.TB) *Cluster {
	t.Helper()
	if e.skip != "" {
		t.Skip(e.skip)
	}
	if e.cluster == nil {
		t.Fatal("no cluster: call Env.Run from TestMain")
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cluster logs (in %s):\n%s", e.cluster.Dir(), e.cluster.LogTails(30))
		}
	})
	return e.cluster
}
