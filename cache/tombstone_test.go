package cache

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// lookalikeTombstone has the fields of client-go's tombstone but is declared
// here, not in k8s.io/client-go/tools/cache: it must not be taken for one.
// The clientgo module tests client-go's own type, which this module cannot
// import.
type lookalikeTombstone struct {
	Key string
	Obj any
}

func TestAsTombstone(t *testing.T) {
	obj := newMeta("ns", "a")
	tests := []struct {
		name   string
		obj    any
		want   DeletedFinalStateUnknown
		wantOK bool
	}{
		{name: "this package's", obj: DeletedFinalStateUnknown{Key: "ns/a", Obj: obj}, want: DeletedFinalStateUnknown{Key: "ns/a", Obj: obj}, wantOK: true},
		{name: "this package's without object", obj: DeletedFinalStateUnknown{Key: "a"}, want: DeletedFinalStateUnknown{Key: "a"}, wantOK: true},
		{name: "pointer to this package's", obj: &DeletedFinalStateUnknown{Key: "ns/a"}},
		{name: "same fields, other package", obj: lookalikeTombstone{Key: "ns/a", Obj: obj}},
		{name: "unnamed struct", obj: struct {
			Key string
			Obj any
		}{Key: "ns/a", Obj: obj}},
		{name: "object", obj: obj},
		{name: "nil", obj: nil},
		{name: "string", obj: "ns/a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := asTombstone(tc.obj)
			if ok != tc.wantOK {
				t.Fatalf("asTombstone(%#v) ok = %v, want %v", tc.obj, ok, tc.wantOK)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("asTombstone(%#v) (-want +got):\n%s", tc.obj, diff)
			}
		})
	}
}

func TestDeletionHandlingKeysRejectLookalikeTombstones(t *testing.T) {
	lookalike := lookalikeTombstone{Key: "ns/a", Obj: newMeta("ns", "a")}
	if key, err := DeletionHandlingMetaNamespaceKeyFunc(lookalike); err == nil {
		t.Errorf("DeletionHandlingMetaNamespaceKeyFunc(lookalike) = %q, want an error", key)
	}
	if name, err := DeletionHandlingObjectToName(lookalike); err == nil {
		t.Errorf("DeletionHandlingObjectToName(lookalike) = %v, want an error", name)
	}
}
