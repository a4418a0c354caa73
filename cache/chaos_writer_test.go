package cache

import (
	"fmt"
	"math/rand/v2"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// chaosFinalizer is the finalizer the chaos writer puts on some objects.
const chaosFinalizer = "chaos.informer-go.dev/hold"

// chaosNamespaces are the namespaces of the chaos writer's objects.
var chaosNamespaces = []string{"ns-a", "ns-b"}

// chaosColors are the values of the "color" label; an informer with a label
// selector watches the red objects, and updates move objects in and out.
var chaosColors = []string{"red", "blue"}

// chaosWriter applies random writes to the server, as controllers and users
// would: creates, updates (stale ones that conflict, no-ops), deletes of
// objects with and without finalizers, removals of finalizers that complete
// a deletion, and names that are deleted and created again at once. It uses
// a small pool of names so that names come back. Only the goroutine running
// the schedule uses it.
type chaosWriter struct {
	srv *fakeServer
	rng *rand.Rand
	// names is the pool; seen holds the last chaosWriterMemory states
	// written, for stale updates, the oldest at next.
	names []metav1.ObjectMeta
	seen  []*metav1.PartialObjectMetadata
	next  int
	// counts of the writes by kind, for the run's statistics.
	counts map[string]int
}

func newChaosWriter(srv *fakeServer, rng *rand.Rand, poolSize int) *chaosWriter {
	w := &chaosWriter{srv: srv, rng: rng, counts: map[string]int{}}
	for i := range poolSize {
		w.names = append(w.names, metav1.ObjectMeta{Namespace: chaosNamespaces[i%len(chaosNamespaces)], Name: fmt.Sprintf("obj-%02d", i)})
	}
	return w
}

// write applies one random write. An error is a bug of the fake server or of
// the writer: the writer only makes writes whose outcome it knows.
func (w *chaosWriter) write() error {
	name := w.names[w.rng.IntN(len(w.names))]
	cur, err := w.srv.Get(name.Namespace, name.Name)
	if apierrors.IsNotFound(err) {
		return w.create(name)
	}
	if err != nil {
		return err
	}
	switch p := w.rng.IntN(100); {
	case cur.DeletionTimestamp != nil && p < 50:
		// Complete the deletion.
		cur.Finalizers = nil
		return w.do("finalize", cur)
	case p < 45:
		next := cur.DeepCopy()
		if w.rng.IntN(2) == 0 {
			next.Labels["color"] = chaosColors[w.rng.IntN(len(chaosColors))]
		} else {
			next.Labels["gen"] = fmt.Sprint(w.rng.Int32())
		}
		if w.rng.IntN(2) == 0 {
			next.ResourceVersion = "" // unconditional
		}
		return w.do("update", next)
	case p < 55:
		// An update that changes nothing writes nothing.
		return w.do("no-op update", cur)
	case p < 65 && len(w.seen) > 0:
		// An update from a recent state of any object, perhaps of an
		// earlier object of the same name: a conflict, or a 404 if the
		// name is gone, unless the object has not changed since (then it
		// is an update).
		stale := w.seen[w.rng.IntN(len(w.seen))].DeepCopy()
		stale.Labels["gen"] = fmt.Sprint(w.rng.Int32())
		_, err := w.srv.Update(stale)
		switch {
		case apierrors.IsConflict(err), apierrors.IsNotFound(err):
			w.counts["stale update"]++
			return nil
		case err != nil:
			return fmt.Errorf("stale update of %s/%s: %w", stale.Namespace, stale.Name, err)
		}
		w.counts["update"]++
		return nil
	case p < 85:
		if _, err := w.srv.Delete(cur.Namespace, cur.Name); err != nil {
			return fmt.Errorf("delete %s/%s: %w", cur.Namespace, cur.Name, err)
		}
		w.counts["delete"]++
		if len(cur.Finalizers) == 0 && w.rng.IntN(3) == 0 {
			// The same name again, with a new uid.
			return w.create(name)
		}
		return nil
	default:
		next := cur.DeepCopy()
		if len(next.Finalizers) == 0 {
			next.Finalizers = []string{chaosFinalizer}
		} else if next.DeletionTimestamp == nil {
			next.Finalizers = nil
		}
		return w.do("update", next)
	}
}

// create creates name with random labels, and a finalizer one time in four.
func (w *chaosWriter) create(name metav1.ObjectMeta) error {
	obj := &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: name.Namespace, Name: name.Name,
			Labels: map[string]string{"color": chaosColors[w.rng.IntN(len(chaosColors))], "gen": "0"},
		},
	}
	if w.rng.IntN(4) == 0 {
		obj.Finalizers = []string{chaosFinalizer}
	}
	created, err := w.srv.Create(obj)
	if err != nil {
		return fmt.Errorf("create %s/%s: %w", name.Namespace, name.Name, err)
	}
	w.counts["create"]++
	w.remember(created)
	return nil
}

// do applies an update of kind.
func (w *chaosWriter) do(kind string, obj *metav1.PartialObjectMetadata) error {
	updated, err := w.srv.Update(obj)
	if err != nil {
		return fmt.Errorf("%s of %s/%s: %w", kind, obj.Namespace, obj.Name, err)
	}
	w.counts[kind]++
	w.remember(updated)
	return nil
}

// chaosWriterMemory is how many written states the writer remembers for
// stale updates: a fixed number, so that the soak test's heap stays flat.
const chaosWriterMemory = 64

// remember keeps obj as a state for stale updates, in place of the oldest
// once chaosWriterMemory are kept.
func (w *chaosWriter) remember(obj *metav1.PartialObjectMetadata) {
	if obj.Labels == nil {
		obj.Labels = map[string]string{}
	}
	if len(w.seen) < chaosWriterMemory {
		w.seen = append(w.seen, obj)
		return
	}
	w.seen[w.next] = obj
	w.next = (w.next + 1) % chaosWriterMemory
}
