package downtime

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-go/informer/cache"
)

// memoryResumes emulate a resume with the API of today, to prove the
// scenario and [Check] on the outcomes of a resume before informer-go can
// resume, and to give a lower bound of what a resume costs: when an
// informer stops, its objects and its last resourceVersion are kept in
// memory (not on disk), keyed by the snapshot directory; the next informer
// of that directory gets them as the answer of its first list, without
// asking the server, and then watches the server from that version. Its
// lists are plain lists (no streaming list), so that the first one can be
// answered locally.
//
// This is not a correct snapshot in general (changes queued but not yet
// in the store when the informer stops are lost), but it is in the
// scenario, which writes nothing between a first run's sync and its stop.
// What it does not do, a real snapshot must pay for: reading and decoding
// the file.
type memoryResumes struct {
	mu    sync.Mutex
	saved map[string]savedList // guarded by mu: by snapshot directory
}

// savedList is what an informer held when it stopped.
type savedList struct {
	objects         []any
	resourceVersion string
}

// library returns the informer-go library, in the pipeline inOrder
// selects, that resumes from m.
func (m *memoryResumes) library(name string, inOrder bool) Library {
	return Library{
		Name: name,
		Build: func(src Source) (Instance, error) {
			m.mu.Lock()
			saved, ok := m.saved[src.SnapshotDir]
			m.mu.Unlock()
			lw := &resumingListWatch{ListerWatcher: src.ListerWatcher}
			if ok {
				lw.resume = &saved
			}
			src.ListerWatcher = lw
			inst, inf, err := newInformerGo(src, cache.SharedIndexInformerOptions{InOrder: inOrder})
			if err != nil {
				return Instance{}, err
			}
			run := inst.Run
			inst.Run = func(ctx context.Context) {
				run(ctx)
				m.save(src.SnapshotDir, savedList{objects: inf.GetStore().List(), resourceVersion: inf.LastSyncResourceVersion()})
			}
			return inst, nil
		},
		WithinWindow: Resume,
		PastWindow:   ResumeThenRelist,
	}
}

func (m *memoryResumes) save(dir string, l savedList) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.saved == nil {
		m.saved = map[string]savedList{}
	}
	m.saved[dir] = l
}

// resumingListWatch answers the first list with resume, when not nil,
// and passes every other request on. It tells the reflector to list
// rather than stream.
type resumingListWatch struct {
	ListerWatcher
	mu     sync.Mutex
	resume *savedList // guarded by mu; nil once answered
}

func (lw *resumingListWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), opts)
}

func (lw *resumingListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	lw.mu.Lock()
	saved := lw.resume
	lw.resume = nil
	lw.mu.Unlock()
	if saved == nil {
		return lw.ListerWatcher.ListWithContext(ctx, opts)
	}
	list := &corev1.ConfigMapList{
		ListMeta: metav1.ListMeta{ResourceVersion: saved.resourceVersion},
		Items:    make([]corev1.ConfigMap, 0, len(saved.objects)),
	}
	for _, obj := range saved.objects {
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok {
			return nil, fmt.Errorf("saved object of type %T, want *v1.ConfigMap", obj)
		}
		list.Items = append(list.Items, *cm) // the informer does not modify its objects
	}
	return list, nil
}

// IsWatchListSemanticsUnSupported makes the reflector list, not stream.
func (*resumingListWatch) IsWatchListSemanticsUnSupported() bool { return true }
