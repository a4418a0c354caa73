package buffer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRingShrink(t *testing.T) {
	type step struct {
		writes, reads int
		emptyReads    int // reads expected to find the ring empty
		wantLen       int
		wantCap       int
	}
	tests := []struct {
		name  string
		opts  RingOptions
		steps []step
	}{
		{
			name: "zero options grow to 16 and free on drain",
			steps: []step{
				{writes: 1, wantLen: 1, wantCap: 16},
				{reads: 1, wantLen: 0, wantCap: 0},
			},
		},
		{
			name: "burst beyond normal size shrinks on the read that empties",
			opts: RingOptions{InitialSize: 4, NormalSize: 4},
			steps: []step{
				{writes: 9, wantLen: 9, wantCap: 16},
				{reads: 8, wantLen: 1, wantCap: 16},
				{reads: 1, wantLen: 0, wantCap: 4},
			},
		},
		{
			name: "capacity at normal size is kept",
			opts: RingOptions{InitialSize: 4, NormalSize: 4},
			steps: []step{
				{writes: 4, wantLen: 4, wantCap: 4},
				{reads: 4, wantLen: 0, wantCap: 4},
			},
		},
		{
			name: "one slot above normal size shrinks",
			opts: RingOptions{InitialSize: 5, NormalSize: 4},
			steps: []step{
				{writes: 1, wantLen: 1, wantCap: 5},
				{reads: 1, wantLen: 0, wantCap: 4},
			},
		},
		{
			name: "initial larger than normal shrinks on an empty read",
			opts: RingOptions{InitialSize: 100, NormalSize: 10},
			steps: []step{
				{wantLen: 0, wantCap: 100},
				{emptyReads: 1, wantLen: 0, wantCap: 10},
			},
		},
		{
			name: "initial smaller than normal is not reallocated",
			opts: RingOptions{InitialSize: 2, NormalSize: 10},
			steps: []step{
				{writes: 3, reads: 3, wantLen: 0, wantCap: 4},
				{writes: 9, reads: 9, wantLen: 0, wantCap: 10},
			},
		},
		{
			name: "negative sizes are treated as zero",
			opts: RingOptions{InitialSize: -1, NormalSize: -1},
			steps: []step{
				{wantLen: 0, wantCap: 0},
				{writes: 2, reads: 2, wantLen: 0, wantCap: 0},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRing[int](tc.opts)
			next, want := 0, 0
			for i, s := range tc.steps {
				for range s.writes {
					r.WriteOne(next)
					next++
				}
				for range s.reads {
					got, ok := r.ReadOne()
					if !ok || got != want {
						t.Fatalf("step %d: ReadOne() = (%d, %t), want (%d, true)", i, got, ok, want)
					}
					want++
				}
				for range s.emptyReads {
					if got, ok := r.ReadOne(); ok {
						t.Fatalf("step %d: ReadOne() on an empty ring = (%d, true)", i, got)
					}
				}
				if diff := cmp.Diff([2]int{s.wantLen, s.wantCap}, [2]int{r.Len(), r.Cap()}); diff != "" {
					t.Errorf("step %d: [Len Cap] mismatch (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestRingZeroValue(t *testing.T) {
	var r Ring[*int]
	v := 7
	r.WriteOne(&v)
	got, ok := r.ReadOne()
	if !ok || got != &v {
		t.Fatalf("ReadOne() = (%v, %t), want (&7, true)", got, ok)
	}
	if got, ok := r.ReadOne(); ok || got != nil {
		t.Errorf("ReadOne() on empty = (%v, %t), want (nil, false)", got, ok)
	}
}

func TestRingRandomized(t *testing.T) {
	for _, opts := range []RingOptions{
		{},
		{InitialSize: 0, NormalSize: 16},
		{InitialSize: 3, NormalSize: 3},
		{InitialSize: 16, NormalSize: 5},
		{InitialSize: 5, NormalSize: 100},
		{InitialSize: 8, NormalSize: 7},
		{InitialSize: 64, NormalSize: 64},
	} {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("initial=%d/normal=%d/seed=%d", opts.InitialSize, opts.NormalSize, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(opts.InitialSize)<<32|uint64(opts.NormalSize)))
				r := NewRing[*int](opts)
				runRingOps(t, r, &ringModel{capacity: opts.InitialSize, normalSize: opts.NormalSize}, randomOps(rng, 1500))
			})
		}
	}
}

func FuzzRing(f *testing.F) {
	f.Add(uint8(0), uint8(0), []byte{0, 1})
	f.Add(uint8(4), uint8(4), []byte{16, 15, 1, 0, 1})
	f.Add(uint8(100), uint8(10), []byte{1, 60, 61, 62, 63})
	f.Add(uint8(3), uint8(7), []byte{20, 3, 40, 41, 255})
	f.Fuzz(func(t *testing.T, initial, normal uint8, ops []byte) {
		ops = ops[:min(len(ops), maxFuzzOps)]
		r := NewRing[*int](RingOptions{InitialSize: int(initial), NormalSize: int(normal)})
		runRingOps(t, r, &ringModel{capacity: int(initial), normalSize: int(normal)}, ops)
		g := NewTypedRingGrowing[*int](RingGrowingOptions{InitialSize: int(initial)})
		runRingOps(t, g, &ringModel{capacity: int(initial), normalSize: -1}, ops)
	})
}

// benchNotification has the shape of the informer's per-handler
// notification: a kind and two object references.
type benchNotification struct {
	kind           int
	oldObj, newObj any
}

func BenchmarkRing(b *testing.B) {
	// Steady state: the informer's listener writes and reads one
	// notification at a time with some backlog; no allocation expected.
	for _, backlog := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("writeRead/backlog=%d", backlog), func(b *testing.B) {
			r := NewRing[benchNotification](RingOptions{InitialSize: 1024, NormalSize: 1024})
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
	// Bursts: write n, then drain. Within the normal size nothing is
	// allocated; beyond it the ring grows and is freed on each drain.
	for _, burst := range []int{1000, 10_000} {
		b.Run(fmt.Sprintf("burst=%d", burst), func(b *testing.B) {
			r := NewRing[benchNotification](RingOptions{InitialSize: 1024, NormalSize: 1024})
			n := benchNotification{kind: 1, oldObj: &struct{}{}, newObj: &struct{}{}}
			b.ReportAllocs()
			for b.Loop() {
				for range burst {
					r.WriteOne(n)
				}
				for range burst {
					r.ReadOne()
				}
			}
		})
	}
}
