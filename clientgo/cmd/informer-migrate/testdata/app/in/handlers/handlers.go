// Package handlers has handlers for informers built elsewhere.
package handlers

import (
	"fmt"

	toolscache "k8s.io/client-go/tools/cache"
)

// Handler prints deletions.
func Handler() toolscache.ResourceEventHandler {
	return toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		fmt.Println("deleted", obj)
	}}
}
