// Package clientgo adapts informer-go to client-go.
package clientgo
