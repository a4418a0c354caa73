package shard_test

import (
	"os"
	"testing"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// gateArgs turn on server-side sharded list and watch (alpha in 1.36).
var gateArgs = []string{"--feature-gates=ShardedListAndWatch=true"}

// env is the cluster every test in this package shares: kube-apiserver with
// the ShardedListAndWatch feature gate on. Each test works in a namespace
// of its own; a test that restarts kube-apiserver without the gate restores
// it, and no test runs in parallel.
var env apiserver.Env

func TestMain(m *testing.M) {
	os.Exit(env.Run(m, gateArgs))
}
