package buffer

import (
	"bytes"
	"fmt"
	"testing"
)

// maxFuzzOps bounds the commands a fuzz input may run: the model checks are
// linear in the ring's capacity after every command, so longer inputs would
// only slow the fuzzer down without reaching new states.
const maxFuzzOps = 300

// ringUnderTest is the part of the API shared by TypedRingGrowing and Ring.
type ringUnderTest interface {
	WriteOne(*int)
	ReadOne() (*int, bool)
	Len() int
	Cap() int
}

// ringModel is the naive reference: a slice for the contents and the
// capacity rules spelled out. normalSize < 0 means the ring never shrinks.
type ringModel struct {
	elems      []int
	capacity   int
	normalSize int
}

func (m *ringModel) write(v int) {
	if len(m.elems) == m.capacity {
		if m.capacity == 0 {
			m.capacity = 16
		} else {
			m.capacity *= 2
		}
	}
	m.elems = append(m.elems, v)
}

func (m *ringModel) read() (int, bool) {
	var v int
	ok := len(m.elems) > 0
	if ok {
		v = m.elems[0]
		m.elems = m.elems[1:]
	}
	if m.normalSize >= 0 && len(m.elems) == 0 && m.capacity > m.normalSize {
		m.capacity = m.normalSize
	}
	return v, ok
}

// storageOf returns the ring's storage and window for the invariant check.
func storageOf(r ringUnderTest) (data []*int, beg, readable int) {
	switch r := r.(type) {
	case *TypedRingGrowing[*int]:
		return r.data, r.beg, r.readable
	case *Ring[*int]:
		return r.growing.data, r.growing.beg, r.growing.readable
	}
	panic(fmt.Sprintf("unexpected ring type %T", r))
}

// checkStorage verifies the window is in range and that every slot outside
// it is nil, i.e. the ring keeps nothing reachable that was read.
func checkStorage(tb testing.TB, r ringUnderTest) {
	tb.Helper()
	data, beg, readable := storageOf(r)
	if readable < 0 || readable > len(data) || (len(data) > 0 && (beg < 0 || beg >= len(data))) {
		tb.Fatalf("window out of range: beg=%d readable=%d len=%d", beg, readable, len(data))
	}
	// The free slots run from the end of the window, wrapping around, to beg.
	i := beg + readable
	for range len(data) - readable {
		if i >= len(data) {
			i -= len(data)
		}
		if data[i] != nil {
			tb.Fatalf("slot %d outside the readable window still holds %d", i, *data[i])
		}
		i++
	}
}

// runRingOps drives r and its model with ops and fails on the first
// divergence. Each op byte is a command: bit 0 selects write (0) or read (1),
// the remaining bits give a repeat count of 1 + op>>1, so a few bytes reach
// the growth and shrink boundaries.
func runRingOps(tb testing.TB, r ringUnderTest, m *ringModel, ops []byte) {
	tb.Helper()
	next := 0
	check := func(step int) {
		tb.Helper()
		if r.Len() != len(m.elems) || r.Cap() != m.capacity {
			tb.Fatalf("op %d: Len() = %d, Cap() = %d; want %d, %d", step, r.Len(), r.Cap(), len(m.elems), m.capacity)
		}
		checkStorage(tb, r)
	}
	for step, op := range ops {
		for range 1 + int(op>>1) {
			if op&1 == 0 {
				v := next
				next++
				m.write(v)
				r.WriteOne(&v)
				continue
			}
			want, wantOK := m.read()
			got, gotOK := r.ReadOne()
			if gotOK != wantOK || (gotOK && *got != want) || (!gotOK && got != nil) {
				tb.Fatalf("op %d: ReadOne mismatch: want (%d, %t), got (%v, %t)", step, want, wantOK, deref(got), gotOK)
			}
		}
		check(step)
	}
	for len(m.elems) > 0 {
		want, _ := m.read()
		got, ok := r.ReadOne()
		if !ok || *got != want {
			tb.Fatalf("drain: want %d, got (%v, %t)", want, deref(got), ok)
		}
	}
	m.read() // an empty read may still shrink the ring
	if _, ok := r.ReadOne(); ok {
		tb.Fatal("drain: ReadOne on an empty ring returned ok")
	}
	check(len(ops))
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

// fixedModel is the naive reference for TypedRingFixed: everything written.
type fixedModel struct {
	size    int
	written []byte
}

func (m *fixedModel) want() []byte {
	if len(m.written) == 0 {
		return nil
	}
	return m.written[max(len(m.written)-m.size, 0):]
}

// runFixedOps drives r and its model. Each op byte writes op%(2*size+1)
// bytes (so writes both fit and overflow the ring), except 0xff, which resets.
func runFixedOps(tb testing.TB, r *TypedRingFixed[byte], m *fixedModel, ops []byte) {
	tb.Helper()
	next := byte(0)
	for step, op := range ops {
		if op == 0xff {
			r.Reset()
			m.written = nil
		} else {
			p := make([]byte, int(op)%(2*m.size+1))
			for i := range p {
				p[i] = next
				next++
			}
			n, err := r.Write(p)
			if n != len(p) || err != nil {
				tb.Fatalf("op %d: Write(%d bytes) = %d, %v; want %d, nil", step, len(p), n, err, len(p))
			}
			m.written = append(m.written, p...)
		}
		if got := r.Slice(); !bytes.Equal(got, m.want()) || (got == nil) != (m.want() == nil) {
			tb.Fatalf("op %d: Slice() = %v, want %v", step, got, m.want())
		}
		if got, want := r.Len(), len(m.want()); got != want {
			tb.Fatalf("op %d: Len() = %d, want %d", step, got, want)
		}
		if got, want := r.TotalWritten(), int64(len(m.written)); got != want {
			tb.Fatalf("op %d: TotalWritten() = %d, want %d", step, got, want)
		}
		if got := r.Size(); got != m.size {
			tb.Fatalf("op %d: Size() = %d, want %d", step, got, m.size)
		}
	}
}
