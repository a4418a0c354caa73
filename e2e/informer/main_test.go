package informer_test

import (
	"os"
	"testing"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// env is the cluster every test in this package shares; each test works in
// a namespace of its own. Tests that restart kube-apiserver or compact etcd
// affect the others, so no test here runs in parallel.
var env apiserver.Env

func TestMain(m *testing.M) {
	os.Exit(env.Run(m, nil))
}
