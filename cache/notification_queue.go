package cache

import "sync"

// notificationKind says which [ResourceEventHandler] method a notification
// calls.
type notificationKind uint8

const (
	addNotification notificationKind = iota + 1
	updateNotification
	deleteNotification
)

// notification is one pending handler call. It is a plain value so that
// queueing it for a listener does not allocate.
type notification struct {
	kind notificationKind
	// isInInitialList is the OnAdd argument of an addNotification.
	isInInitialList bool
	// oldObj is the old state of an update and the object of a delete.
	oldObj any
	// newObj is the object of an add and the new state of an update.
	newObj any
}

// isInitialAdd reports whether n counts towards its listener's sync.
func (n *notification) isInitialAdd() bool {
	return n.kind == addNotification && n.isInInitialList
}

// notificationQueue is a listener's unbounded first-in first-out buffer of
// notifications: a chain of fixed-size chunks. A write appends to the last
// chunk, taking a new one when it is full; a read takes from the first and
// gives the chunk back once read through. Unlike a growing ring it never
// copies what it holds, and its memory follows the backlog: a burst takes
// chunks and gives them back as the handler catches up, so nothing stays
// allocated for a burst that has passed. Chunks read through while the queue
// is short go to chunkPool, for the next burst of any listener, unless they
// held initial-list adds: that burst comes once.
//
// The zero value is an empty queue. It is not safe for concurrent use.
type notificationQueue struct {
	head, tail *notificationChunk
	// r is the position of the next read in head, w of the next write in
	// tail.
	r, w int
	// n counts the notifications held, chunks the chunks.
	n, chunks int
}

// notificationChunkSize is the number of notifications in a chunk: about 5
// KiB.
const notificationChunkSize = 128

// recycledBelowChunks is the most chunks a queue may still hold for a chunk
// it has read through to go back to chunkPool (8,192 notifications, 320
// KiB): the chunks of a longer backlog are left to the garbage collector
// instead, so that the pool does not grow to the size of the largest burst.
const recycledBelowChunks = 64

type notificationChunk struct {
	items [notificationChunkSize]notification
	next  *notificationChunk
	// initial is set when the chunk held an initial-list add.
	initial bool
}

// chunkPool holds empty chunks for reuse.
var chunkPool = sync.Pool{New: func() any { return new(notificationChunk) }}

// Len returns the number of notifications held.
func (q *notificationQueue) Len() int { return q.n }

// WriteOne appends n.
func (q *notificationQueue) WriteOne(n notification) {
	switch {
	case q.tail == nil:
		q.head = chunkPool.Get().(*notificationChunk)
		q.tail, q.r, q.w, q.chunks = q.head, 0, 0, 1
	case q.w == notificationChunkSize:
		c := chunkPool.Get().(*notificationChunk)
		q.tail.next, q.tail, q.w = c, c, 0
		q.chunks++
	}
	q.tail.items[q.w] = n
	q.tail.initial = q.tail.initial || n.isInitialAdd()
	q.w++
	q.n++
}

// ReadOne removes and returns the oldest notification; false when empty.
func (q *notificationQueue) ReadOne() (notification, bool) {
	if q.n == 0 {
		return notification{}, false
	}
	if q.r == notificationChunkSize {
		done := q.head
		q.head, q.r = done.next, 0
		q.chunks--
		if q.chunks < recycledBelowChunks && !done.initial {
			done.next = nil
			chunkPool.Put(done) // its items were cleared as they were read
		}
	}
	slot := &q.head.items[q.r]
	n := *slot
	*slot = notification{} // let the objects go
	q.r++
	q.n--
	if q.n == 0 {
		// head is tail: start it over rather than take a new chunk.
		q.r, q.w = 0, 0
		q.head.initial = false
	}
	return n, true
}
