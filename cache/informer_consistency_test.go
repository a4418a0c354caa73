package cache

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// sourceModel is a deterministic server-side history: a set of objects and
// the events that change it, each at the next resource version.
type sourceModel struct {
	rv    int
	objs  map[string]*metav1.PartialObjectMetadata
	names []string // keys of objs, for random picks
	next  int      // suffix of the next new object's name
	rng   *rand.Rand
}

func newSourceModel(initial int) *sourceModel {
	m := &sourceModel{objs: map[string]*metav1.PartialObjectMetadata{}, rng: rand.New(rand.NewPCG(1, 2))}
	for range initial {
		m.create()
	}
	return m
}

func (m *sourceModel) create() *metav1.PartialObjectMetadata {
	m.rv++
	name := fmt.Sprintf("obj-%06d", m.next)
	m.next++
	obj := pom(name, strconv.Itoa(m.rv))
	m.objs[name] = obj
	m.names = append(m.names, name)
	return obj
}

// event changes the model and returns the watch event reporting it: 30%
// creations, 50% updates, 20% deletions.
func (m *sourceModel) event() watch.Event {
	roll := m.rng.IntN(10)
	if roll < 3 || len(m.names) == 0 {
		return watch.Event{Type: watch.Added, Object: m.create()}
	}
	i := m.rng.IntN(len(m.names))
	name := m.names[i]
	m.rv++
	obj := pom(name, strconv.Itoa(m.rv))
	if roll < 8 {
		m.objs[name] = obj
		return watch.Event{Type: watch.Modified, Object: obj}
	}
	delete(m.objs, name)
	m.names[i] = m.names[len(m.names)-1]
	m.names = m.names[:len(m.names)-1]
	return watch.Event{Type: watch.Deleted, Object: obj}
}

func (m *sourceModel) events(n int) []watch.Event {
	out := make([]watch.Event, 0, n)
	for range n {
		out = append(out, m.event())
	}
	return out
}

// snapshot returns the objects in name order and the current resource
// version.
func (m *sourceModel) snapshot() ([]*metav1.PartialObjectMetadata, string) {
	out := make([]*metav1.PartialObjectMetadata, 0, len(m.objs))
	for _, obj := range m.objs {
		out = append(out, obj)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, strconv.Itoa(m.rv)
}

// contents describes the model like storeContents describes a store.
func (m *sourceModel) contents() []string {
	var out []string
	for _, obj := range m.objs {
		out = append(out, testObjString(obj))
	}
	sort.Strings(out)
	return out
}

// TestInformerConverges lists 10,000 objects in pages of 500, then streams
// 10,000 watch events interrupted by two expired watches (each followed by
// events the informer never sees before its relist), a dropped connection and
// a refused reconnection, and checks that the informer's indexer ends up
// exactly equal to the source, in both pipelines.
func TestInformerConverges(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(map[bool]string{false: "DeltaFIFO", true: "RealFIFO in order"}[inOrder], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := newSourceModel(10_000)
				var lists, watches []step
				var wantCalls []call

				// The initial list, in pages of 500 at one resource version.
				initial, rv := m.snapshot()
				for page := 0; page*500 < len(initial); page++ {
					cont := ""
					if (page+1)*500 < len(initial) {
						cont = strconv.Itoa(page + 1)
					}
					lists = append(lists, step{list: pomList(rv, cont, initial[page*500:min((page+1)*500, len(initial))]...)})
					if page == 0 {
						wantCalls = append(wantCalls, listCall("0", 500))
					} else {
						wantCalls = append(wantCalls, continueCall(strconv.Itoa(page), 500))
					}
				}
				delivered := 0
				deliver := func(n int) []watch.Event {
					delivered += n
					return m.events(n)
				}
				relist := func() {
					objs, rv := m.snapshot()
					lists = append(lists, step{list: pomList(rv, "", objs...)})
				}
				lastRV := func() string { return strconv.Itoa(m.rv) }

				// 3,000 events, then the watch expires; 200 more changes
				// happen before the relist.
				wantCalls = append(wantCalls, watchCall(rv))
				watches = append(watches, step{events: append(deliver(3000), errorEvent(errExpired))})
				// The first list came back in pages: relists keep
				// paginating (the server has no watch cache to spare).
				wantCalls = append(wantCalls, listCall(lastRV(), 500))
				m.events(200)
				relist()
				// 2,800 events, then the connection drops; reconnecting is
				// refused once.
				wantCalls = append(wantCalls, watchCall(lastRV()))
				watches = append(watches, step{events: deliver(2800), closeAtEnd: true})
				wantCalls = append(wantCalls, watchCall(lastRV()), watchCall(lastRV()))
				watches = append(watches, step{err: errConnRefused})
				// 2,000 events, then the watch is gone; 100 more changes.
				watches = append(watches, step{events: append(deliver(2000), errorEvent(errGone))})
				wantCalls = append(wantCalls, listCall(lastRV(), 500))
				m.events(100)
				relist()
				// The remaining events, then a normal close.
				wantCalls = append(wantCalls, watchCall(lastRV()))
				watches = append(watches, step{events: deliver(10_000 - delivered), closeAtEnd: true})
				wantCalls = append(wantCalls, watchCall(lastRV()))

				lw := newScriptedLW(lists, watches)
				lw.noWatchList = true
				indexer, ctrl := NewInformerWithOptions(InformerOptions{
					ListerWatcher: lw,
					ObjectType:    &metav1.PartialObjectMetadata{},
					Indexers:      Indexers{NamespaceIndex: MetaNamespaceIndexFunc},
					InOrder:       inOrder,
				})
				runController(t, ctrl, lw, func() {
					want := m.contents()
					got := storeContents(indexer)
					if !slices.Equal(want, got) {
						t.Errorf("indexer differs from the source (-want +got):\n%s", cmp.Diff(want, got))
					}
					byNamespace, err := indexer.(Indexer).ByIndex(NamespaceIndex, testNamespace)
					if err != nil || len(byNamespace) != len(want) {
						t.Errorf("namespace index holds %d objects (%v), want %d", len(byNamespace), err, len(want))
					}
				})
				if diff := cmp.Diff(wantCalls, callsOf(lw.recorded())); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
			})
		})
	}
}
