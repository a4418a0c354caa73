package restart_test

import (
	"os"
	"testing"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// env is the cluster of the package's tests, which restart kube-apiserver
// and so do not run in parallel.
var env apiserver.Env

func TestMain(m *testing.M) {
	os.Exit(env.Run(m, nil))
}
