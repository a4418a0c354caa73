package clientgo_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
)

// programHandler is a handler type of a program written against client-go:
// it is neither this library's nor client-go's adapter.
type programHandler struct{ deleted chan any }

func (programHandler) OnAdd(any, bool)    {}
func (programHandler) OnUpdate(any, any)  {}
func (h programHandler) OnDelete(obj any) { h.deleted <- obj }

func newProgramHandler() programHandler { return programHandler{deleted: make(chan any, 1)} }

// deleteRecorder returns a DeleteFunc that sends its object on the channel.
func deleteRecorder() (chan any, func(any)) {
	ch := make(chan any, 1)
	return ch, func(o any) { ch <- o }
}

// TestAsSharedIndexInformerTombstones registers handlers through the
// client-go view of this library's informer, deletes an object so that only
// a relist notices, and checks which tombstone each handler gets: client-go's
// for client-go's and the program's handler types, this library's for this
// library's.
func TestAsSharedIndexInformerTombstones(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(pipelineName(inOrder), func(t *testing.T) {
			srv := newPodServer(t)
			informer := clientgo.AsSharedIndexInformer(cache.NewSharedIndexInformerWithOptions(srv, &corev1.Pod{}, cache.SharedIndexInformerOptions{InOrder: inOrder}))

			clientGoDeleted, clientGoDelete := deleteRecorder()
			ownDeleted, ownDelete := deleteRecorder()
			program := newProgramHandler()
			for _, h := range []toolscache.ResourceEventHandler{
				toolscache.ResourceEventHandlerFuncs{DeleteFunc: clientGoDelete},
				&cache.ResourceEventHandlerFuncs{DeleteFunc: ownDelete},
				program,
			} {
				if _, err := informer.AddEventHandler(h); err != nil {
					t.Fatal(err)
				}
			}
			runUntilSynced(t, informer)
			last := informer.GetStore().List()
			deleteUnseen(t, srv)

			var podB any
			for _, o := range last {
				if o.(*corev1.Pod).Name == "b" {
					podB = o
				}
			}
			wantClientGo := toolscache.DeletedFinalStateUnknown{Key: "ns/b", Obj: podB}
			if diff := cmp.Diff(any(wantClientGo), receive(t, clientGoDeleted, "delete for client-go's handler")); diff != "" {
				t.Errorf("client-go's handler (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(any(wantClientGo), receive(t, program.deleted, "delete for the program's handler")); diff != "" {
				t.Errorf("the program's handler (-want +got):\n%s", diff)
			}
			wantOwn := cache.DeletedFinalStateUnknown{Key: "ns/b", Obj: podB}
			if diff := cmp.Diff(any(wantOwn), receive(t, ownDeleted, "delete for this library's handler")); diff != "" {
				t.Errorf("this library's handler (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClientGoInformerTombstonesForThisLibrary runs client-go's own
// informer and checks that this library's key functions and typed handlers
// understand the client-go tombstones it delivers.
func TestClientGoInformerTombstonesForThisLibrary(t *testing.T) {
	srv := newPodServer(t)
	informer := toolscache.NewSharedIndexInformer(srv, &corev1.Pod{}, 0, toolscache.Indexers{})

	deleted, onDelete := deleteRecorder()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: onDelete}); err != nil {
		t.Fatal(err)
	}
	typedDeleted := make(chan cache.DeletedObject[*corev1.Pod], 1)
	typed := cache.NewTypedSharedIndexInformer[*corev1.Pod](handlerForwarder{target: informer})
	if _, err := typed.AddTypedEventHandler(cache.TypedResourceEventHandlerFuncs[*corev1.Pod]{
		DeleteFunc: func(d cache.DeletedObject[*corev1.Pod]) { typedDeleted <- d },
	}); err != nil {
		t.Fatal(err)
	}
	runUntilSynced(t, informer)
	deleteUnseen(t, srv)

	obj := receive(t, deleted, "delete")
	if _, ok := obj.(toolscache.DeletedFinalStateUnknown); !ok {
		t.Fatalf("client-go's informer delivered %T, want its tombstone", obj)
	}
	if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err != nil || key != "ns/b" {
		t.Errorf("DeletionHandlingMetaNamespaceKeyFunc = %q, %v; want ns/b", key, err)
	}
	if name, err := cache.DeletionHandlingObjectToName(obj); err != nil || name != (cache.ObjectName{Namespace: "ns", Name: "b"}) {
		t.Errorf("DeletionHandlingObjectToName = %v, %v; want ns/b", name, err)
	}
	d := receive(t, typedDeleted, "typed delete")
	if d.FinalStateUnknown == nil || d.GetKey() != "ns/b" || d.OptionalObj == nil || d.OptionalObj.Name != "b" {
		t.Errorf("typed handler got %+v, want the tombstone of ns/b with its last state", d)
	}
}

// handlerForwarder lets this library's typed wrapper register its adapter on
// client-go's informer: only AddEventHandlerWithOptions is used.
type handlerForwarder struct {
	cache.SharedIndexInformer // nil: never called
	target                    toolscache.SharedIndexInformer
}

func (f handlerForwarder) AddEventHandlerWithOptions(h cache.ResourceEventHandler, o cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	_, err := f.target.AddEventHandlerWithOptions(h, toolscache.HandlerOptions{Logger: o.Logger, ResyncPeriod: o.ResyncPeriod})
	return nil, err
}
