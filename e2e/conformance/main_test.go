package conformance_test

import (
	"os"
	"testing"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// env is the cluster every test in this package shares; each scenario works
// in a namespace of its own. The ShardedListAndWatch feature gate (alpha in
// 1.36) is on for the shard scenarios; it changes nothing for requests
// without a shard selector.
var env apiserver.Env

func TestMain(m *testing.M) {
	os.Exit(env.Run(m, []string{"--feature-gates=ShardedListAndWatch=true"}))
}
