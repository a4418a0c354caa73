package compare

import (
	"context"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// watchChanSize is the buffer of a source's watch channel, as in the
// informer benchmarks of the cache package.
const watchChanSize = 1024

// source is a scripted in-memory ListerWatcher that satisfies both
// libraries' ListerWatcher (and ListerWatcherWithContext) interfaces by its
// method set. List serves a fixed list; every Watch hands out the same
// channel, which the test writes events into, so a watch never ends by
// itself and the informer under test does one list and one watch.
//
// It opts out of streaming lists, so that both libraries do a plain list
// followed by a watch.
type source struct {
	list   *metav1.PartialObjectMetadataList
	events chan watch.Event
}

// newSource returns a source listing objs at resource version len(objs).
// The list is built once and shared by every List call; the informers only
// read it.
func newSource(objs []*metav1.PartialObjectMetadata) *source {
	list := &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: fmt.Sprint(len(objs))}}
	list.Items = make([]metav1.PartialObjectMetadata, len(objs))
	for i, obj := range objs {
		list.Items[i] = *obj
	}
	return &source{list: list, events: make(chan watch.Event, watchChanSize)}
}

// IsWatchListSemanticsUnSupported tells both reflectors not to try a
// streaming list.
func (s *source) IsWatchListSemanticsUnSupported() bool { return true }

func (s *source) List(metav1.ListOptions) (runtime.Object, error) { return s.list, nil }

func (s *source) ListWithContext(context.Context, metav1.ListOptions) (runtime.Object, error) {
	return s.list, nil
}

func (s *source) Watch(metav1.ListOptions) (watch.Interface, error) {
	return &sourceWatch{ch: s.events, stopped: make(chan struct{})}, nil
}

func (s *source) WatchWithContext(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return s.Watch(opts)
}

// sourceWatch is one watch of a source. Its channel outlives it: Stop does
// not close it, since the test keeps sending into it.
type sourceWatch struct {
	ch       chan watch.Event
	stopOnce sync.Once
	stopped  chan struct{}
}

func (w *sourceWatch) ResultChan() <-chan watch.Event { return w.ch }
func (w *sourceWatch) Stop()                          { w.stopOnce.Do(func() { close(w.stopped) }) }

// pom returns an object named name in namespace "ns" at resource version rv.
func pom(name, rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv},
	}
}
