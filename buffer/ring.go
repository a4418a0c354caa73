package buffer

// RingOptions configures [NewRing]. Negative sizes are treated as zero.
type RingOptions struct {
	// InitialSize is the number of slots allocated up front.
	InitialSize int
	// NormalSize is the capacity the ring returns to once it has been
	// drained: when a read leaves the ring empty and its capacity is larger
	// than NormalSize, the storage is replaced by NormalSize fresh slots.
	// A ring that only ever holds up to NormalSize elements (and starts with
	// at most NormalSize slots) never allocates after warm-up.
	NormalSize int
}

// Ring is an unbounded first-in first-out queue of T that grows like
// [TypedRingGrowing] (doubling when full, 16 slots if it had none) and gives
// memory back after a burst: whenever [Ring.ReadOne] is called and leaves the
// ring empty while its capacity exceeds the normal size, the storage is
// replaced by a new slice of the normal size, so the large one can be
// collected. Reads reset consumed slots to the zero value of T.
//
// The zero value is an empty ring with initial and normal size 0, ready to
// use; note that a normal size of 0 makes every drain free the storage, so
// the next write allocates again. A Ring is not safe for concurrent use.
type Ring[T any] struct {
	growing TypedRingGrowing[T]
	// normalSize is the capacity kept when the ring drains; >= 0, read-only.
	normalSize int
}

// NewRing returns an empty ring with opts.InitialSize pre-allocated slots
// that shrinks back to opts.NormalSize slots whenever it drains.
func NewRing[T any](opts RingOptions) *Ring[T] {
	return &Ring[T]{
		growing:    TypedRingGrowing[T]{data: make([]T, max(opts.InitialSize, 0))},
		normalSize: max(opts.NormalSize, 0),
	}
}

// ReadOne removes and returns the oldest element; if the ring is empty it
// returns the zero value of T and false. Either way, if the ring is empty
// afterwards and its capacity exceeds the normal size, the storage is
// reallocated at the normal size.
func (r *Ring[T]) ReadOne() (data T, ok bool) {
	data, ok = r.growing.ReadOne()
	if r.growing.readable == 0 && len(r.growing.data) > r.normalSize {
		r.growing.data = make([]T, r.normalSize)
		r.growing.beg = 0
	}
	return data, ok
}

// WriteOne appends data as the newest element, doubling the capacity first if
// the ring is full.
func (r *Ring[T]) WriteOne(data T) {
	r.growing.WriteOne(data)
}

// Len returns the number of elements the ring holds.
func (r *Ring[T]) Len() int {
	return r.growing.Len()
}

// Cap returns the number of elements the ring can hold before it grows.
func (r *Ring[T]) Cap() int {
	return r.growing.Cap()
}
