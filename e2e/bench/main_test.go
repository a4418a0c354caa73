package bench

import (
	"flag"
	"os"
	"testing"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// env is the cluster the benchmarks share.
var env apiserver.Env

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		// Without -bench nothing here runs: no cluster to start.
		os.Exit(m.Run())
	}
	os.Exit(env.Run(m, nil))
}
