package cache_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

func pod(name, resourceVersion string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: "default", Name: name, ResourceVersion: resourceVersion,
	}}
}

// A DeltaFIFO hands its consumer everything that happened to an object since
// it was last popped, oldest first.
func ExampleDeltaFIFO() {
	f := cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{EmitDeltaTypeReplaced: true})

	_ = f.Add(pod("web", "1"))
	_ = f.Add(pod("db", "1"))
	_ = f.Update(pod("web", "2"))
	_ = f.Delete(pod("web", "2"))
	_ = f.Delete(pod("web", "2")) // a second deletion in a row collapses into the first

	for range 2 {
		_, err := f.Pop(func(obj any, isInInitialList bool) error {
			for _, d := range obj.(cache.Deltas) {
				p := d.Object.(*metav1.PartialObjectMetadata)
				fmt.Printf("%s %s/%s@%s\n", d.Type, p.Namespace, p.Name, p.ResourceVersion)
			}
			return nil
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// Added default/web@1
	// Updated default/web@2
	// Deleted default/web@2
	// Added default/db@1
}
