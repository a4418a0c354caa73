// Command app is a fixture of informer-migrate's tests.
package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"example.com/app/handlers"
)

func main() {
	var client kubernetes.Interface
	factory := informers.NewSharedInformerFactory(client, 0)
	lw := cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "pods", "", fields.Everything())
	informer := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	informer.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		switch obj := obj.(type) {
		case *corev1.Pod:
			fmt.Println("deleted", obj.Name)
		case cache.DeletedFinalStateUnknown:
			fmt.Println("deleted", obj.Key)
		}
	}})
	factory.Core().V1().Pods().Informer().AddEventHandler(handlers.Handler())
}
