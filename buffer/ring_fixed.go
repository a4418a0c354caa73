package buffer

import (
	"errors"
	"io"
)

var _ io.Writer = (*TypedRingFixed[byte])(nil)

// ErrInvalidSize is returned by [NewTypedRingFixed] for a size that is not
// positive.
var ErrInvalidSize = errors.New("size must be positive")

// TypedRingFixed keeps the last Size elements written to it: a write that
// does not fit overwrites the oldest elements. For T = byte it is an
// [io.Writer] that retains the tail of a stream, such as recent log output.
//
// Use [NewTypedRingFixed]. The zero value has size 0: it counts what is
// written ([TypedRingFixed.TotalWritten]) but keeps nothing. A TypedRingFixed
// is not safe for concurrent use.
type TypedRingFixed[T any] struct {
	// data is the storage; its length is the size.
	data []T
	// writeCursor is the index in data of the next write; 0 <= writeCursor <
	// len(data) whenever len(data) > 0.
	writeCursor int
	// written counts every element passed to Write since creation or Reset.
	written int64
}

// NewTypedRingFixed returns an empty ring that keeps the last size elements.
// It returns [ErrInvalidSize] if size is not positive.
func NewTypedRingFixed[T any](size int) (*TypedRingFixed[T], error) {
	if size <= 0 {
		return nil, ErrInvalidSize
	}
	return &TypedRingFixed[T]{data: make([]T, size)}, nil
}

// Write copies p into the ring, overwriting the oldest elements when the ring
// is full; if p is longer than the size only its last Size elements are kept.
// It always returns len(p), nil. The ring does not retain p.
func (r *TypedRingFixed[T]) Write(p []T) (int, error) {
	n := len(p)
	r.written += int64(n)
	size := len(r.data)
	if size == 0 {
		return n, nil
	}
	if len(p) > size {
		p = p[len(p)-size:]
	}
	copied := copy(r.data[r.writeCursor:], p)
	copy(r.data, p[copied:])
	r.writeCursor += len(p)
	if r.writeCursor >= size {
		r.writeCursor -= size
	}
	return n, nil
}

// Slice returns the elements held, oldest first, or nil if nothing has been
// written since creation or the last Reset. While the ring has not wrapped
// around, and when it wrapped exactly at the end of its storage, the result
// aliases the ring's storage: the caller must not modify it, and a later
// Write or Reset may change it. Otherwise it is a new slice.
func (r *TypedRingFixed[T]) Slice() []T {
	if r.written == 0 {
		return nil
	}
	size := len(r.data)
	if r.written < int64(size) {
		return r.data[:r.writeCursor]
	}
	if r.writeCursor == 0 {
		return r.data
	}
	out := make([]T, size)
	n := copy(out, r.data[r.writeCursor:])
	copy(out[n:], r.data[:r.writeCursor])
	return out
}

// Size returns the maximum number of elements the ring keeps.
func (r *TypedRingFixed[T]) Size() int {
	return len(r.data)
}

// Len returns the number of elements held: the total written, up to Size.
func (r *TypedRingFixed[T]) Len() int {
	return int(min(r.written, int64(len(r.data))))
}

// TotalWritten returns the number of elements written since creation or the
// last Reset, including those that have been overwritten.
func (r *TypedRingFixed[T]) TotalWritten() int64 {
	return r.written
}

// Reset empties the ring and sets TotalWritten back to 0. The storage is
// kept, and cleared so that it no longer references old elements.
func (r *TypedRingFixed[T]) Reset() {
	clear(r.data)
	r.writeCursor = 0
	r.written = 0
}
