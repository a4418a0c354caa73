package cache

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestNotificationQueueMatchesSlice runs random writes and reads against a
// slice, across chunk boundaries, checking order, length and the chunks
// held.
func TestNotificationQueueMatchesSlice(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxBurst int
	}{
		{name: "within a chunk", maxBurst: notificationChunkSize / 2},
		{name: "across chunks", maxBurst: 5 * notificationChunkSize},
		{name: "long backlogs", maxBurst: 3 * recycledBelowChunks * notificationChunkSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(tc.maxBurst)))
			var q notificationQueue
			var model []notification
			seq := 0
			for step := range 200 {
				for range r.IntN(tc.maxBurst) {
					n := notification{kind: addNotification, newObj: seq}
					seq++
					q.WriteOne(n)
					model = append(model, n)
				}
				for range r.IntN(tc.maxBurst + 1) {
					got, ok := q.ReadOne()
					if len(model) == 0 {
						if ok {
							t.Fatalf("step %d: read %v from an empty queue", step, got.newObj)
						}
						break
					}
					if !ok || got != model[0] {
						t.Fatalf("step %d: read %v, %v; want %v", step, got.newObj, ok, model[0].newObj)
					}
					model = model[1:]
				}
				if q.Len() != len(model) {
					t.Fatalf("step %d: Len() = %d, want %d", step, q.Len(), len(model))
				}
				// The first and last chunks may be partly used.
				wantChunks := (len(model) + notificationChunkSize - 1) / notificationChunkSize
				if q.chunks < wantChunks || q.chunks > wantChunks+1 {
					t.Fatalf("step %d: %d chunks for %d notifications, want %d or one more", step, q.chunks, len(model), wantChunks)
				}
			}
		})
	}
}

// TestNotificationQueueClearsReadSlots checks that a read slot no longer
// references its objects.
func TestNotificationQueueClearsReadSlots(t *testing.T) {
	var q notificationQueue
	for i := range notificationChunkSize + 3 {
		q.WriteOne(notification{kind: addNotification, newObj: fmt.Sprint(i)})
	}
	for range notificationChunkSize + 1 {
		q.ReadOne()
	}
	for i, n := range q.head.items[:q.r] {
		if n != (notification{}) {
			t.Errorf("slot %d still holds %v", i, n.newObj)
		}
	}
}
