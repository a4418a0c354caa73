package downtime

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/e2e/internal/objects"
)

// writer writes the changes of one downtime to the ConfigMaps of a
// namespace, one at a time, each chosen by a seeded random source from the
// objects that exist then: creates of new objects (and now and then of one
// deleted earlier in the downtime, under the same name), updates and
// deletes, a third of the updates and deletes aimed at objects already
// written in this downtime, so that some objects change several times.
type writer struct {
	client kubernetes.Interface
	ns     string
	seed   uint64
	rng    *rand.Rand

	live    []string       // the names on the server
	index   map[string]int // name → its position in live
	touched []string       // live names created or updated in this downtime
	deleted []string       // names deleted in this downtime and not created again
	created int            // objects created under new names so far
}

func newWriter(client kubernetes.Interface, ns string, server map[string]string, seed uint64) *writer {
	w := &writer{
		client: client,
		ns:     ns,
		seed:   seed,
		rng:    rand.New(rand.NewPCG(seed, 0x5eed)),
		index:  make(map[string]int, len(server)),
	}
	for _, name := range slices.Sorted(maps.Keys(server)) {
		w.addLive(name)
	}
	return w
}

// writeSpread writes n changes spread evenly over d, starting at once,
// and returns them in the order written once d has passed.
func (w *writer) writeSpread(ctx context.Context, n int, d time.Duration) ([]Change, error) {
	began := time.Now()
	changes := make([]Change, 0, n)
	for i := range n {
		if err := sleepUntil(ctx, began.Add(d*time.Duration(i)/time.Duration(n))); err != nil {
			return changes, err
		}
		c, err := w.writeOne(ctx, i)
		if err != nil {
			return changes, fmt.Errorf("change %d of %d: %w", i, n, err)
		}
		changes = append(changes, c)
	}
	return changes, sleepUntil(ctx, began.Add(d))
}

// writeOne makes change i.
func (w *writer) writeOne(ctx context.Context, i int) (Change, error) {
	cms := w.client.CoreV1().ConfigMaps(w.ns)
	roll := w.rng.IntN(100)
	switch {
	case roll < 33 || len(w.live) == 0:
		name := fmt.Sprintf("down-%d-%03d", w.seed, w.created)
		if roll < 3 && len(w.deleted) > 0 {
			name = w.deleted[w.rng.IntN(len(w.deleted))]
			w.deleted = slices.DeleteFunc(w.deleted, func(n string) bool { return n == name })
		} else {
			w.created++
		}
		cm := objects.ConfigMap(w.ns, 1_000_000+i)
		cm.Name = name
		created, err := cms.Create(ctx, cm, metav1.CreateOptions{})
		if err != nil {
			return Change{}, fmt.Errorf("create %s: %w", name, err)
		}
		w.addLive(name)
		w.touched = append(w.touched, name)
		return Change{Type: Add, Name: name, RV: created.ResourceVersion}, nil
	case roll < 70:
		name := w.pick()
		patch := fmt.Sprintf(`{"data":{"revision":"%d-%d"}}`, w.seed, i)
		updated, err := cms.Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		if err != nil {
			return Change{}, fmt.Errorf("update %s: %w", name, err)
		}
		if !slices.Contains(w.touched, name) {
			w.touched = append(w.touched, name)
		}
		return Change{Type: Update, Name: name, RV: updated.ResourceVersion}, nil
	default:
		name := w.pick()
		if err := cms.Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			return Change{}, fmt.Errorf("delete %s: %w", name, err)
		}
		w.removeLive(name)
		w.touched = slices.DeleteFunc(w.touched, func(n string) bool { return n == name })
		w.deleted = append(w.deleted, name)
		return Change{Type: Delete, Name: name}, nil
	}
}

// pick returns the name of a live object: one touched in this downtime
// three times in ten, when there is one.
func (w *writer) pick() string {
	if len(w.touched) > 0 && w.rng.IntN(10) < 3 {
		return w.touched[w.rng.IntN(len(w.touched))]
	}
	return w.live[w.rng.IntN(len(w.live))]
}

func (w *writer) addLive(name string) {
	w.index[name] = len(w.live)
	w.live = append(w.live, name)
}

func (w *writer) removeLive(name string) {
	i := w.index[name]
	last := w.live[len(w.live)-1]
	w.live[i], w.index[last] = last, i
	w.live = w.live[:len(w.live)-1]
	delete(w.index, name)
}

// apply returns state with changes applied, as the server holds it after
// them.
func apply(state map[string]string, changes []Change) map[string]string {
	out := maps.Clone(state)
	if out == nil {
		out = map[string]string{}
	}
	for _, c := range changes {
		if c.Type == Delete {
			delete(out, c.Name)
		} else {
			out[c.Name] = c.RV
		}
	}
	return out
}

// sleepUntil waits until t or until ctx ends.
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
