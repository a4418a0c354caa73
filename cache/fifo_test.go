package cache

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fifoLen returns the number of queued keys, skipped ones included.
func fifoLen(f *FIFO) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// drainFIFO pops until nothing is queued and returns the popped objects'
// "name@rv".
func drainFIFO(t testing.TB, f *FIFO) []string {
	t.Helper()
	var out []string
	for {
		f.mu.Lock()
		live := 0
		for _, key := range f.queue {
			if _, ok := f.items[key]; ok {
				live++
			}
		}
		f.mu.Unlock()
		if live == 0 {
			return out
		}
		o := popNow(t, f).Item.(interface {
			GetName() string
			GetResourceVersion() string
		})
		out = append(out, o.GetName()+"@"+o.GetResourceVersion())
	}
}

func TestFIFO(t *testing.T) {
	tests := []struct {
		name     string
		ops      func(f *FIFO) error
		want     []string
		wantSync bool
	}{
		{
			name: "keeps the newest object at the first position",
			ops: func(f *FIFO) error {
				return errors.Join(f.Add(qobj("a", "1")), f.Add(qobj("b", "1")), f.Update(qobj("a", "2")))
			},
			want:     []string{"a@2", "b@1"},
			wantSync: true,
		},
		{
			name: "deleted objects are skipped",
			ops: func(f *FIFO) error {
				return errors.Join(f.Add(qobj("a", "1")), f.Add(qobj("b", "1")), f.Delete(qobj("a", "1")))
			},
			want:     []string{"b@1"},
			wantSync: true,
		},
		{
			name: "an object re-added after a delete keeps the old position",
			ops: func(f *FIFO) error {
				return errors.Join(f.Add(qobj("a", "1")), f.Add(qobj("b", "1")), f.Delete(qobj("a", "1")), f.Add(qobj("a", "2")))
			},
			want:     []string{"a@2", "b@1"},
			wantSync: true,
		},
		{
			name: "Replace discards what was queued",
			ops: func(f *FIFO) error {
				return errors.Join(f.Add(qobj("a", "1")), f.Replace([]any{qobj("b", "1"), qobj("b", "2")}, "5"))
			},
			want:     []string{"b@2"},
			wantSync: true,
		},
		{
			name: "Resync changes nothing",
			ops: func(f *FIFO) error {
				return errors.Join(f.Add(qobj("a", "1")), f.Resync())
			},
			want:     []string{"a@1"},
			wantSync: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewFIFO(nil)
			if err := tc.ops(f); err != nil {
				t.Fatal(err)
			}
			if got := f.HasSynced(); got != tc.wantSync {
				t.Errorf("HasSynced() = %v, want %v", got, tc.wantSync)
			}
			if diff := cmp.Diff(tc.want, drainFIFO(t, f)); diff != "" {
				t.Errorf("popped (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFIFOResyncRequeuesLostKeys(t *testing.T) {
	f := NewFIFO(MetaNamespaceKeyFunc)
	if err := f.Add(qobj("a", "1")); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.queue = nil // break the invariant on purpose
	f.mu.Unlock()
	if err := f.Resync(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a@1"}, drainFIFO(t, f)); diff != "" {
		t.Errorf("popped (-want +got):\n%s", diff)
	}
}

func TestFIFODeletedInitialItemsCountAsProcessed(t *testing.T) {
	f := NewFIFO(MetaNamespaceKeyFunc)
	if err := f.Replace([]any{qobj("a", "1"), qobj("b", "1")}, "1"); err != nil {
		t.Fatal(err)
	}
	if err := f.Delete(qobj("a", "1")); err != nil {
		t.Fatal(err)
	}
	if got := popNow(t, f); !got.IsInInitialList {
		t.Error("initial item not flagged")
	}
	if !f.HasSynced() {
		t.Error("not synced after the only live initial item was processed")
	}
	if got := fifoLen(f); got != 0 {
		t.Errorf("%d keys left", got)
	}
}

func TestFIFOName(t *testing.T) {
	f := NewFIFO(MetaNamespaceKeyFunc)
	if got := f.Name(); got != "FIFO" {
		t.Errorf("Name() = %q", got)
	}
	if f.HasSyncedChecker() != DoneChecker(f) {
		t.Error("HasSyncedChecker() is not the FIFO")
	}
	if f.IsClosed() {
		t.Error("a new FIFO is closed")
	}
	var keyErr KeyError
	if err := f.Delete("junk"); !errors.As(err, &keyErr) {
		t.Errorf("Delete(junk) = %v", err)
	}
}
