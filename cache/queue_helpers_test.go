package cache

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

// Shared helpers of the queue tests (FIFO, DeltaFIFO, RealFIFO, Heap).

// qobj returns an object "ns/<name>" at resource version rv.
func qobj(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// qkey is the key of qobj(name, ...).
func qkey(name string) string { return "ns/" + name }

// errBadTransform is what failingTransform returns.
var errBadTransform = errors.New("transform refused")

// markTransform is an idempotent transformer: it returns a copy of the object
// labelled transformed=true. It refuses objects whose name starts with "bad".
func markTransform(obj any) (any, error) {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj, nil
	}
	if strings.HasPrefix(m.Name, "bad") {
		return nil, errBadTransform
	}
	out := m.DeepCopy()
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	out.Labels["transformed"] = "true"
	return out, nil
}

// stubKnownObjects is a map-based KeyListerGetter standing in for the
// consumer's store. ListKeys returns sorted keys, so tests are deterministic.
// Lookups of keys in failing return an error; phantom keys are listed but
// not found. Safe for concurrent use.
type stubKnownObjects struct {
	mu      sync.Mutex
	objs    map[string]any
	failing map[string]bool
	phantom []string
}

var errStubLookup = errors.New("stub lookup failed")

func newStubKnownObjects(objs ...*metav1.PartialObjectMetadata) *stubKnownObjects {
	s := &stubKnownObjects{objs: map[string]any{}, failing: map[string]bool{}}
	for _, o := range objs {
		s.objs[qkey(o.Name)] = o
	}
	return s
}

func (s *stubKnownObjects) ListKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(s.objs)), s.phantom...)))
}

func (s *stubKnownObjects) GetByKey(key string) (any, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failing[key] {
		return nil, false, errStubLookup
	}
	obj, ok := s.objs[key]
	return obj, ok, nil
}

// len counts the objects, as the stores of this package can.
func (s *stubKnownObjects) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.objs)
}

func (s *stubKnownObjects) set(key string, obj any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.objs[key] = obj
}

func (s *stubKnownObjects) remove(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.objs, key)
}

func (s *stubKnownObjects) setFailing(key string, failing bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failing[key] = failing
}

// apply writes popped deltas into the stub the way an informer writes them
// into its indexer.
func (s *stubKnownObjects) apply(deltas []Delta) {
	for _, d := range deltas {
		key, err := DeletionHandlingMetaNamespaceKeyFunc(d.Object)
		if err != nil {
			continue
		}
		switch d.Type {
		case Added, Updated, Replaced, Sync:
			s.set(key, d.Object)
		case Deleted:
			s.remove(key)
		}
	}
}

// popResult is what one Pop produced.
type popResult struct {
	Item            any
	IsInInitialList bool
}

// popNow pops one item, failing the test on error, and records the flag.
func popNow(t testing.TB, q Queue) popResult {
	t.Helper()
	var got popResult
	item, err := q.Pop(func(obj any, isInInitialList bool) error {
		got = popResult{Item: obj, IsInInitialList: isInInitialList}
		return nil
	})
	if err != nil {
		t.Fatalf("Pop: %v", err)
	}
	if diff := cmp.Diff(got.Item, item); diff != "" {
		t.Fatalf("Pop returned something else than it processed (-processed +returned):\n%s", diff)
	}
	return got
}

// bufferedLogger returns a logger whose output is kept for logOutput.
func bufferedLogger(t *testing.T) klog.Logger {
	return ktesting.NewLogger(t, ktesting.NewConfig(ktesting.BufferLogs(true)))
}

// logOutput returns what was logged to a bufferedLogger.
func logOutput(logger klog.Logger) string {
	return logger.GetSink().(ktesting.Underlier).GetBuffer().String()
}

// fakeFIFOMetrics records the queue metrics of one identity.
type fakeFIFOMetrics struct {
	mu        sync.Mutex
	queued    []float64
	latencies []float64
}

type fakeGauge struct{ m *fakeFIFOMetrics }

func (g fakeGauge) Set(v float64) {
	g.m.mu.Lock()
	defer g.m.mu.Unlock()
	g.m.queued = append(g.m.queued, v)
}

type fakeHistogram struct{ m *fakeFIFOMetrics }

func (h fakeHistogram) Observe(v float64) {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	h.m.latencies = append(h.m.latencies, v)
}

