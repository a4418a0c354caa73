package shard

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
)

// Filter keeps what a shard selector selects, on the client, with the
// apiserver's own matcher. When the server honours the selector it removes
// nothing; when the server ignores it (the feature gate is off, or the
// server predates it) it is what keeps an informer on its shard. The zero
// value selects everything.
type Filter struct {
	set Set
	// selector is set's canonical selector; nil when set selects
	// everything.
	selector sharding.Selector
}

// NewFilter returns the filter of set.
func NewFilter(set Set) Filter {
	f := Filter{set: set}
	if !set.Everything() {
		f.selector = set.Selector()
	}
	return f
}

// Set returns the shard the filter keeps.
func (f Filter) Set() Set {
	return f.set
}

// Everything reports whether the filter keeps every object.
func (f Filter) Everything() bool {
	return f.selector == nil
}

// RequestSelector is what a request's ShardSelector carries; "" for
// everything.
func (f Filter) RequestSelector() string {
	if f.selector == nil {
		return ""
	}
	return f.selector.String()
}

// Matches reports whether obj belongs to the shard. An object whose field
// cannot be read (nil, or without metadata) is kept, for the caller to
// report.
func (f Filter) Matches(obj runtime.Object) bool {
	if f.selector == nil || isNil(obj) {
		return true
	}
	ok, err := f.selector.Matches(obj)
	return ok || err != nil
}

// isNil reports whether obj is nil or a nil pointer, whose accessors would
// panic.
func isNil(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
