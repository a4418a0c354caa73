package buffer

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNewTypedRingFixed(t *testing.T) {
	tests := []struct {
		size    int
		wantErr error
	}{
		{size: -1, wantErr: ErrInvalidSize},
		{size: 0, wantErr: ErrInvalidSize},
		{size: 1},
		{size: 4096},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("size=%d", tc.size), func(t *testing.T) {
			r, err := NewTypedRingFixed[byte](tc.size)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("NewTypedRingFixed(%d) error = %v, want %v", tc.size, err, tc.wantErr)
			}
			if err != nil {
				if r != nil {
					t.Errorf("NewTypedRingFixed(%d) returned a ring with an error", tc.size)
				}
				return
			}
			if diff := cmp.Diff([3]int64{int64(tc.size), 0, 0}, [3]int64{int64(r.Size()), int64(r.Len()), r.TotalWritten()}); diff != "" {
				t.Errorf("[Size Len TotalWritten] mismatch (-want +got):\n%s", diff)
			}
			if got := r.Slice(); got != nil {
				t.Errorf("Slice() of a new ring = %v, want nil", got)
			}
		})
	}
}

func TestTypedRingFixedWrite(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		writes []string
		want   string
	}{
		{name: "fits", size: 8, writes: []string{"abc", "de"}, want: "abcde"},
		{name: "exactly full", size: 5, writes: []string{"abc", "de"}, want: "abcde"},
		{name: "wraps", size: 4, writes: []string{"abc", "def"}, want: "cdef"},
		{name: "single write longer than size", size: 3, writes: []string{"abcdefg"}, want: "efg"},
		{name: "empty write", size: 3, writes: []string{"ab", ""}, want: "ab"},
		{name: "wraps exactly at the end", size: 3, writes: []string{"ab", "cdef"}, want: "def"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewTypedRingFixed[byte](tc.size)
			if err != nil {
				t.Fatal(err)
			}
			var w io.Writer = r
			total := 0
			for _, s := range tc.writes {
				n, err := w.Write([]byte(s))
				if n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", s, n, err, len(s))
				}
				total += len(s)
			}
			if diff := cmp.Diff(tc.want, string(r.Slice())); diff != "" {
				t.Errorf("Slice() mismatch (-want +got):\n%s", diff)
			}
			if got := r.TotalWritten(); got != int64(total) {
				t.Errorf("TotalWritten() = %d, want %d", got, total)
			}
		})
	}
}

func TestTypedRingFixedReset(t *testing.T) {
	a, b := 1, 2
	r, err := NewTypedRingFixed[*int](2)
	if err != nil {
		t.Fatal(err)
	}
	r.Write([]*int{&a, &b, &a})
	r.Reset()
	if diff := cmp.Diff([]int64{0, 0}, []int64{int64(r.Len()), r.TotalWritten()}); diff != "" {
		t.Errorf("[Len TotalWritten] after Reset mismatch (-want +got):\n%s", diff)
	}
	if got := r.Slice(); got != nil {
		t.Errorf("Slice() after Reset = %v, want nil", got)
	}
	for i, p := range r.data {
		if p != nil {
			t.Errorf("slot %d still references an element after Reset", i)
		}
	}
	r.Write([]*int{&b})
	if got := r.Slice(); len(got) != 1 || got[0] != &b {
		t.Errorf("Slice() after Reset and one write = %v, want [&2]", got)
	}
}

func TestTypedRingFixedZeroValue(t *testing.T) {
	var r TypedRingFixed[byte]
	n, err := r.Write([]byte("abc"))
	if n != 3 || err != nil {
		t.Fatalf("Write on the zero value = %d, %v; want 3, nil", n, err)
	}
	if diff := cmp.Diff([]int64{0, 0, 3}, []int64{int64(r.Size()), int64(r.Len()), r.TotalWritten()}); diff != "" {
		t.Errorf("[Size Len TotalWritten] mismatch (-want +got):\n%s", diff)
	}
	if got := r.Slice(); len(got) != 0 {
		t.Errorf("Slice() = %q, want empty", got)
	}
}

func TestTypedRingFixedRandomized(t *testing.T) {
	for _, size := range []int{1, 2, 7, 64} {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("size=%d/seed=%d", size, seed), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(size)))
				ops := make([]byte, 500)
				for i := range ops {
					ops[i] = byte(rng.IntN(256))
				}
				r, err := NewTypedRingFixed[byte](size)
				if err != nil {
					t.Fatal(err)
				}
				runFixedOps(t, r, &fixedModel{size: size}, ops)
			})
		}
	}
}

func FuzzTypedRingFixed(f *testing.F) {
	f.Add(uint8(1), []byte{0, 1, 2, 255, 3})
	f.Add(uint8(4), []byte{3, 4, 5, 9, 255, 8})
	f.Fuzz(func(t *testing.T, size uint8, ops []byte) {
		ops = ops[:min(len(ops), maxFuzzOps)]
		r, err := NewTypedRingFixed[byte](int(size))
		if size == 0 {
			if !errors.Is(err, ErrInvalidSize) {
				t.Fatalf("NewTypedRingFixed(0) error = %v, want ErrInvalidSize", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		runFixedOps(t, r, &fixedModel{size: int(size)}, ops)
	})
}

func BenchmarkTypedRingFixedWrite(b *testing.B) {
	for _, chunk := range []int{64, 8192} {
		b.Run(fmt.Sprintf("size=4096/chunk=%d", chunk), func(b *testing.B) {
			r, err := NewTypedRingFixed[byte](4096)
			if err != nil {
				b.Fatal(err)
			}
			p := make([]byte, chunk)
			b.SetBytes(int64(chunk))
			b.ReportAllocs()
			for b.Loop() {
				r.Write(p)
			}
		})
	}
}
