package clientgo_test

import (
	"os"
	"testing"

	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/informer-go/informer/e2e/internal/apiserver"
)

// env is the cluster every test in this package shares; each test works in
// a namespace of its own.
var env apiserver.Env

func TestMain(m *testing.M) {
	ctrllog.SetLogger(klog.Background())
	os.Exit(env.Run(m, nil))
}
