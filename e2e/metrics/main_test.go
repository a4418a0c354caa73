package metrics_test

import (
	"os"
	"testing"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// env is the cluster every test in this package shares; each test works in
// a namespace of its own.
var env apiserver.Env

func TestMain(m *testing.M) {
	os.Exit(env.Run(m, nil))
}
