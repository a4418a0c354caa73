package cache_test

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/cache"
	framework "github.com/informer-go/informer/cache/testing"
)

// configMapClient stands for a typed clientset's resource client, such as
// clientset.CoreV1().ConfigMaps(namespace): List returns its own list type.
type configMapClient struct {
	view *framework.NamespaceView[*metav1.PartialObjectMetadata]
}

func (c configMapClient) List(ctx context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	list, err := c.view.ListWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	return list.(*metav1.PartialObjectMetadataList), nil
}

func (c configMapClient) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return c.view.WatchWithContext(ctx, opts)
}

// One line turns a resource client into a ListerWatcher; the list type is
// inferred, and the options modifier selects what is listed and watched.
func ExampleNewListWatchFromTypedClient() {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	for name, app := range map[string]string{"a": "web", "b": "db", "c": "web"} {
		srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
			Namespace: "demo", Name: name, Labels: map[string]string{"app": app},
		}})
	}
	client := configMapClient{srv.Namespace("demo")}

	lw := cache.NewListWatchFromTypedClient(client, func(o *metav1.ListOptions) { o.LabelSelector = "app=web" })

	informer := cache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		panic("not synced")
	}
	keys := informer.GetStore().ListKeys()
	slices.Sort(keys)
	fmt.Println(keys)
	// Output:
	// [demo/a demo/c]
}
