package cache

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// modelState is what the queue models share: the consumer's store, its
// failing lookups and the first batch.
type modelState struct {
	known   map[string]any  // the consumer's store; nil when the queue has no known objects
	failing map[string]bool // known keys whose lookup fails

	populated bool
	initial   int // first-batch items not yet processed
	closed    bool
}

func (m *modelState) synced() bool { return m.populated && m.initial == 0 }

// newModelKnown returns the known objects of a model run, in the model and
// for the queue: the consumer may know objects before the first Replace,
// those of modelNames whose bits (3 to 6) cfg sets.
func newModelKnown(cfg byte) (map[string]any, *stubKnownObjects) {
	model, known := map[string]any{}, newStubKnownObjects()
	for i, name := range modelNames {
		if cfg&(8<<i) != 0 {
			model[qkey(name)] = qobj(name, "0")
			known.set(qkey(name), qobj(name, "0"))
		}
	}
	return model, known
}

// modelListKeys returns the keys of the listed objects and the objects
// transformed with tf, or the first error, as a Replace prepares a list.
func modelListKeys(list []any, tf func(any) (any, error)) (keys []string, objs []any, err error) {
	keys, objs = make([]string, 0, len(list)), make([]any, 0, len(list))
	for _, obj := range list {
		key, err := MetaNamespaceKeyFunc(obj)
		if err != nil {
			return nil, nil, err
		}
		t, err := tf(obj)
		if err != nil {
			return nil, nil, err
		}
		keys, objs = append(keys, key), append(objs, t)
	}
	return keys, objs, nil
}

// queueModel is the documented behaviour of a queue, written as plainly as
// possible; runQueueModel drives it next to the queue.
type queueModel interface {
	state() *modelState
	// write, replace, resync and bookmark do what the queue's Add, Update
	// and Delete (write), Replace, Resync and Bookmark do; write and
	// replace return the error the queue must return.
	write(t DeltaType, obj any) error
	replace(list []any, rv string) error
	resync()
	bookmark(rv string)
	// empty reports whether a Pop would block.
	empty() bool
}

// modelRun is a queue and its model, as runQueueModel drives them.
type modelRun struct {
	queue Queue
	model queueModel
	known *stubKnownObjects // the queue's known objects; nil without
	// pop pops the queue once and fails unless it popped what the model
	// pops, or, when the model is empty, unless it is empty too (and
	// returns ErrFIFOClosed once closed). kind, 0 to 2, says how to pop:
	// 0 with Pop, the others as the queue can (a batch).
	pop func(step int, kind byte)
	// beforeLookupChange, if set, is called before a known key's lookup
	// starts or stops failing.
	beforeLookupChange func()
	// finish, if set, pops what the queue holds once the model is empty
	// and the queue closed, before the last pop.
	finish func()
}

// newModelRun builds the queue of a model run, and its model, from a
// configuration byte.
type newModelRun func(t *testing.T, cfg byte) modelRun

// queueModels are the queues with a model, each tested by TestQueueModels
// and fuzzed by its Fuzz target.
var queueModels = []struct {
	name string
	new  newModelRun
}{
	{"DeltaFIFO", newDeltaFIFOModelRun},
	{"RealFIFO", newRealFIFOModelRun},
}

// runQueueModel drives a queue and its model with the operations encoded in
// data (a configuration byte, then pairs of an operation and its argument)
// and fails on the first difference: of an error, of HasSynced, or of what a
// pop hands out.
func runQueueModel(t *testing.T, data []byte, newRun newModelRun) {
	r := &opReader{data: data}
	run := newRun(t, r.next())
	q, m := run.queue, run.model
	st := m.state()
	check := func(step int, what string, gotErr, wantErr error) {
		t.Helper()
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("step %d %s: error %v, model says %v", step, what, gotErr, wantErr)
		}
		if got, want := q.HasSynced(), st.synced(); got != want {
			t.Fatalf("step %d %s: HasSynced() = %v, model says %v", step, what, got, want)
		}
	}
	rv := 0
	for step := 0; r.more(); step++ {
		rv++
		op, arg := r.next(), r.next()
		name := modelNames[int(arg)%len(modelNames)]
		obj := qobj(name, strconv.Itoa(rv))
		switch op % 13 {
		case 0:
			check(step, "Add", q.Add(obj), m.write(Added, obj))
		case 1:
			check(step, "Update", q.Update(obj), m.write(Updated, obj))
		case 2:
			check(step, "Delete", q.Delete(obj), m.write(Deleted, obj))
		case 3:
			tomb := DeletedFinalStateUnknown{Key: qkey(name), Obj: obj}
			check(step, "Delete(tombstone)", q.Delete(tomb), m.write(Deleted, tomb))
		case 4:
			list := modelList(arg, rv)
			check(step, "Replace", q.Replace(list, strconv.Itoa(rv)), m.replace(list, strconv.Itoa(rv)))
		case 5:
			m.resync()
			check(step, "Resync", q.Resync(), nil)
		case 6:
			if b, ok := q.(ReflectorBookmarkStore); ok {
				m.bookmark(strconv.Itoa(rv))
				check(step, "Bookmark", b.Bookmark(strconv.Itoa(rv)), nil)
			}
		case 7, 8, 9:
			run.pop(step, op%3)
		case 10:
			q.Close()
			st.closed = true
			check(step, "Close", nil, nil)
		case 11:
			bad := []any{"junk", nil, qobj("bad", strconv.Itoa(rv))}[int(arg)%3]
			check(step, "Add(bad)", q.Add(bad), m.write(Added, bad))
		case 12:
			if run.known == nil {
				continue
			}
			if run.beforeLookupChange != nil {
				run.beforeLookupChange()
			}
			key := qkey(name)
			st.failing[key] = !st.failing[key]
			run.known.setFailing(key, st.failing[key])
		}
	}
	q.Close()
	st.closed = true
	for step := 0; !m.empty(); step++ {
		run.pop(1000+step, byte(step%3))
	}
	if run.finish != nil {
		run.finish()
	}
	run.pop(2000, 0) // closed and empty
}

// TestQueueModels runs random operation sequences against every queue and
// its model.
func TestQueueModels(t *testing.T) {
	for i, qm := range queueModels {
		t.Run(qm.name, func(t *testing.T) {
			for seed := range uint64(300) {
				r := rand.New(rand.NewPCG(seed, uint64(2+i)))
				data := make([]byte, 1+2*r.IntN(150))
				for i := range data {
					data[i] = byte(r.Uint32())
				}
				t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) {
					runQueueModel(t, data, qm.new)
				})
			}
		})
	}
}

// addModelSeeds adds the seeds every queue's fuzz target starts from: a
// configuration byte (every bit set, then none), then writes, a Replace and
// the three kinds of pop.
func addModelSeeds(f *testing.F) {
	for _, cfg := range []byte{0, 0x7f, 0xff} {
		f.Add([]byte{cfg, 0, 0, 1, 1, 7, 0})
		f.Add([]byte{cfg, 4, 0x3f, 2, 1, 8, 0, 4, 0, 7, 0, 9, 0})
		f.Add([]byte{cfg, 4, 0x1f, 12, 0, 5, 0, 6, 0, 9, 0, 3, 2, 10, 0, 7, 0})
	}
}

func FuzzDeltaFIFO(f *testing.F) {
	addModelSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { runQueueModel(t, data, newDeltaFIFOModelRun) })
}

func FuzzRealFIFO(f *testing.F) {
	addModelSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { runQueueModel(t, data, newRealFIFOModelRun) })
}
