package cache

import (
	"context"
	"slices"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
)

// FuzzReflectorWatchEvents feeds arbitrary event sequences, valid and
// malformed, to a reflector's watch handling and checks that it never panics,
// that the store ends up as a naive model says, and that the resource version
// it records is that of the last applied event.
func FuzzReflectorWatchEvents(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 2, 1, 3, 7})
	f.Add([]byte{4, 0, 5, 1, 6, 2, 7, 3, 8, 4, 9, 5, 10, 6})
	f.Add([]byte{3, 3, 3, 0, 0, 2, 2})
	f.Add([]byte{0, 1, 101, 0, 0, 2}) // an error event with a nil *metav1.Status
	f.Fuzz(func(t *testing.T, script []byte) { fuzzReflectorWatchEvents(t, script) })
}

// fuzzReflectorWatchEvents is the body of FuzzReflectorWatchEvents.
func fuzzReflectorWatchEvents(t testing.TB, script []byte) {
	types := []watch.EventType{watch.Added, watch.Modified, watch.Deleted, watch.Bookmark, "Unknown", watch.Error}
	ctx := klog.NewContext(context.Background(), klog.Logger{}) // the zero logger discards
	var events []watch.Event
	model := map[string]string{}
	wantRV := "1"
	wantErr := false
	for i := 0; i+1 < len(script) && !wantErr; i += 2 {
		typ := types[int(script[i])%len(types)]
		name := "o" + strconv.Itoa(int(script[i+1]%8))
		rv := strconv.Itoa(i + 2)
		var obj runtime.Object
		valid := true
		switch script[i] / 16 % 7 {
		case 0, 1, 2:
			obj = pom(name, rv)
		case 3:
			obj = (*metav1.PartialObjectMetadata)(nil)
			valid = false
		case 4:
			obj = &metav1.Status{}
			valid = false
		case 5:
			obj = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod"}}
			valid = false
		case 6:
			obj = (*metav1.Status)(nil)
			valid = false
		}
		events = append(events, watch.Event{Type: typ, Object: obj})
		if typ == watch.Error {
			// Whatever its object, an error event ends the watch.
			wantErr = true
			continue
		}
		if !valid || typ == "Unknown" {
			continue
		}
		switch typ {
		case watch.Added, watch.Modified:
			model[name] = rv
		case watch.Deleted:
			delete(model, name)
		}
		wantRV = rv
	}

	store := newRecordingStore()
	r := NewReflectorWithOptions(newScriptedLW(nil, nil), &metav1.PartialObjectMetadata{}, store, ReflectorOptions{Name: "fuzz"})
	r.setLastSyncResourceVersion("1")
	_, err := r.handleWatch(ctx, r.clock.Now(), newScriptedWatch(events, true), watchSession{
		store:    store,
		versions: eventVersionsFrom("1"),
	})
	if _, short := err.(*VeryShortWatchError); err != nil && !short && !wantErr {
		t.Fatalf("handleWatch: %v", err)
	}
	if wantErr && err == nil {
		t.Fatalf("handleWatch ignored an error event")
	}
	var want []string
	for name, rv := range model {
		want = append(want, testNamespace+"/"+name+"@"+rv)
	}
	slices.Sort(want)
	var got []string
	for _, p := range store.items {
		got = append(got, testObjString(p))
	}
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Fatalf("store %v, want %v", got, want)
	}
	if gotRV := r.LastSyncResourceVersion(); gotRV != wantRV {
		t.Fatalf("resource version %q, want %q", gotRV, wantRV)
	}
}
