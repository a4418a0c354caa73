package cache_test

import (
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/cache"
)

// An indexer keeps objects by key and answers which objects have a given
// indexed value: here, which objects carry a given "app" label.
func ExampleNewIndexer() {
	byApp := func(obj any) ([]string, error) {
		m, ok := obj.(metav1.Object)
		if !ok {
			return nil, fmt.Errorf("%T has no metadata", obj)
		}
		if app, ok := m.GetLabels()["app"]; ok {
			return []string{app}, nil
		}
		return nil, nil // not indexed
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{
		cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		"app":                byApp,
	})

	for _, o := range []struct{ ns, name, app string }{
		{"shop", "web-1", "web"}, {"shop", "web-2", "web"}, {"shop", "db-1", "db"}, {"blog", "web-1", "web"},
	} {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: o.ns, Name: o.name, Labels: map[string]string{"app": o.app},
		}}
		if err := indexer.Add(obj); err != nil {
			fmt.Println(err)
		}
	}

	web, err := indexer.ByIndex("app", "web")
	if err != nil {
		fmt.Println(err)
	}
	var names []string
	for _, obj := range web { // ByIndex returns objects in no particular order
		m := obj.(*metav1.PartialObjectMetadata)
		names = append(names, m.Namespace+"/"+m.Name)
	}
	sort.Strings(names)
	fmt.Println("app=web:", names)

	keys, _ := indexer.IndexKeys(cache.NamespaceIndex, "shop") // sorted
	fmt.Println("namespace shop:", keys)

	// Output:
	// app=web: [blog/web-1 shop/web-1 shop/web-2]
	// namespace shop: [shop/db-1 shop/web-1 shop/web-2]
}

// A failing index function refuses the write: the indexer is unchanged and
// Add returns the error (client-go would panic).
func ExampleNewIndexer_refusedWrite() {
	strict := func(obj any) ([]string, error) {
		m := obj.(*metav1.PartialObjectMetadata)
		if m.Labels["team"] == "" {
			return nil, fmt.Errorf("%s has no team label", m.Name)
		}
		return []string{m.Labels["team"]}, nil
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{"team": strict})

	err := indexer.Add(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "orphan"}})
	fmt.Println(err)
	fmt.Println("stored:", len(indexer.List()))

	// Output:
	// unable to calculate an index entry for key "orphan" on index "team": orphan has no team label
	// stored: 0
}
