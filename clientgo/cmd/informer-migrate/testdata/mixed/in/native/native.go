// Package native builds an informer with informer-go's own API.
package native

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/informer-go/informer/cache"
)

// New returns an informer of lw.
func New(lw cache.ListerWatcher) cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, nil)
}
