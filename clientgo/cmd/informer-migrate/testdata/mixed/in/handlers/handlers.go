// Package handlers asserts client-go's tombstone.
package handlers

import "k8s.io/client-go/tools/cache"

// Key returns the key of a deleted object.
func Key(obj any) string {
	if d, ok := obj.(*cache.DeletedFinalStateUnknown); ok {
		return d.Key
	}
	return ""
}
