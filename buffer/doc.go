// Package buffer provides ring buffers: first-in first-out queues stored in a
// circular slice, so that steady-state writes and reads neither allocate nor
// move elements. It reimplements k8s.io/utils/buffer with the same exported
// API and behaviour.
//
// Three rings are offered:
//
//   - [TypedRingGrowing] (and its untyped alias [RingGrowing]) doubles its
//     storage whenever it is full and never gives memory back.
//   - [Ring] grows like [TypedRingGrowing] but, once a reader has drained it,
//     drops storage larger than its normal size, so a burst does not pin
//     memory for the lifetime of the ring.
//   - [TypedRingFixed] has a fixed size and overwrites its oldest elements;
//     it keeps the last N elements written (an [io.Writer] for T = byte).
//
// Read slots are reset to the zero value of T, so a ring never keeps a
// consumed element reachable. None of the rings is safe for concurrent use:
// callers that share one between goroutines guard it with their own lock.
package buffer
