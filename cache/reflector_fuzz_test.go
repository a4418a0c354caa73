package cache

import (
	"context"
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	framework "github.com/informer-go/informer/cache/testing"
)

// FuzzReflectorWatchEvents feeds arbitrary event sequences, valid and
// malformed, to a reflector's watch handling, as a plain watch or as the
// initial events of a streaming list, and checks that it never panics, that
// the store ends up as a naive model says, that the resource version it
// records is that of the last applied event, and that it stops where the
// model says: at an error event, at the initial-events-end bookmark of a
// streaming list, or at an event that shows the server is not streaming one.
func FuzzReflectorWatchEvents(f *testing.F) {
	f.Add([]byte{0, 1, 1, 2, 2, 1, 3, 7})
	f.Add([]byte{4, 0, 5, 1, 6, 2, 7, 3, 8, 4, 9, 5, 10, 6})
	f.Add([]byte{3, 3, 3, 0, 0, 2, 2})
	f.Add([]byte{0, 1, 101, 0, 0, 2})                  // an error event with a nil *metav1.Status
	f.Add([]byte{1, 0, 1, 0, 2, 3, 15, 0, 1})          // a streaming list ended by its bookmark
	f.Add([]byte{1, 0, 1, 1, 2, 3, 1})                 // a streaming list interrupted by a MODIFIED event
	f.Add([]byte{0, 0, 129, 1, 130, 2, 131, 3, 135})   // malformed resource versions
	f.Add([]byte{1, 3, 2, 0, 131, 48, 7, 80, 1, 0, 1}) // a bookmark without the annotation, bad objects
	f.Fuzz(func(t *testing.T, script []byte) { fuzzReflectorWatchEvents(t, script) })
}

