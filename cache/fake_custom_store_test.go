package cache

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFakeCustomStoreZeroValue(t *testing.T) {
	var f FakeCustomStore
	if f.Add(1) != nil || f.Update(1) != nil || f.Delete(1) != nil || f.Replace(nil, "") != nil || f.Resync() != nil {
		t.Error("a write of the zero value returned an error")
	}
	if f.List() != nil || f.ListKeys() != nil || f.LastStoreSyncResourceVersion() != "" {
		t.Error("a read of the zero value returned something")
	}
	if item, ok, err := f.Get(1); item != nil || ok || err != nil {
		t.Error("Get of the zero value found something")
	}
	if item, ok, err := f.GetByKey("k"); item != nil || ok || err != nil {
		t.Error("GetByKey of the zero value found something")
	}
	f.Bookmark("1")
}

func TestFakeCustomStoreCallsFuncs(t *testing.T) {
	var calls []string
	errFake := errors.New("fake")
	record := func(name string) error { calls = append(calls, name); return errFake }
	f := &FakeCustomStore{
		AddFunc:      func(any) error { return record("Add") },
		UpdateFunc:   func(any) error { return record("Update") },
		DeleteFunc:   func(any) error { return record("Delete") },
		ListFunc:     func() []any { _ = record("List"); return []any{1} },
		ListKeysFunc: func() []string { _ = record("ListKeys"); return []string{"k"} },
		GetFunc:      func(any) (any, bool, error) { return 1, true, record("Get") },
		GetByKeyFunc: func(string) (any, bool, error) { return 1, true, record("GetByKey") },
		ReplaceFunc:  func([]any, string) error { return record("Replace") },
		ResyncFunc:   func() error { return record("Resync") },
		BookmarkFunc: func(rv string) { _ = record("Bookmark " + rv) },
		LastStoreSyncResourceVersionFunc: func() string {
			_ = record("LastStoreSyncResourceVersion")
			return "7"
		},
	}
	for _, err := range []error{f.Add(1), f.Update(1), f.Delete(1), f.Replace(nil, ""), f.Resync()} {
		if !errors.Is(err, errFake) {
			t.Errorf("error %v not passed through", err)
		}
	}
	f.List()
	f.ListKeys()
	f.Get(1)
	f.GetByKey("k")
	f.Bookmark("5")
	if f.LastStoreSyncResourceVersion() != "7" {
		t.Error("LastStoreSyncResourceVersion result not passed through")
	}
	want := []string{"Add", "Update", "Delete", "Replace", "Resync", "List", "ListKeys", "Get", "GetByKey", "Bookmark 5", "LastStoreSyncResourceVersion"}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}
