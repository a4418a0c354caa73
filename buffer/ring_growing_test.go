package buffer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// randomOps returns a command sequence for runRingOps that alternates between
// filling phases (mostly writes) and draining phases (mostly reads), so the
// ring crosses its growth and shrink boundaries many times.
func randomOps(rng *rand.Rand, n int) []byte {
	ops := make([]byte, n)
	filling := true
	for i := range ops {
		if rng.IntN(40) == 0 {
			filling = !filling
		}
		read := rng.IntN(10) < 3
		if !filling {
			read = !read
		}
		op := byte(rng.IntN(40)) << 1
		if read {
			op |= 1
		}
		ops[i] = op
	}
	return ops
}

func TestTypedRingGrowingCapacity(t *testing.T) {
	tests := []struct {
		name    string
		initial int
		writes  int
		wantCap int
	}{
		{name: "zero value allocates 16 on first write", initial: 0, writes: 1, wantCap: 16},
		{name: "zero value doubles after 16", initial: 0, writes: 17, wantCap: 32},
		{name: "negative size is treated as zero", initial: -5, writes: 0, wantCap: 0},
		{name: "negative size grows to 16", initial: -5, writes: 1, wantCap: 16},
		{name: "initial size kept while it fits", initial: 3, writes: 3, wantCap: 3},
		{name: "odd size doubles", initial: 3, writes: 4, wantCap: 6},
		{name: "odd size doubles twice", initial: 3, writes: 7, wantCap: 12},
		{name: "informer size", initial: 1024, writes: 1025, wantCap: 2048},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTypedRingGrowing[int](RingGrowingOptions{InitialSize: tc.initial})
			for i := range tc.writes {
				r.WriteOne(i)
			}
			if diff := cmp.Diff([2]int{tc.writes, tc.wantCap}, [2]int{r.Len(), r.Cap()}); diff != "" {
				t.Errorf("[Len Cap] mismatch (-want +got):\n%s", diff)
			}
			var got []int
			for v, ok := r.ReadOne(); ok; v, ok = r.ReadOne() {
				got = append(got, v)
			}
			want := make([]int, tc.writes)
			for i := range want {
				want[i] = i
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("read order mismatch (-want +got):\n%s", diff)
			}
			if got := r.Cap(); got != tc.wantCap {
				t.Errorf("Cap() after drain = %d, want %d (a growing ring never shrinks)", got, tc.wantCap)
			}
		})
	}
}

func TestTypedRingGrowingReadEmpty(t *testing.T) {
	var r TypedRingGrowing[string]
	if v, ok := r.ReadOne(); ok || v != "" {
		t.Errorf("ReadOne() on the zero value = (%q, %t), want (\"\", false)", v, ok)
	}
	r.WriteOne("a")
	r.ReadOne()
	if v, ok := r.ReadOne(); ok || v != "" {
		t.Errorf("ReadOne() on a drained ring = (%q, %t), want (\"\", false)", v, ok)
	}
}

func TestRingGrowingAlias(t *testing.T) {
	r := NewRingGrowing(2)
	r.WriteOne("x")
	r.WriteOne(1)
	r.WriteOne(nil)
	var got []any
	for v, ok := r.ReadOne(); ok; v, ok = r.ReadOne() {
		got = append(got, v)
	}
	if diff := cmp.Diff([]any{"x", 1, nil}, got); diff != "" {
		t.Errorf("read mismatch (-want +got):\n%s", diff)
	}
	if got := r.Cap(); got != 4 {
		t.Errorf("Cap() = %d, want 4", got)
	}
}

func TestTypedRingGrowingRandomized(t *testing.T) {
	for _, initial := range []int{0, 1, 3, 16, 100} {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("initial=%d/seed=%d", initial, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(initial)))
				r := NewTypedRingGrowing[*int](RingGrowingOptions{InitialSize: initial})
				runRingOps(t, r, &ringModel{capacity: initial, normalSize: -1}, randomOps(rng, 1500))
			})
		}
	}
}

func BenchmarkTypedRingGrowing(b *testing.B) {
	for _, backlog := range []int{0, 1000} {
		b.Run(fmt.Sprintf("writeRead/backlog=%d", backlog), func(b *testing.B) {
			r := NewTypedRingGrowing[benchNotification](RingGrowingOptions{InitialSize: 1024})
			for range backlog {
				r.WriteOne(benchNotification{})
			}
			n := benchNotification{kind: 1, oldObj: &struct{}{}, newObj: &struct{}{}}
			b.ReportAllocs()
			for b.Loop() {
				r.WriteOne(n)
				r.ReadOne()
			}
		})
	}
}
