package conformance

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
)

// EventTimeout bounds the wait for any one watch event, list or write.
const EventTimeout = 30 * time.Second

// item is an object as the scenarios compare it.
type item struct {
	Name        string
	UID         types.UID
	RV          string
	Labels      map[string]string
	Annotations map[string]string
}

func itemOf(t *testing.T, obj runtime.Object) item {
	t.Helper()
	accessor, err := meta.Accessor(obj)
	if err != nil {
		t.Fatalf("object %T has no metadata: %v", obj, err)
	}
	return itemOfMeta(accessor)
}

func itemOfMeta(m metav1.Object) item {
	return item{Name: m.GetName(), UID: m.GetUID(), RV: m.GetResourceVersion(), Labels: nonEmpty(m.GetLabels()), Annotations: nonEmpty(m.GetAnnotations())}
}

func nonEmpty(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// listResult is a list response as the scenarios compare it.
type listResult struct {
	Items     []item
	RV        string
	Continue  string
	Remaining *int64
}

func (r listResult) names() []string {
	names := make([]string, len(r.Items))
	for i, it := range r.Items {
		names[i] = it.Name
	}
	return names
}

func list(t *testing.T, target Target, opts metav1.ListOptions) listResult {
	t.Helper()
	r, err := tryList(t, target, opts)
	if err != nil {
		t.Fatalf("list %s: %v", describe(opts), err)
	}
	return r
}

func tryList(t *testing.T, target Target, opts metav1.ListOptions) (listResult, error) {
	t.Helper()
	obj, err := target.ListerWatcher().ListWithContext(t.Context(), opts)
	if err != nil {
		return listResult{}, err
	}
	objects, err := meta.ExtractList(obj)
	if err != nil {
		t.Fatalf("list %s returned %T: %v", describe(opts), obj, err)
	}
	listMeta, err := meta.ListAccessor(obj)
	if err != nil {
		t.Fatalf("list %s returned %T without list metadata: %v", describe(opts), obj, err)
	}
	r := listResult{RV: listMeta.GetResourceVersion(), Continue: listMeta.GetContinue(), Remaining: listMeta.GetRemainingItemCount()}
	for _, o := range objects {
		r.Items = append(r.Items, itemOf(t, o))
	}
	return r, nil
}

// describe renders the options that are set, as query parameters.
func describe(opts metav1.ListOptions) string {
	var parts []string
	add := func(name, value string) {
		if value != "" {
			parts = append(parts, name+"="+value)
		}
	}
	add("labelSelector", opts.LabelSelector)
	add("fieldSelector", opts.FieldSelector)
	add("shardSelector", opts.ShardSelector)
	add("resourceVersion", opts.ResourceVersion)
	add("resourceVersionMatch", string(opts.ResourceVersionMatch))
	if opts.SendInitialEvents != nil {
		add("sendInitialEvents", strconv.FormatBool(*opts.SendInitialEvents))
	}
	if opts.AllowWatchBookmarks {
		add("allowWatchBookmarks", "true")
	}
	if opts.Limit != 0 {
		add("limit", strconv.FormatInt(opts.Limit, 10))
	}
	if opts.Continue != "" {
		add("continue", "...")
	}
	if opts.TimeoutSeconds != nil {
		add("timeoutSeconds", strconv.FormatInt(*opts.TimeoutSeconds, 10))
	}
	return "?" + strings.Join(parts, "&")
}

func openWatch(t *testing.T, target Target, opts metav1.ListOptions) watch.Interface {
	t.Helper()
	w, err := target.ListerWatcher().WatchWithContext(t.Context(), opts)
	if err != nil {
		t.Fatalf("watch %s: %v", describe(opts), err)
	}
	t.Cleanup(w.Stop)
	return w
}

// event is a watch event as the scenarios compare it.
type event struct {
	Type watch.EventType
	item
	// Err is the error an ERROR event carries.
	Err error
}

func (e event) String() string {
	if e.Type == watch.Error {
		return fmt.Sprintf("ERROR %v", e.Err)
	}
	return fmt.Sprintf("%s %s rv=%s labels=%v annotations=%v", e.Type, e.Name, e.RV, e.Labels, e.Annotations)
}

func isInitialEventsEnd(e event) bool {
	return e.Type == watch.Bookmark && e.Annotations[metav1.InitialEventsAnnotationKey] == "true"
}

func toEvent(t *testing.T, raw watch.Event) event {
	t.Helper()
	if raw.Type == watch.Error {
		return event{Type: watch.Error, Err: apierrors.FromObject(raw.Object)}
	}
	return event{Type: raw.Type, item: itemOf(t, raw.Object)}
}

// nextEvent receives one event; ok is false if the watch closed.
func nextEvent(t *testing.T, w watch.Interface) (e event, ok bool) {
	t.Helper()
	select {
	case raw, open := <-w.ResultChan():
		if !open {
			return event{}, false
		}
		return toEvent(t, raw), true
	case <-time.After(EventTimeout):
		t.Fatalf("no watch event within %v", EventTimeout)
	}
	return event{}, false
}

// mustNextEvent receives one event, failing if the watch closes.
func mustNextEvent(t *testing.T, w watch.Interface) event {
	t.Helper()
	e, ok := nextEvent(t, w)
	if !ok {
		t.Fatal("watch closed, want an event")
	}
	return e
}

// expectClosed waits until the watch closes, failing on any event but a
// bookmark.
func expectClosed(t *testing.T, w watch.Interface) {
	t.Helper()
	for {
		e, ok := nextEvent(t, w)
		if !ok {
			return
		}
		if e.Type != watch.Bookmark {
			t.Fatalf("got %v, want the watch closed", e)
		}
	}
}

func eventsEqual(x, y event) bool {
	return reflect.DeepEqual(x, y)
}

func formatEvents[E fmt.Stringer](events []E) string {
	s := "["
	for i, e := range events {
		if i > 0 {
			s += ", "
		}
		s += e.String()
	}
	return s + "]"
}

func itemsEqual(want, got []item) bool {
	return len(want) == len(got) && (len(want) == 0 || reflect.DeepEqual(want, got))
}

// sortItems sorts items by name.
func sortItems(items []item) {
	slices.SortFunc(items, func(x, y item) int { return strings.Compare(x.Name, y.Name) })
}

// sortedNames returns the names of items, sorted.
func sortedNames(items []item) []string {
	names := make([]string, len(items))
	for i, it := range items {
		names[i] = it.Name
	}
	slices.Sort(names)
	return names
}

func checkNames(t *testing.T, what string, want, got []string) {
	t.Helper()
	if !slices.Equal(want, got) {
		t.Errorf("%s: want %v, got %v", what, want, got)
	}
}

// futureResourceVersion returns a resourceVersion far ahead of rv, skipping
// the scenario if resourceVersions are not integers on this server.
func futureResourceVersion(t *testing.T, rv string) string {
	t.Helper()
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		t.Skipf("resourceVersion %q is not an integer: cannot make a future one", rv)
	}
	return strconv.FormatUint(n+1_000_000, 10)
}

// isTooLargeResourceVersion reports whether err is the apiserver's answer to
// a resourceVersion it has not reached.
func isTooLargeResourceVersion(err error) bool {
	return apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge)
}

// skipIfWatchListUnsupported skips when the server rejects streaming lists.
func skipIfWatchListUnsupported(t *testing.T, err error) {
	t.Helper()
	var status apierrors.APIStatus
	if apierrors.IsInvalid(err) && errors.As(err, &status) {
		t.Skipf("the server rejects sendInitialEvents (watch-list disabled?): %v", err)
	}
}

func ptr[V any](v V) *V { return &v }
