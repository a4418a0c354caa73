package cache_test

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// nopStore is the smallest ReflectorStore.
type nopStore struct{}

func (nopStore) Add(any) error               { return nil }
func (nopStore) Update(any) error            { return nil }
func (nopStore) Delete(any) error            { return nil }
func (nopStore) Replace([]any, string) error { return nil }
func (nopStore) Resync() error               { return nil }

// TestReflectorDefaultName checks that a reflector is named after the code
// that created it, outside this library.
func TestReflectorDefaultName(t *testing.T) {
	_, _, line, _ := runtime.Caller(0)
	r := cache.NewReflector(&cache.ListWatch{}, &metav1.PartialObjectMetadata{}, nopStore{}, 0)
	want := "/cache/reflector_name_external_test.go:" + strconv.Itoa(line+1)
	if !strings.HasSuffix(r.Name(), want) {
		t.Errorf("Name() = %q, want a name ending in %q", r.Name(), want)
	}

	named := cache.NewNamedReflector("pods", &cache.ListWatch{}, nil, nopStore{}, 0)
	if named.Name() != "pods" {
		t.Errorf("Name() = %q, want %q", named.Name(), "pods")
	}
}