// fuzzReflectorWatchEvents is the body of FuzzReflectorWatchEvents. The
// first byte chooses a plain watch (even) or a streaming list (odd); then
// each pair of bytes is an event: the first chooses its type (low bits) and
// its object (bits 4-6: a valid object, or a nil, wrong-typed or
// metadata-less one), the second the object's name (low 3 bits; 7 makes a
// bookmark end the initial events) and whether its resource version is
// malformed (high bit).
func fuzzReflectorWatchEvents(t testing.TB, script []byte) {
	if len(script) == 0 {
		return
	}
	streaming := script[0]%2 == 1
	script = script[1:]
	types := []watch.EventType{watch.Added, watch.Modified, watch.Deleted, watch.Bookmark, "Unknown", watch.Error}
	ctx := klog.NewContext(context.Background(), klog.Logger{}) // the zero logger discards
	var events []watch.Event
	model := map[string]string{}
	wantRV := "1"
	var wantErr error
	wantEnd, stopped := false, false
	for i := 0; i+1 < len(script); i += 2 {
		typ := types[int(script[i])%len(types)]
		name := "o" + strconv.Itoa(int(script[i+1]%8))
		rv := strconv.Itoa(i + 2)
		if script[i+1] >= 128 {
			rv = "v" + rv // kept as it is: only lists are checked
		}
		var obj runtime.Object
		valid := true
		switch script[i] / 16 % 7 {
		case 0, 1, 2:
			p := pom(name, rv)
			if typ == watch.Bookmark && script[i+1]%8 == 7 {
				p.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
			}
			obj = p
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
		if stopped {
			continue // never read
		}
		switch {
		case typ == watch.Error:
			// Whatever its object, an error event ends the watch.
			wantErr, stopped = errors.New("error event"), true
			continue
		case !valid:
			continue
		case streaming && (typ == watch.Modified || typ == watch.Deleted || (typ == watch.Bookmark && script[i+1]%8 != 7)):
			wantErr, stopped = errInitialEventsNotStreamed, true
			continue
		case typ == "Unknown":
			continue
		}
		switch typ {
		case watch.Added, watch.Modified:
			model[name] = rv
		case watch.Deleted:
			delete(model, name)
		case watch.Bookmark:
			// Reported in both modes; only a streaming list stops there.
			if script[i+1]%8 == 7 {
				wantEnd, stopped = true, streaming
			}
		}
		wantRV = rv
	}

	store := newRecordingStore()
	r := NewReflectorWithOptions(newScriptedLW(nil, nil), &metav1.PartialObjectMetadata{}, store, ReflectorOptions{Name: "fuzz"})
	r.setLastSyncResourceVersion("1")
	var listRV string
	var err error
	if w := newScriptedWatch(events, true); streaming {
		listRV, err = r.handleInitialEvents(ctx, r.now(), w, store)
	} else {
		err = r.handleWatch(ctx, watchSession{start: r.now(), w: w, versions: eventVersionsFrom("1")})
	}
	var short *VeryShortWatchError
	switch {
	case wantErr != nil && err == nil:
		t.Fatalf("handle events: no error, want %v", wantErr)
	case errors.Is(wantErr, errInitialEventsNotStreamed) && !errors.Is(err, errInitialEventsNotStreamed):
		t.Fatalf("handle events: %v, want %v", err, wantErr)
	case wantErr != nil:
	case streaming && wantEnd:
		// The list's resource version is its end bookmark's.
		if err != nil || listRV != wantRV {
			t.Fatalf("handleInitialEvents = %q, %v; want the end bookmark's %q", listRV, err, wantRV)
		}
	case streaming:
		if !errors.Is(err, errWatchListClosedEarly) && !errors.As(err, &short) {
			t.Fatalf("handleInitialEvents of a stream closed before its end: %v, want it reported", err)
		}
	case err != nil && !errors.As(err, &short):
		t.Fatalf("handleWatch: %v", err)
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
	// A plain watch records the version of every applied event; a
	// streaming list records none (its version is returned, above).
	if gotRV := r.LastSyncResourceVersion(); !streaming && gotRV != wantRV {
		t.Fatalf("resource version %q, want %q", gotRV, wantRV)
	}
}

// FuzzResourceVersion checks that every part of the module that parses
// resource versions agrees on which are valid, those kube-apiserver would
// take: "" and decimal numbers that fit in 64 bits. The reflector's check of
// the versions it is sent, the mutation cache's comparison, the metrics'
// truncated parse, and the fake server, whose refusals of the version in a
// list, a watch or an update's precondition the reflector must recognise as
// refusals of the version.
func FuzzResourceVersion(f *testing.F) {
	for _, rv := range []string{"", "0", "1", "007", "18446744073709551615", "18446744073709551616",
		"-1", "+1", " 1", "1 ", "abc", "1e3", "0x10", "١٢", "99999999999999999999999"} {
		f.Add(rv)
	}
	maxRV := new(big.Int).SetUint64(math.MaxUint64)
	f.Fuzz(func(t *testing.T, rv string) {
		n, isNumber := new(big.Int).SetString(rv, 10)
		want := rv == "" || (isNumber && strings.Trim(rv, "0123456789") == "" && n.Cmp(maxRV) <= 0)
		if valid := checkResourceVersion(rv, "fuzz") == nil; valid != want {
			t.Fatalf("checkResourceVersion(%q) valid: %v, want %v", rv, valid, want)
		}
		if _, err := integerResourceVersion(pom("a", rv)); (err == nil) != want {
			t.Fatalf("integerResourceVersion(%q): %v, want valid: %v", rv, err, want)
		}
		got, err := parseRVForMetricsWithTruncation(rv) // must not panic, whatever rv
		if want && rv != "" && len(rv) <= 15 && (err != nil || got != n.Int64()) {
			t.Fatalf("parseRVForMetricsWithTruncation(%q) = %d, %v, want %d", rv, got, err, n.Int64())
		}

		srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{ResourceVersionTimeout: time.Nanosecond})
		defer srv.Close()
		stored, err := srv.Create(pom("a", ""))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		_, listErr := srv.ListWithContext(ctx, metav1.ListOptions{ResourceVersion: rv})
		w, watchErr := srv.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: rv})
		if w != nil {
			w.Stop()
		}
		stored.ResourceVersion = rv // an update that changes nothing else
		_, updateErr := srv.Update(stored)
		for what, err := range map[string]error{"list": listErr, "watch": watchErr, "update": updateErr} {
			if refused := isInvalidResourceVersion(err); refused == want {
				t.Fatalf("%s at %q: %v; the reflector takes it as a refusal of the version: %v, want %v", what, rv, err, refused, !want)
			}
		}
	})
}
