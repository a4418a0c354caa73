package informers_test

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/informer-go/informer/clientgo/informers"
)

// The factory is used exactly as client-go's: only the import path differs.
func ExampleNewSharedInformerFactory() {
	client := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"}})
	factory := informers.NewSharedInformerFactory(client, 0)
	configMaps := factory.Core().V1().ConfigMaps()
	lister := configMaps.Lister()

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	for typ, synced := range factory.WaitForCacheSync(ctx.Done()) {
		fmt.Println(typ, "synced:", synced)
	}
	cm, err := lister.ConfigMaps("default").Get("settings")
	fmt.Println(cm.Name, err)

	cancel()
	factory.Shutdown() // waits for the informers to stop
	// Output:
	// *v1.ConfigMap synced: true
	// settings <nil>
}