func (m *fakeFIFOMetrics) NewQueuedItemMetric(InformerNameAndResource) GaugeMetric {
	return fakeGauge{m}
}

func (m *fakeFIFOMetrics) NewProcessingLatencyMetric(InformerNameAndResource) HistogramMetric {
	return fakeHistogram{m}
}

func (m *fakeFIFOMetrics) NewStoreResourceVersionMetric(InformerNameAndResource) GaugeMetric {
	return noopMetric{}
}

func (m *fakeFIFOMetrics) snapshot() (queued, latencies []float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.queued), slices.Clone(m.latencies)
}

// opReader hands out the bytes of a fuzz input or random sequence, then zeros.
type opReader struct {
	data []byte
	pos  int
}

func (r *opReader) more() bool { return r.pos < len(r.data) }

func (r *opReader) next() byte {
	if r.pos >= len(r.data) {
		return 0
	}
	b := r.data[r.pos]
	r.pos++
	return b
}

// modelNames are the object names model tests use; few, so keys collide.
var modelNames = []string{"a", "b", "c", "d"}

// modelList decodes a Replace list: a subset of modelNames (one bit each), at
// resource version rv, optionally with the first object listed twice and
// optionally with an object the transformer refuses.
func modelList(b byte, rv int) []any {
	var list []any
	for i, name := range modelNames {
		if b&(1<<i) != 0 {
			list = append(list, qobj(name, strconv.Itoa(rv)))
		}
	}
	if b&0x10 != 0 && len(list) > 0 {
		first := list[0].(*metav1.PartialObjectMetadata)
		list = append(list, qobj(first.Name, strconv.Itoa(rv)+"-dup"))
	}
	if b&0x20 != 0 {
		list = append(list, qobj("bad", strconv.Itoa(rv)))
	}
	return list
}

// modelApply writes popped deltas into a model of the consumer's store.
func modelApply(known map[string]any, deltas []Delta) {
	for _, d := range deltas {
		key, err := DeletionHandlingMetaNamespaceKeyFunc(d.Object)
		if err != nil {
			continue
		}
		switch d.Type {
		case Added, Updated, Replaced, Sync:
			known[key] = d.Object
		case Deleted:
			delete(known, key)
		}
	}
}

// queueCase is a case of the table tests of a queue of type Q, built with
// options O (TestDeltaFIFODeltas, TestRealFIFODeltas): what is written to
// it, and what draining it pops (W).
type queueCase[Q Queue, O, W any] struct {
	name     string
	known    []*metav1.PartialObjectMetadata // nil: no known objects
	failing  []string                        // known keys whose lookup fails
	phantom  []string                        // keys listed but not found
	opts     O
	ops      func(f Q) error
	want     W
	wantErr  error // errors.Is
	keyErr   bool  // want a KeyError
	wantSync bool  // HasSynced before draining
}

// runQueueCases runs every case on a queue that newQueue builds from the
// case's options and known objects (nil when it has none), and drains it with
// drain.
func runQueueCases[Q Queue, O, W any](t *testing.T, cases []queueCase[Q, O, W], newQueue func(opts O, known KeyListerGetter) Q, drain func(testing.TB, Q) W) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var known KeyListerGetter // nil, not a nil *stubKnownObjects, without known objects
			if tc.known != nil {
				stub := newStubKnownObjects(tc.known...)
				for _, k := range tc.failing {
					stub.setFailing(k, true)
				}
				stub.phantom = tc.phantom
				known = stub
			}
			f := newQueue(tc.opts, known)
			err := tc.ops(f)
			switch {
			case tc.keyErr:
				var keyErr KeyError
				if !errors.As(err, &keyErr) {
					t.Errorf("got error %v, want a KeyError", err)
				}
			case tc.wantErr != nil:
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("got error %v, want %v", err, tc.wantErr)
				}
			case err != nil:
				t.Fatalf("unexpected error: %v", err)
			}
			if got := f.HasSynced(); got != tc.wantSync {
				t.Errorf("HasSynced() = %v, want %v", got, tc.wantSync)
			}
			if diff := cmp.Diff(tc.want, drain(t, f)); diff != "" {
				t.Errorf("popped deltas (-want +got):\n%s", diff)
			}
		})
	}
}
