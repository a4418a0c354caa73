package buffer

// defaultRingSize is the capacity a growing ring allocates when it is written
// to with no storage at all.
const defaultRingSize = 16

// RingGrowingOptions configures [NewTypedRingGrowing].
type RingGrowingOptions struct {
	// InitialSize is the number of slots allocated up front. Zero (or a
	// negative value, which is treated as zero) allocates nothing until the
	// first write.
	InitialSize int
}

// RingGrowing is a [TypedRingGrowing] holding values of any type.
//
// Deprecated: Use TypedRingGrowing[any] instead.
type RingGrowing = TypedRingGrowing[any]

// NewRingGrowing returns an empty [RingGrowing] with initialSize
// pre-allocated slots; a negative initialSize is treated as zero.
//
// Deprecated: Use NewTypedRingGrowing[any] instead.
func NewRingGrowing(initialSize int) *RingGrowing {
	return NewTypedRingGrowing[any](RingGrowingOptions{InitialSize: initialSize})
}

// TypedRingGrowing is an unbounded first-in first-out queue of T stored in a
// circular slice. When a write finds it full it doubles its capacity (or
// allocates 16 slots if it had none); it never shrinks (see [Ring] for a ring
// that does). A read resets the slot it consumed to the zero value of T, so
// the ring does not keep consumed elements reachable.
//
// The zero value is an empty ring with capacity 0, ready to use. A
// TypedRingGrowing is not safe for concurrent use.
type TypedRingGrowing[T any] struct {
	// data is the storage; len(data) is the capacity. Slots outside the
	// readable window hold the zero value of T.
	data []T
	// beg is the index in data of the oldest element; 0 <= beg < len(data)
	// whenever len(data) > 0.
	beg int
	// readable is the number of elements held; 0 <= readable <= len(data).
	readable int
}

// NewTypedRingGrowing returns an empty ring with opts.InitialSize
// pre-allocated slots; a negative size is treated as zero.
func NewTypedRingGrowing[T any](opts RingGrowingOptions) *TypedRingGrowing[T] {
	return &TypedRingGrowing[T]{data: make([]T, max(opts.InitialSize, 0))}
}

// ReadOne removes and returns the oldest element. If the ring is empty it
// returns the zero value of T and false.
func (r *TypedRingGrowing[T]) ReadOne() (data T, ok bool) {
	if r.readable == 0 {
		return data, false
	}
	slot := &r.data[r.beg]
	data = *slot
	var zero T
	*slot = zero // do not keep the consumed element reachable
	r.beg++
	if r.beg == len(r.data) {
		r.beg = 0
	}
	r.readable--
	return data, true
}

// WriteOne appends data as the newest element, doubling the capacity first if
// the ring is full.
func (r *TypedRingGrowing[T]) WriteOne(data T) {
	if r.readable == len(r.data) {
		r.grow()
	}
	i := r.beg + r.readable
	if i >= len(r.data) {
		i -= len(r.data)
	}
	r.data[i] = data
	r.readable++
}

// grow moves the elements, oldest first, to the start of a new slice twice as
// large (defaultRingSize if the ring had no storage).
func (r *TypedRingGrowing[T]) grow() {
	size := 2 * len(r.data)
	if size == 0 {
		size = defaultRingSize
	}
	data := make([]T, size)
	n := copy(data, r.data[r.beg:min(r.beg+r.readable, len(r.data))])
	copy(data[n:], r.data[:r.readable-n])
	r.data = data
	r.beg = 0
}

// Len returns the number of elements the ring holds.
func (r *TypedRingGrowing[T]) Len() int {
	return r.readable
}

// Cap returns the number of elements the ring can hold before it grows.
func (r *TypedRingGrowing[T]) Cap() int {
	return len(r.data)
}
