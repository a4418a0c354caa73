//go:build ignore

// A check the runner adds to controller-runtime's pkg/cache tests: it runs
// after the Ginkgo suite (its file sorts last) and fails unless the suite's
// informers were this library's.

package cache_test

import (
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache/internal"
)

func TestInformerGoInformersUsed(t *testing.T) {
	n := internal.InformerGoInformers()
	if n == 0 {
		t.Fatal("no informer was built by informer-go's clientgo.NewSharedIndexInformer")
	}
	t.Logf("%d informers built by informer-go (%s pipeline)", n, internal.InformerGoPipeline())
}
