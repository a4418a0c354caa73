package cache

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// storeObj returns a test object: ns may be "" for a cluster-scoped one; kv
// are label key/value pairs.
func storeObj(ns, name, rv string, kv ...string) *metav1.PartialObjectMetadata {
	o := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: name, ResourceVersion: rv, UID: types.UID("uid-" + ns + "-" + name),
	}}
	if len(kv) > 0 {
		o.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			o.Labels[kv[i]] = kv[i+1]
		}
	}
	return o
}

// errStoreIndexFailed is what the failing test index functions return.
var errStoreIndexFailed = errors.New("index function failed on purpose")

// storeLabelIndexFunc indexes an object under "key=value" and "value" for each
// label (so values repeat across labels), in map order (so the order changes
// between calls). It fails for an object with a "fail" label, or without
// metadata.
func storeLabelIndexFunc(obj any) ([]string, error) {
	m, err := objectMeta(obj)
	if err != nil {
		return nil, err
	}
	if _, bad := m.GetLabels()["fail"]; bad {
		return nil, errStoreIndexFailed
	}
	var out []string
	for k, v := range m.GetLabels() {
		out = append(out, k+"="+v, v)
	}
	return out, nil
}

// storeNameIndexFunc indexes an object by its name; it fails for a name
// starting with "bad".
func storeNameIndexFunc(obj any) ([]string, error) {
	m, err := objectMeta(obj)
	if err != nil {
		return nil, err
	}
	if len(m.GetName()) >= 3 && m.GetName()[:3] == "bad" {
		return nil, errStoreIndexFailed
	}
	return []string{m.GetName()}, nil
}

// storeHandledErrors replaces the HandleError handlers for the duration of
// the test and returns a function listing what they received.
func storeHandledErrors(t *testing.T) func() []error {
	t.Helper()
	var mu sync.Mutex
	var got []error
	old := utilruntime.ErrorHandlers
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{
		func(_ context.Context, err error, _ string, _ ...any) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, err)
		},
	}
	t.Cleanup(func() { utilruntime.ErrorHandlers = old })
	return func() []error {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(got)
	}
}

// storeKeysOf returns the sorted keys of objs, which must have metadata.
func storeKeysOf(t testing.TB, objs []any) []string {
	t.Helper()
	keys := make([]string, 0, len(objs))
	for _, o := range objs {
		key, err := MetaNamespaceKeyFunc(o)
		if err != nil {
			t.Fatalf("key of %#v: %v", o, err)
		}
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

// storeSorted returns a sorted copy of s, never nil.
func storeSorted(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	return out
}
