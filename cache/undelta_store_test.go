package cache

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUndeltaStorePushesAfterEachChange(t *testing.T) {
	var pushes [][]string
	u := NewUndeltaStore(func(objs []any) { pushes = append(pushes, storeKeysOf(t, objs)) }, MetaNamespaceKeyFunc)
	a, b := storeObj("ns", "a", "1"), storeObj("ns", "b", "1")
	steps := []struct {
		name string
		call func() error
		want []string // nil: no push
	}{
		{"add", func() error { return u.Add(a) }, []string{"ns/a"}},
		{"update", func() error { return u.Update(b) }, []string{"ns/a", "ns/b"}},
		{"delete", func() error { return u.Delete(a) }, []string{"ns/b"}},
		{"replace", func() error { return u.Replace([]any{a}, "2") }, []string{"ns/a"}},
		{"failed add", func() error { _ = u.Add(nil); return nil }, nil},
		{"failed delete", func() error { _ = u.Delete("no meta"); return nil }, nil},
		{"failed replace", func() error { _ = u.Replace([]any{nil}, "3"); return nil }, nil},
		{"resync", u.Resync, nil},
	}
	for _, step := range steps {
		pushes = nil
		if err := step.call(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		var want [][]string
		if step.want != nil {
			want = [][]string{step.want}
		}
		if diff := cmp.Diff(want, pushes); diff != "" {
			t.Errorf("%s: pushes (-want +got):\n%s", step.name, diff)
		}
	}
	if got := u.LastStoreSyncResourceVersion(); got != "2" {
		t.Errorf("resource version %q", got)
	}

	// Without PushFunc, changes still apply.
	quiet := NewUndeltaStore(nil, MetaNamespaceKeyFunc)
	if err := quiet.Add(a); err != nil || len(quiet.List()) != 1 {
		t.Errorf("Add without PushFunc: %v", err)
	}
}
