package cache

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

type ctxKey struct{}

// TestListWatchPrefersFunctions checks which function each method calls and
// which context it passes.
func TestListWatchPrefersFunctions(t *testing.T) {
	ctx := context.WithValue(context.Background(), ctxKey{}, "caller")
	var got []string
	record := func(name string) { got = append(got, name) }
	legacyList := func(metav1.ListOptions) (runtime.Object, error) { record("ListFunc"); return nil, nil }
	ctxList := func(ctx context.Context, _ metav1.ListOptions) (runtime.Object, error) {
		record("ListWithContextFunc:" + valueOf(ctx))
		return nil, nil
	}
	legacyWatch := func(metav1.ListOptions) (watch.Interface, error) { record("WatchFunc"); return nil, nil }
	ctxWatch := func(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
		record("WatchFuncWithContext:" + valueOf(ctx))
		return nil, nil
	}
	both := &ListWatch{ListFunc: legacyList, ListWithContextFunc: ctxList, WatchFunc: legacyWatch, WatchFuncWithContext: ctxWatch}
	legacyOnly := &ListWatch{ListFunc: legacyList, WatchFunc: legacyWatch}
	ctxOnly := &ListWatch{ListWithContextFunc: ctxList, WatchFuncWithContext: ctxWatch}

	for _, lw := range []*ListWatch{both, legacyOnly, ctxOnly} {
		_, _ = lw.List(metav1.ListOptions{})
		_, _ = lw.ListWithContext(ctx, metav1.ListOptions{})
		_, _ = lw.Watch(metav1.ListOptions{})
		_, _ = lw.WatchWithContext(ctx, metav1.ListOptions{})
	}
	want := []string{
		"ListFunc", "ListWithContextFunc:caller", "WatchFunc", "WatchFuncWithContext:caller",
		"ListFunc", "ListFunc", "WatchFunc", "WatchFunc",
		"ListWithContextFunc:", "ListWithContextFunc:caller", "WatchFuncWithContext:", "WatchFuncWithContext:caller",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func valueOf(ctx context.Context) string {
	s, _ := ctx.Value(ctxKey{}).(string)
	return s
}

// TestListWatchWithoutFunctions checks that a ListWatch without functions,
// or a nil *ListWatch, reports an error from every method instead of
// panicking.
func TestListWatchWithoutFunctions(t *testing.T) {
	for _, tc := range []struct {
		name string
		lw   *ListWatch
	}{
		{name: "empty", lw: &ListWatch{}},
		{name: "nil", lw: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lw := tc.lw
			if _, err := lw.List(metav1.ListOptions{}); !errors.Is(err, errNoListFunc) {
				t.Errorf("List error = %v", err)
			}
			if _, err := lw.ListWithContext(context.Background(), metav1.ListOptions{}); !errors.Is(err, errNoListFunc) {
				t.Errorf("ListWithContext error = %v", err)
			}
			if _, err := lw.Watch(metav1.ListOptions{}); !errors.Is(err, errNoWatchFunc) {
				t.Errorf("Watch error = %v", err)
			}
			if _, err := lw.WatchWithContext(context.Background(), metav1.ListOptions{}); !errors.Is(err, errNoWatchFunc) {
				t.Errorf("WatchWithContext error = %v", err)
			}
		})
	}
}

// TestReflectorOnWrappedNilListWatch checks that a reflector on a nil
// *ListWatch wrapped by ToListWatcherWithWatchListSemantics (which the
// reflector cannot see as nil) reports errors instead of panicking.
func TestReflectorOnWrappedNilListWatch(t *testing.T) {
	for _, streaming := range []bool{false, true} {
		var client any = watchListClient{unsupported: !streaming}
		r := NewReflector(ToListWatcherWithWatchListSemantics(nil, client), nil, newRecordingStore(), 0)
		if err := r.ListAndWatchWithContext(context.Background()); !errors.Is(err, errNoListFunc) {
			t.Errorf("streaming %v: ListAndWatch error = %v, want %v", streaming, err, errNoListFunc)
		}
	}
}

// legacyLW implements only the deprecated interface.
type legacyLW struct{ lists, watches int }

func (l *legacyLW) List(metav1.ListOptions) (runtime.Object, error)   { l.lists++; return nil, nil }
func (l *legacyLW) Watch(metav1.ListOptions) (watch.Interface, error) { l.watches++; return nil, nil }

func TestToListerWatcherWithContext(t *testing.T) {
	lw := &ListWatch{}
	if got := ToListerWatcherWithContext(lw); got != ListerWatcherWithContext(lw) {
		t.Errorf("a ListWatch was wrapped")
	}
	if got := ToListerWithContext(lw); got != ListerWithContext(lw) {
		t.Errorf("a ListWatch was wrapped as a Lister")
	}
	if got := ToWatcherWithContext(lw); got != WatcherWithContext(lw) {
		t.Errorf("a ListWatch was wrapped as a Watcher")
	}
	legacy := &legacyLW{}
	wrapped := ToListerWatcherWithContext(legacy)
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // ignored by the adapters
	_, _ = wrapped.ListWithContext(ctx, metav1.ListOptions{})
	_, _ = wrapped.WatchWithContext(ctx, metav1.ListOptions{})
	_, _ = ToListerWithContext(legacy).ListWithContext(ctx, metav1.ListOptions{})
	_, _ = ToWatcherWithContext(legacy).WatchWithContext(ctx, metav1.ListOptions{})
	if legacy.lists != 2 || legacy.watches != 2 {
		t.Errorf("adapters made %d lists and %d watches, want 2 and 2", legacy.lists, legacy.watches)
	}
}

// watchListClient is a client that may opt out of streaming lists.
type watchListClient struct{ unsupported bool }

func (c watchListClient) IsWatchListSemanticsUnSupported() bool { return c.unsupported }

// ptrWatchListClient answers from a field, so its method panics on a nil
// pointer.
type ptrWatchListClient struct{ unsupported bool }

func (c *ptrWatchListClient) IsWatchListSemanticsUnSupported() bool { return c.unsupported }

func TestToListWatcherWithWatchListSemantics(t *testing.T) {
	for _, tc := range []struct {
		name   string
		client any
		want   bool
	}{
		{name: "nil client", client: nil, want: false},
		{name: "client without the method", client: struct{}{}, want: false},
		{name: "client supporting streaming lists", client: watchListClient{}, want: false},
		{name: "client opting out", client: watchListClient{unsupported: true}, want: true},
		{name: "nil pointer client", client: (*ptrWatchListClient)(nil), want: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inner := &ListWatch{}
			lw := ToListWatcherWithWatchListSemantics(inner, tc.client)
			if got := clientLacksWatchListSemantics(lw); got != tc.want {
				t.Errorf("unsupported = %v, want %v", got, tc.want)
			}
			if _, ok := lw.(ListerWatcherWithContext); !ok {
				t.Errorf("the wrapper lost the context-aware methods")
			}
			r := NewReflector(lw, nil, newRecordingStore(), 0)
			if got := r.useWatchList.Load(); got == tc.want {
				t.Errorf("reflector uses streaming lists = %v, want %v", got, !tc.want)
			}
		})
	}
}
