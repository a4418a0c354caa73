package framework_test

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	framework "github.com/informer-go/informer/cache/testing"
)

// BenchmarkUpdate measures a write fanned out to open watches whose
// clients keep up.
func BenchmarkUpdate(b *testing.B) {
	for _, watchers := range []int{0, 10, 100} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			srv := framework.NewServer(framework.Options[*pom]{WatchBufferSize: 1 << 20})
			defer srv.Close()
			if _, err := srv.Create(object("ns", "a", nil)); err != nil {
				b.Fatal(err)
			}
			for range watchers {
				w, err := srv.WatchWithContext(b.Context(), metav1.ListOptions{ResourceVersion: srv.ResourceVersion()})
				if err != nil {
					b.Fatal(err)
				}
				go func() {
					for range w.ResultChan() {
					}
				}()
			}
			labels := []map[string]string{{"l": "x"}, {"l": "y"}}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := srv.Update(object("ns", "a", labels[i%2])); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkListPage measures the first page of a paginated list.
func BenchmarkListPage(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			srv := framework.NewServer(framework.Options[*pom]{})
			defer srv.Close()
			for i := range n {
				if _, err := srv.Create(object("ns", fmt.Sprintf("o%05d", i), nil)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := srv.ListWithContext(b.Context(), metav1.ListOptions{Limit: 500}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
