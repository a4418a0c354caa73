package compare

import (
	"fmt"
	goruntime "runtime"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/internal/benchkit"
)

// listerWatcher is what the informers of both libraries list and watch;
// they find the context variants and the opt-out of streaming lists on the
// value itself.
type listerWatcher interface {
	List(metav1.ListOptions) (runtime.Object, error)
	Watch(metav1.ListOptions) (watch.Interface, error)
}

// input is the objects of a workload and how the sources of its runs serve
// them.
type input struct {
	kind benchkit.Kind
	// wire is nil for an in-memory kind, whose source lists a list of
	// objects built for the run. For a kind of k8s.io/api, it is the
	// serialization the source serves the list and the updates in,
	// decoding them on every List and every event.
	wire *wire
	// ups holds the updates of the in-memory kinds for the whole Run.
	ups updatesCache
	// encoded holds what the runs of a workload of an API kind share in a
	// round; nil for an in-memory kind.
	encoded *encodedInputs
}

// memoryInput returns the input of an in-memory kind.
func memoryInput(kind benchkit.Kind, ups updatesCache) input {
	return input{kind: kind, ups: ups}
}

// wireInput returns the input of a workload of an API kind, served on w.
func wireInput(kind benchkit.Kind, w *wire) input {
	return input{kind: kind, wire: w, encoded: &encodedInputs{}}
}

// endRound drops what the runs of the input's workload shared in a round,
// so that it does not weigh on the heap of the workloads that follow.
func (in input) endRound() {
	if in.encoded != nil {
		*in.encoded = encodedInputs{}
	}
}

// feed is the source of one run.
type feed struct {
	// src is the scripted source the workload sends watch events into;
	// lw is what the informer lists and watches (src itself, or a
	// wireSource around it).
	src *benchkit.Source
	lw  listerWatcher
	// objectHeap is, for a feed that decodes, the heap of one decoded
	// object as an informer holds it (the same for every run); 0 for a
	// feed of in-memory objects, whose heap the caller measures.
	objectHeap float64
}

// newFeed returns the source of a run with n objects: for an in-memory
// kind a source of a list built for it alone, for an API kind a source of
// the serialized list (built once for the runs of a round).
func (in input) newFeed(n int) (feed, error) {
	if in.wire == nil {
		src := benchkit.NewSource(in.kind.List(n))
		return feed{src: src, lw: src}, nil
	}
	if err := in.prepare(n); err != nil {
		return feed{}, err
	}
	ws := newWireSource(in.wire, in.encoded.list)
	return feed{src: ws.Source, lw: ws, objectHeap: in.encoded.objectHeap}, nil
}

// prepare builds what the runs of the input's workload share, so that
// what a run measures next does not count it: for an API kind the
// serialized list of n objects (and the heap of one decoded object); for
// an in-memory kind nothing.
func (in input) prepare(n int) error {
	e := in.encoded
	if e == nil || e.list != nil && e.n == n {
		return nil
	}
	*e = encodedInputs{n: n}
	data, err := in.wire.encode(in.kind.List(n))
	if err != nil {
		return fmt.Errorf("encode a list of %d objects of kind %s: %w", n, in.kind.Name, err)
	}
	// An informer holds each listed object as the reflector copies it out
	// of the decoded list. Two collections before measuring: the encoder's
	// sync.Pool buffers (JSON's hold the whole list) survive the first in
	// the pools' victim cache.
	goruntime.GC()
	before := benchkit.LiveHeap()
	list, err := in.wire.decode(data)
	if err != nil {
		return fmt.Errorf("decode a list of %d objects of kind %s: %w", n, in.kind.Name, err)
	}
	objs, err := meta.ExtractListWithAlloc(list)
	if err != nil {
		return err
	}
	after := benchkit.LiveHeap()
	goruntime.KeepAlive(objs) // len and cap alone would not keep the objects alive
	if len(objs) != n {
		return fmt.Errorf("a list of %d objects decoded into %d", n, len(objs))
	}
	const sliceItem = 16 // the bytes of an interface value in objs
	e.objectHeap = (float64(after) - float64(before) - float64(sliceItem*cap(objs))) / float64(n)
	e.list = data
	return nil
}

// updates returns 2n updates over the first n objects of the kind, two new
// states of each: the same objects for every library and round of an
// in-memory kind; for an API kind the same bytes (*runtime.Unknown) for the
// runs of a round, which the source decodes as it sends them.
func (in input) updates(n int) ([]runtime.Object, error) {
	if in.wire == nil {
		return in.ups.get(in.kind, n), nil
	}
	e := in.encoded
	if e.updates != nil && e.updatesN == n {
		return e.updates, nil
	}
	objs := in.kind.Updates(n, 2*n)
	ups := make([]runtime.Object, len(objs))
	for k, obj := range objs {
		u, err := in.wire.encoded(obj)
		if err != nil {
			return nil, fmt.Errorf("encode an update of kind %s: %w", in.kind.Name, err)
		}
		ups[k] = u
	}
	e.updates, e.updatesN = ups, n
	return ups, nil
}

// encodedInputs are the serialized inputs of a workload of an API kind.
type encodedInputs struct {
	// list is the serialized list of n objects, objectHeap the heap of
	// one of them decoded.
	n          int
	list       []byte
	objectHeap float64
	// updates are the serialized updates over updatesN objects.
	updatesN int
	updates  []runtime.Object
}

// updatesCache builds the watch updates of each in-memory kind once, so
// that every library and round is fed the same objects.
type updatesCache map[string][]runtime.Object

// get returns 2n updates over the first n objects of kind: two new states
// of each.
func (c updatesCache) get(kind benchkit.Kind, n int) []runtime.Object {
	key := kind.Name + "/" + strconv.Itoa(n)
	if ups, ok := c[key]; ok {
		return ups
	}
	ups := kind.Updates(n, 2*n)
	c[key] = ups
	return ups
}
