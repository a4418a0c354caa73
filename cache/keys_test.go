package cache

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func newMeta(namespace, name string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name}}
}

func TestMetaNamespaceKeyFunc(t *testing.T) {
	tests := []struct {
		name    string
		obj     any
		want    string
		wantErr bool
	}{
		{name: "namespaced", obj: newMeta("ns", "a"), want: "ns/a"},
		{name: "cluster scoped", obj: newMeta("", "a"), want: "a"},
		{name: "explicit key", obj: ExplicitKey("any/thing"), want: "any/thing"},
		{name: "nil", obj: nil, wantErr: true},
		{name: "typed nil", obj: (*metav1.PartialObjectMetadata)(nil), wantErr: true},
		{name: "no metadata", obj: "a string", wantErr: true},
		{name: "tombstone is not unwrapped", obj: DeletedFinalStateUnknown{Key: "ns/a"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MetaNamespaceKeyFunc(tc.obj)
			if (err != nil) != tc.wantErr {
				t.Fatalf("MetaNamespaceKeyFunc() error = %v, wantErr %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Fatalf("MetaNamespaceKeyFunc() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDeletionHandlingMetaNamespaceKeyFunc(t *testing.T) {
	got, err := DeletionHandlingMetaNamespaceKeyFunc(DeletedFinalStateUnknown{Key: "ns/gone", Obj: nil})
	if err != nil || got != "ns/gone" {
		t.Fatalf("tombstone: got %q, %v; want ns/gone, nil", got, err)
	}
	got, err = DeletionHandlingMetaNamespaceKeyFunc(newMeta("ns", "a"))
	if err != nil || got != "ns/a" {
		t.Fatalf("object: got %q, %v; want ns/a, nil", got, err)
	}
	if _, err := DeletionHandlingMetaNamespaceKeyFunc(42); err == nil {
		t.Fatal("want an error for an object without metadata")
	}
}

func TestSplitMetaNamespaceKey(t *testing.T) {
	tests := []struct {
		key, namespace, name string
		wantErr              bool
	}{
		{key: "a", name: "a"},
		{key: "ns/a", namespace: "ns", name: "a"},
		{key: "", name: ""},
		{key: "/a", namespace: "", name: "a"},
		{key: "ns/", namespace: "ns", name: ""},
		{key: "a/b/c", wantErr: true},
		{key: "//", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			ns, name, err := SplitMetaNamespaceKey(tc.key)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error = %v, wantErr %v", err, tc.wantErr)
			}
			if ns != tc.namespace || name != tc.name {
				t.Fatalf("got (%q, %q), want (%q, %q)", ns, name, tc.namespace, tc.name)
			}
		})
	}
}

func TestKeyError(t *testing.T) {
	cause := errors.New("boom")
	err := error(KeyError{Obj: "x", Err: cause})
	if !errors.Is(err, cause) {
		t.Fatal("KeyError does not unwrap to its cause")
	}
	var ke KeyError
	if !errors.As(err, &ke) || ke.Obj != "x" {
		t.Fatalf("errors.As(KeyError) = %+v", ke)
	}
	if err.Error() == "" {
		t.Fatal("empty message")
	}
}

func FuzzSplitMetaNamespaceKey(f *testing.F) {
	for _, s := range []string{"", "a", "ns/a", "a/b/c", "/", "ns/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		ns, name, err := SplitMetaNamespaceKey(key)
		if err != nil {
			return
		}
		// Whatever parses must encode back to the same key, except that an
		// empty namespace drops its separator.
		back := ObjectName{Namespace: ns, Name: name}.String()
		if back != key && "/"+back != key {
			t.Fatalf("SplitMetaNamespaceKey(%q) = (%q, %q), which encodes to %q", key, ns, name, back)
		}
		parsed, err := ParseObjectName(key)
		if err != nil || parsed.Namespace != ns || parsed.Name != name {
			t.Fatalf("ParseObjectName(%q) = %+v, %v; disagrees with SplitMetaNamespaceKey", key, parsed, err)
		}
	})
}

// TestIsMetaKeyOf checks isMetaKeyOf against
// DeletionHandlingMetaNamespaceKeyFunc: for every probe object, the key
// function's own key matches (unless it fails) and near misses do not.
func TestIsMetaKeyOf(t *testing.T) {
	_, probes := storeKeyProbes()
	for _, obj := range probes {
		key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
		candidates := []string{"", "ns/a", "a", "ns/", "/a", "ns/ab", "nsx/a", key + "x", "x" + key}
		if err == nil {
			candidates = append(candidates, key)
		}
		for _, candidate := range candidates {
			want := err == nil && candidate == key
			if got := isMetaKeyOf(candidate, obj); got != want {
				t.Errorf("isMetaKeyOf(%q, %s) = %v, want %v (the key function says %q, %v)", candidate, describeObj(obj), got, want, key, err)
			}
		}
	}
}
