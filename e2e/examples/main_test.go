package examples_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// env is the cluster every test in this package shares; each test works in
// a namespace of its own.
var env apiserver.Env

// binDir holds the programs the tests build; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "informer-e2e-examples-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binDir = dir
	// The ShardedListAndWatch gate (alpha in 1.36) lets examples/sharded
	// receive only its shard; nothing else changes.
	return env.Run(m, []string{"--feature-gates=ShardedListAndWatch=true"})
}
