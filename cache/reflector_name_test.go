package cache

import (
	"testing"
)

func TestIsLibraryFunction(t *testing.T) {
	for fn, want := range map[string]bool{
		"github.com/informer-go/informer/cache.NewReflector":                          true,
		"github.com/informer-go/informer/cache.(*Reflector).RunWithContext":           true,
		"github.com/informer-go/informer/cache.New.func1":                             true,
		"github.com/informer-go/informer/cache/testing.(*Fake).List":                  true,
		"github.com/informer-go/informer/cache_test.TestName":                         false,
		"github.com/informer-go/informer/cache_test.TestName.func2":                   false,
		"github.com/informer-go/informer/cache/synctrack.(*SingleFileTracker).Start":  true,
		"github.com/informer-go/informer/wait.JitterUntil.func1":                      true,
		"github.com/informer-go/informer/buffer.(*Ring[...]).WriteOne":                true,
		"github.com/informer-go/informer/examples/x.run":                              false,
		"github.com/informer-go/informer/examples/controller.(*Controller).Run.func1": false,
		"github.com/informer-go/informer/test/e2e.TestInformer":                       false,
		"github.com/informer-go/informer/cachex.Run":                                  false,
		"main.main": false,
		"example.com/app/controllers.(*Reconciler).Start":                       false,
		"github.com/informer-go/informerextra/pkg.Run":                          false,
		"k8s.io/client-go/tools/cache.NewReflector":                             false,
		"github.com/informer-go/informer/cache.TestReflectorName.func1.gowrap1": true,
	} {
		if got := isLibraryFunction(fn); got != want {
			t.Errorf("isLibraryFunction(%q) = %v, want %v", fn, got, want)
		}
	}
}

func TestShortenSourcePath(t *testing.T) {
	for in, want := range map[string]string{
		"/home/u/go/src/example.com/app/main.go":          "example.com/app/main.go",
		"/root/go/pkg/mod/example.com/app@v1.0.0/main.go": "pkg/mod/example.com/app@v1.0.0/main.go",
		"/build/app/vendor/github.com/informer-go/x/y.go": "github.com/informer-go/x/y.go",
		"/work/app/main.go":                               "/work/app/main.go",
	} {
		if got := shortenSourcePath(in); got != want {
			t.Errorf("shortenSourcePath(%q) = %q, want %q", in, got, want)
		}
	}
}
