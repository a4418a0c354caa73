package shard_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// gateArgs turn on server-side sharded list and watch (alpha in 1.36).
var gateArgs = []string{"--feature-gates=ShardedListAndWatch=true"}

// env is the cluster every test in this package shares: kube-apiserver
// starts with the ShardedListAndWatch feature gate on. Each test works in
// a namespace of its own and says whether it needs the gate on or off
// (useGate); no test runs in parallel.
var env apiserver.Env

// gateOn records whether kube-apiserver runs with gateArgs; only the
// tests, one at a time, use it.
var gateOn = true

func TestMain(m *testing.M) {
	os.Exit(env.Run(m, gateArgs))
}

// useGate restarts kube-apiserver with the gate on or off, unless it
// already runs so.
func useGate(t *testing.T, cluster *apiserver.Cluster, on bool) {
	t.Helper()
	if gateOn == on {
		return
	}
	var args []string
	if on {
		args = slices.Clone(gateArgs)
	}
	start := time.Now()
	if err := cluster.RestartAPIServerWithArgs(t.Context(), args); err != nil {
		t.Fatal(err)
	}
	gateOn = on
	t.Logf("restarted kube-apiserver with the gate %v in %v", on, time.Since(start).Round(time.Millisecond))
}
