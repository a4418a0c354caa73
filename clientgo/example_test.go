package clientgo_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
)

// client-go's generated listers read this library's informers through
// AsIndexer.
func ExampleAsIndexer() {
	client := fake.NewClientset(
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db"}},
	)
	informer := cache.NewSharedIndexInformer(cache.NewListWatchFromTypedClient(client.CoreV1().Pods(""), nil),
		&corev1.Pod{}, 0, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go informer.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		panic("not synced")
	}

	lister := corev1listers.NewPodLister(clientgo.AsIndexer(informer.GetIndexer()))
	pod, err := lister.Pods("default").Get("web")
	fmt.Println(pod.Name, err)
	pods, _ := lister.List(labels.Everything())
	fmt.Println(len(pods), "pods")
	// Output:
	// web <nil>
	// 2 pods
}
