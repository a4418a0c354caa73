package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2/ktesting"
)

var (
	errExpired      = apierrors.NewResourceExpired("too old resource version")
	errGone         = &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonGone, Message: "gone"}}
	errTooMany      = apierrors.NewTooManyRequests("slow down", 1)
	errInternal     = apierrors.NewInternalError(errors.New("unable to decode an event from the watch stream"))
	errForbidden    = apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))
	errBadRequest   = apierrors.NewBadRequest("sendInitialEvents is not supported")
	errConnRefused  = fmt.Errorf("dial tcp 10.0.0.1:443: connect: %w", syscall.ECONNREFUSED)
	errRVTooLarge   = tooLargeResourceVersionError()
	errLegacyTooBig = &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusGatewayTimeout, Reason: metav1.StatusReasonTimeout,
		Message: "Timeout: Too large resource version: 20, current: 10",
	}}
	// errListInvalidRV and errWatchInvalidRV are kube-apiserver 1.36's
	// answers to a list at and a watch from resource version "abc";
	// errInvalidRV is the fake server's, for both.
	errListInvalidRV  = apierrors.NewBadRequest(`invalid resource version: resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`)
	errWatchInvalidRV = &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown,
		Message: `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`,
	}}
	errInvalidRV = apierrors.NewInvalid(schema.GroupKind{Kind: "pods"}, "",
		field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), "abc", `strconv.ParseUint: parsing "abc": invalid syntax`)})
)

func tooLargeResourceVersionError() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusGatewayTimeout, Reason: metav1.StatusReasonTimeout,
		Message: "Too large resource version",
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{
			Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version",
		}}},
	}}
}

// gapCheck asserts that the time between recorded calls i and i+1 lies in
// [min, max).
type gapCheck struct {
	after    int
	min, max time.Duration
}

// backoffGap is the first backoff delay: 800ms stretched by up to 2x.
func backoffGap(after int) gapCheck {
	return gapCheck{after: after, min: 800 * time.Millisecond, max: 1600 * time.Millisecond}
}

// secondBackoffGap is the second delay of a backoff sequence: 1.6s
// stretched by up to 2x.
func secondBackoffGap(after int) gapCheck {
	return gapCheck{after: after, min: 1600 * time.Millisecond, max: 3200 * time.Millisecond}
}

// thirdBackoffGap is the third delay of a backoff sequence: 3.2s
// stretched by up to 2x.
func thirdBackoffGap(after int) gapCheck {
	return gapCheck{after: after, min: 3200 * time.Millisecond, max: 6400 * time.Millisecond}
}

// immediate says call after+1 followed call after without any delay.
func immediate(after int) gapCheck { return gapCheck{after: after, min: 0, max: time.Nanosecond} }

// TestReflectorScenarios drives a reflector through scripted server answers
// and checks the requests it makes, the delays between them and what reaches
// the store. It runs in a synctest bubble: delays pass on the bubble's fake
// clock.
func TestReflectorScenarios(t *testing.T) {
	a, b, c := pom("a", "5"), pom("b", "7"), pom("c", "11")
	tests := []struct {
		name      string
		watchList bool // let the reflector stream lists
		bookmarks bool // the store takes bookmarks
		untyped   bool // the reflector has no expected type
		// maxInternalErrorRetry sets MaxInternalErrorRetryDuration.
		maxInternalErrorRetry time.Duration
		lists, watches        []step
		wantCalls             []call
		wantOps               []string
		wantGaps              []gapCheck
		wantHandlerErrs       int
	}{
		{
			name:    "first list at 0 paginated by 500, then watch from the list's version",
			lists:   []step{{list: pomList("10", "", a, b)}},
			watches: []step{{events: []watch.Event{added("c", "11")}, closeAtEnd: true}},
			wantCalls: []call{
				listCall("0", 500), watchCall("10"), watchCall("11"),
			},
			wantOps:  []string{"replace [ns/a@5 ns/b@7]@10", "add ns/c@11"},
			wantGaps: []gapCheck{immediate(1)},
		},
		{
			name: "pages are followed with continue tokens and merged",
			lists: []step{
				{list: pomList("10", "t1", a)},
				{list: pomList("10", "t2", b)},
				{list: pomList("10", "", c)},
			},
			watches: []step{{events: []watch.Event{modified("a", "12")}, closeAtEnd: true}},
			wantCalls: []call{
				listCall("0", 500), continueCall("t1", 500), continueCall("t2", 500), watchCall("10"), watchCall("12"),
			},
			wantOps: []string{"replace [ns/a@5 ns/b@7 ns/c@11]@10", "update ns/a@12"},
		},
		{
			name: "an expired continue token falls back to one full list at the original version",
			lists: []step{
				{list: pomList("10", "t1", a)},
				{err: errExpired},
				{list: pomList("12", "", a, b)},
			},
			wantCalls: []call{
				listCall("0", 500), continueCall("t1", 500), listCall("0", 0), watchCall("12"),
			},
			wantOps: []string{"replace [ns/a@5 ns/b@7]@12"},
		},
		{
			name: "a nil full list after an expired continue token is an error",
			lists: []step{
				{list: pomList("10", "t1", a)},
				{err: errExpired},
				{list: (*metav1.PartialObjectMetadataList)(nil)},
				{list: pomList("12", "", a, b)},
			},
			wantCalls: []call{
				listCall("0", 500), continueCall("t1", 500), listCall("0", 0), listCall("0", 500), watchCall("12"),
			},
			wantOps:         []string{"replace [ns/a@5 ns/b@7]@12"},
			wantGaps:        []gapCheck{backoffGap(2)},
			wantHandlerErrs: 1,
		},
		{
			name:      "an expired list is retried at once as a quorum read",
			lists:     []step{{err: errExpired}, {list: pomList("10", "", a)}},
			wantCalls: []call{listCall("0", 500), listCall("", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
			wantGaps:  []gapCheck{immediate(0)},
		},
		{
			name:      "a gone list is retried at once as a quorum read",
			lists:     []step{{err: errGone}, {list: pomList("10", "", a)}},
			wantCalls: []call{listCall("0", 500), listCall("", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
		},
		{
			name:      "a too large resource version is retried at once as a quorum read",
			lists:     []step{{err: errRVTooLarge}, {list: pomList("10", "", a)}},
			wantCalls: []call{listCall("0", 500), listCall("", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
		},
		{
			name:      "a too large resource version from an old server is recognised by its message",
			lists:     []step{{err: errLegacyTooBig}, {list: pomList("10", "", a)}},
			wantCalls: []call{listCall("0", 500), listCall("", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
		},
		{
			name:      "a list answering with a malformed resource version is made again from the most recent state",
			lists:     []step{{list: pomList("abc", "", a)}, {list: pomList("10", "", a)}},
			wantCalls: []call{listCall("0", 500), listCall("", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
			wantGaps:  []gapCheck{immediate(0)},
		},
		{
			name:      "a list of the most recent state is taken whatever its resource version",
			lists:     []step{{err: errExpired}, {list: pomList("abc", "", a)}},
			wantCalls: []call{listCall("0", 500), listCall("", 500), watchCall("abc")},
			wantOps:   []string{"replace [ns/a@5]@abc"},
		},
		{
			name:  "a list refused for its resource version is made again from the most recent state",
			lists: []step{{list: pomList("10", "", a)}, {err: errListInvalidRV}, {list: pomList("12", "", a)}},
			watches: []step{
				{events: []watch.Event{modified("a", "abc"), errorEvent(errExpired)}},
			},
			wantCalls: []call{listCall("0", 500), watchCall("10"), listCall("abc", 0), listCall("", 0), watchCall("12")},
			wantOps:   []string{"replace [ns/a@5]@10", "update ns/a@abc", "replace [ns/a@5]@12"},
			wantGaps:  []gapCheck{backoffGap(1), immediate(2)},
		},
		{
			name:  "a list refused as invalid for its resource version is made again from the most recent state",
			lists: []step{{list: pomList("10", "", a)}, {err: errInvalidRV}, {list: pomList("12", "", a)}},
			watches: []step{
				{events: []watch.Event{modified("a", "abc"), errorEvent(errExpired)}},
			},
			wantCalls: []call{listCall("0", 500), watchCall("10"), listCall("abc", 0), listCall("", 0), watchCall("12")},
			wantOps:   []string{"replace [ns/a@5]@10", "update ns/a@abc", "replace [ns/a@5]@12"},
		},
		{
			name:  "a watch refused for its resource version relists the most recent state",
			lists: []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
			watches: []step{
				{delay: 2 * time.Second, events: []watch.Event{bookmarkEvent("abc", false)}, closeAtEnd: true},
				{err: errWatchInvalidRV},
			},
			wantCalls:       []call{listCall("0", 500), watchCall("10"), watchCall("abc"), listCall("", 500), watchCall("12")},
			wantOps:         []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12"},
			wantGaps:        []gapCheck{backoffGap(2)},
			wantHandlerErrs: 1,
		},
		{
			name:  "a watch stream ended by a refusal of its resource version relists the most recent state",
			lists: []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
			watches: []step{
				{delay: 2 * time.Second, events: []watch.Event{bookmarkEvent("abc", false)}, closeAtEnd: true},
				{events: []watch.Event{errorEvent(errInvalidRV)}},
			},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("abc"), listCall("", 500), watchCall("12")},
			wantOps:   []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12"},
			wantGaps:  []gapCheck{backoffGap(2)},
		},
		{
			name:            "a failed list goes to the error handler and is retried after a backoff delay",
			lists:           []step{{err: errInternal}, {list: pomList("10", "", a)}},
			wantCalls:       []call{listCall("0", 500), listCall("0", 500), watchCall("10")},
			wantOps:         []string{"replace [ns/a@5]@10"},
			wantGaps:        []gapCheck{backoffGap(0)},
			wantHandlerErrs: 1,
		},
		{
			name:  "an expired watch relists from the last version, unpaginated, after a backoff delay",
			lists: []step{{list: pomList("10", "", a)}, {list: pomList("15", "", a, b)}},
			watches: []step{
				{events: []watch.Event{added("b", "12"), errorEvent(errExpired)}},
			},
			wantCalls: []call{listCall("0", 500), watchCall("10"), listCall("12", 0), watchCall("15")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/b@12", "replace [ns/a@5 ns/b@7]@15"},
			wantGaps:  []gapCheck{backoffGap(1)},
		},
		{
			name: "after a paginated list at 0 relists stay paginated",
			lists: []step{
				{list: pomList("10", "t1", a)},
				{list: pomList("10", "", b)},
				{list: pomList("15", "", a, b)},
			},
			watches:   []step{{events: []watch.Event{errorEvent(errGone)}}},
			wantCalls: []call{listCall("0", 500), continueCall("t1", 500), watchCall("10"), listCall("10", 500), watchCall("15")},
			wantOps:   []string{"replace [ns/a@5 ns/b@7]@10", "replace [ns/a@5 ns/b@7]@15"},
		},
		{
			name:      "a watch that ends normally is reopened at once from the last version",
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{delay: 2 * time.Second, closeAtEnd: true}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
			wantGaps:  []gapCheck{{after: 1, min: 2 * time.Second, max: 2*time.Second + 1}},
		},
		{
			name:  "watches that keep closing as soon as they open are reopened after a backoff delay",
			lists: []step{{list: pomList("10", "", a)}},
			watches: []step{
				{events: []watch.Event{added("c", "11")}, closeAtEnd: true},
				{events: []watch.Event{added("d", "12")}, closeAtEnd: true},
				{events: []watch.Event{added("e", "13")}, closeAtEnd: true},
			},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("11"), watchCall("12"), watchCall("13")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/c@11", "add ns/d@12", "add ns/e@13"},
			wantGaps:  []gapCheck{immediate(1), backoffGap(2), secondBackoffGap(3)},
		},
		{
			name:  "a watch still open a minute past the longest timeout is closed and reopened",
			lists: []step{{list: pomList("10", "", a)}},
			watches: []step{
				{events: []watch.Event{added("c", "11")}}, // stays open
			},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/c@11"},
			wantGaps:  []gapCheck{{after: 1, min: 11 * time.Minute, max: 11*time.Minute + 1}},
		},
		{
			name:      "watches resume from bookmark versions",
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{events: []watch.Event{bookmarkEvent("20", false)}, closeAtEnd: true}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("20")},
			wantOps:   []string{"replace [ns/a@5]@10"},
		},
		{
			name:      "bookmarks reach a store that takes them",
			bookmarks: true,
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{events: []watch.Event{bookmarkEvent("20", false)}, closeAtEnd: true}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("20")},
			wantOps:   []string{"replace [ns/a@5]@10", "bookmark 20"},
		},
		{
			name:      "a very short watch relists after a backoff delay",
			lists:     []step{{list: pomList("10", "", a)}, {list: pomList("11", "", a)}},
			watches:   []step{{closeAtEnd: true}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5]@10", "replace [ns/a@5]@11"},
			wantGaps:  []gapCheck{backoffGap(1)},
		},
		{
			name:      "a throttled watch request is retried after a backoff delay, without a relist",
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{err: errTooMany}, {events: []watch.Event{added("c", "11")}, closeAtEnd: true}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("10"), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/c@11"},
			wantGaps:  []gapCheck{backoffGap(1)},
		},
		{
			name:      "a refused watch connection is retried after a backoff delay, without a relist",
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{err: errConnRefused}, {events: []watch.Event{added("c", "11")}, closeAtEnd: true}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("10"), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/c@11"},
			wantGaps:  []gapCheck{backoffGap(1)},
		},
		{
			name:      "a watch stream ended by 429 is reopened after a backoff delay, without a relist",
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{events: []watch.Event{added("c", "11"), errorEvent(errTooMany)}}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/c@11"},
			wantGaps:  []gapCheck{backoffGap(1)},
		},
		{
			name:                  "an internal error is retried at once within MaxInternalErrorRetryDuration",
			maxInternalErrorRetry: time.Minute,
			lists:                 []step{{list: pomList("10", "", a)}},
			watches:               []step{{events: []watch.Event{errorEvent(errInternal)}}, {events: []watch.Event{added("c", "11")}, closeAtEnd: true}},
			wantCalls:             []call{listCall("0", 500), watchCall("10"), watchCall("10"), watchCall("11")},
			wantOps:               []string{"replace [ns/a@5]@10", "add ns/c@11"},
			wantGaps:              []gapCheck{immediate(1)},
		},
		{
			name:      "a decode (internal) error relists after a backoff delay by default",
			lists:     []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
			watches:   []step{{events: []watch.Event{errorEvent(errInternal)}}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("12")},
			wantOps:   []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12"},
			wantGaps:  []gapCheck{backoffGap(1)},
		},
		{
			name: "error events with a nil status relist after a backoff delay",
			lists: []step{
				{list: pomList("10", "", a)}, {list: pomList("12", "", a)}, {list: pomList("14", "", a)},
			},
			watches: []step{
				{events: []watch.Event{{Type: watch.Error, Object: (*metav1.Status)(nil)}}},
				{events: []watch.Event{{Type: watch.Error, Object: (*unstructured.Unstructured)(nil)}}},
			},
			wantCalls: []call{
				listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("12"), listCall("12", 0), watchCall("14"),
			},
			wantOps:  []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12", "replace [ns/a@5]@14"},
			wantGaps: []gapCheck{backoffGap(1)},
		},
		{
			name:            "a watch that cannot be started goes to the error handler and relists after a backoff delay",
			lists:           []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
			watches:         []step{{err: errForbidden}},
			wantCalls:       []call{listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("12")},
			wantOps:         []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12"},
			wantGaps:        []gapCheck{backoffGap(1)},
			wantHandlerErrs: 1,
		},
		{
			name:            "a list that panics goes to the error handler and is retried after a backoff delay",
			lists:           []step{{panicValue: "list exploded"}, {list: pomList("10", "", a)}},
			wantCalls:       []call{listCall("0", 500), listCall("0", 500), watchCall("10")},
			wantOps:         []string{"replace [ns/a@5]@10"},
			wantGaps:        []gapCheck{backoffGap(0)},
			wantHandlerErrs: 1,
		},
		{
			name:            "a watch that panics goes to the error handler and relists after a backoff delay",
			lists:           []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
			watches:         []step{{panicValue: "watch exploded"}},
			wantCalls:       []call{listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("12")},
			wantOps:         []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12"},
			wantGaps:        []gapCheck{backoffGap(1)},
			wantHandlerErrs: 1,
		},
		{
			name:  "events with objects of the wrong type, nil objects or unknown types are dropped",
			lists: []step{{list: pomList("10", "", a)}},
			watches: []step{{events: []watch.Event{
				{Type: watch.Added, Object: &metav1.Status{ListMeta: metav1.ListMeta{ResourceVersion: "90"}}},
				{Type: watch.Added, Object: (*metav1.PartialObjectMetadata)(nil)},
				{Type: watch.Added, Object: nil},
				{Type: "Strange", Object: pom("x", "91")},
				added("c", "11"),
				{Type: watch.Modified, Object: &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "u", "resourceVersion": "92"},
				}}},
			}, closeAtEnd: true}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/c@11"},
		},
		{
			name:    "without an expected type, objects without metadata and Tables are dropped",
			untyped: true,
			lists:   []step{{list: pomList("10", "", a)}},
			watches: []step{{events: []watch.Event{
				{Type: watch.Added, Object: &metav1.Status{ListMeta: metav1.ListMeta{ResourceVersion: "90"}}},
				{Type: watch.Added, Object: &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "meta.k8s.io/v1", "kind": "Table", "metadata": map[string]any{"name": "t", "resourceVersion": "91"},
				}}},
				added("c", "11"),
			}, closeAtEnd: true}},
			wantCalls: []call{listCall("0", 500), watchCall("10"), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/c@11"},
		},
		{
			name:    "a Table list is an error",
			untyped: true,
			lists: []step{
				{list: &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "meta.k8s.io/v1", "kind": "Table", "metadata": map[string]any{"resourceVersion": "3"}}}},
				{list: pomList("10", "", a)},
			},
			wantCalls:       []call{listCall("0", 500), listCall("0", 500), watchCall("10")},
			wantOps:         []string{"replace [ns/a@5]@10"},
			wantGaps:        []gapCheck{backoffGap(0)},
			wantHandlerErrs: 1,
		},
		{
			name: "list items of the wrong type, nil or without metadata are dropped",
			lists: []step{{list: &metainternalversion.List{
				ListMeta: metav1.ListMeta{ResourceVersion: "10"},
				Items:    []runtime.Object{a, &metav1.Status{}, (*metav1.PartialObjectMetadata)(nil), nil, b},
			}}},
			wantCalls: []call{listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5 ns/b@7]@10"},
		},
		{
			name:      "an object listed twice keeps its first place and its last copy",
			lists:     []step{{list: pomList("10", "", a, c, b, pom("a", "9"))}},
			wantCalls: []call{listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@9 ns/c@11 ns/b@7]@10"},
		},
		{
			name:      "a list out of key order keeps its order",
			lists:     []step{{list: pomList("10", "", c, a, b)}},
			wantCalls: []call{listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/c@11 ns/a@5 ns/b@7]@10"},
		},
		{
			name:            "a list that is not a list is an error",
			lists:           []step{{list: a}, {list: nil}, {list: pomList("10", "", a)}},
			wantCalls:       []call{listCall("0", 500), listCall("0", 500), listCall("0", 500), watchCall("10")},
			wantOps:         []string{"replace [ns/a@5]@10"},
			wantGaps:        []gapCheck{backoffGap(0), secondBackoffGap(1)},
			wantHandlerErrs: 2,
		},

		// Streaming lists.
		{
			name:      "a streaming list fills the store at its bookmark and its watch goes on",
			watchList: true,
			watches: []step{{events: []watch.Event{
				added("a", "5"), added("b", "7"), bookmarkEvent("10", true), added("c", "11"),
			}, closeAtEnd: true}},
			wantCalls: []call{watchListCall(""), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5 ns/b@7]@10", "add ns/c@11"},
		},
		{
			name:      "a bookmark without the end annotation before the end bookmark falls back to a paginated list at once, for good",
			watchList: true,
			lists:     []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
			watches: []step{
				{events: []watch.Event{added("a", "5"), bookmarkEvent("8", false)}}, // stays open
				{events: []watch.Event{errorEvent(errExpired)}},
			},
			wantCalls: []call{watchListCall(""), listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("12")},
			wantOps:   []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12"},
			wantGaps:  []gapCheck{immediate(0), backoffGap(2)},
		},
		{
			name:      "a bookmark annotated false before the end bookmark is passed over, as on client-go",
			watchList: true,
			watches: []step{{events: []watch.Event{
				added("a", "5"), bookmarkAnnotated("6", "false"), added("b", "7"), bookmarkEvent("10", true), added("c", "11"),
			}, closeAtEnd: true}},
			wantCalls: []call{watchListCall(""), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5 ns/b@7]@10", "add ns/c@11"},
		},
		{
			name:      "a MODIFIED event before the end bookmark falls back to a paginated list at once, for good",
			watchList: true,
			lists:     []step{{list: pomList("10", "", a, b)}, {list: pomList("12", "", a, b)}},
			watches: []step{
				{events: []watch.Event{added("a", "5"), added("b", "7"), modified("b", "9")}}, // stays open
				{events: []watch.Event{errorEvent(errExpired)}},
			},
			wantCalls: []call{watchListCall(""), listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("12")},
			wantOps:   []string{"replace [ns/a@5 ns/b@7]@10", "replace [ns/a@5 ns/b@7]@12"},
			wantGaps:  []gapCheck{immediate(0), backoffGap(2)},
		},
		{
			name:      "a DELETED event before the end bookmark falls back to a paginated list at once",
			watchList: true,
			lists:     []step{{list: pomList("10", "", b)}},
			watches: []step{
				{events: []watch.Event{added("a", "5"), added("b", "7"), deleted("a", "8"), bookmarkEvent("10", true)}},
			},
			wantCalls: []call{watchListCall(""), listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/b@7]@10"},
			wantGaps:  []gapCheck{immediate(0)},
		},
		{
			name:      "a failed streaming list falls back to a paginated list in the same cycle",
			watchList: true,
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{err: errBadRequest}},
			wantCalls: []call{watchListCall(""), listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
			wantGaps:  []gapCheck{immediate(0)},
		},
		{
			name:      "a streaming list whose watch panics falls back to a paginated list in the same cycle",
			watchList: true,
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{panicValue: "watch exploded"}},
			wantCalls: []call{watchListCall(""), listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
			wantGaps:  []gapCheck{immediate(0)},
		},
		{
			name:      "a streaming list closed at once without events falls back to a paginated list",
			watchList: true,
			lists:     []step{{list: pomList("10", "", a)}},
			watches:   []step{{closeAtEnd: true}},
			wantCalls: []call{watchListCall(""), listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
		},
		{
			name:      "a streaming list closed before its bookmark is streamed again after a backoff delay",
			watchList: true,
			watches: []step{
				{events: []watch.Event{added("a", "5")}, closeAtEnd: true},
				{events: []watch.Event{added("a", "5"), added("b", "7"), bookmarkEvent("10", true), added("c", "11")}, closeAtEnd: true},
			},
			wantCalls: []call{watchListCall(""), watchListCall(""), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5 ns/b@7]@10", "add ns/c@11"},
			wantGaps:  []gapCheck{backoffGap(0)},
		},
		{
			name:      "a streaming list closed before its bookmark three times falls back to a paginated list after the third delay",
			watchList: true,
			lists:     []step{{list: pomList("10", "", a)}},
			watches: []step{
				{events: []watch.Event{added("a", "5")}, closeAtEnd: true},
				{events: []watch.Event{added("a", "5")}, closeAtEnd: true},
				{events: []watch.Event{added("a", "5")}, closeAtEnd: true},
			},
			wantCalls: []call{watchListCall(""), watchListCall(""), watchListCall(""), listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
			wantGaps:  []gapCheck{backoffGap(0), secondBackoffGap(1), thirdBackoffGap(2)},
		},
		{
			name:      "a streaming list expired again from the most recent state backs off, then falls back to a paginated list after one more delay",
			watchList: true,
			lists:     []step{{list: pomList("12", "", a)}},
			watches: []step{
				{events: []watch.Event{added("a", "5"), bookmarkEvent("10", true), errorEvent(errExpired)}},
				{events: []watch.Event{errorEvent(errExpired)}},
				{err: errExpired},
				{events: []watch.Event{errorEvent(errGone)}},
			},
			wantCalls: []call{watchListCall(""), watchListCall("10"), watchListCall(""), watchListCall(""), listCall("", 500), watchCall("12")},
			wantOps:   []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12"},
			wantGaps:  []gapCheck{backoffGap(0), immediate(1), secondBackoffGap(2), thirdBackoffGap(3)},
		},
		{
			name:      "a throttled streaming list is retried after a backoff delay",
			watchList: true,
			watches: []step{
				{err: errTooMany},
				{events: []watch.Event{added("a", "5"), bookmarkEvent("10", true), added("c", "11")}, closeAtEnd: true},
			},
			wantCalls: []call{watchListCall(""), watchListCall(""), watchCall("11")},
			wantOps:   []string{"replace [ns/a@5]@10", "add ns/c@11"},
			wantGaps:  []gapCheck{backoffGap(0)},
		},
		{
			name:      "an expired streaming list is retried at once from the most recent state",
			watchList: true,
			watches: []step{
				{events: []watch.Event{added("a", "5"), bookmarkEvent("10", true), errorEvent(errExpired)}},
				{err: errExpired},
				{events: []watch.Event{added("a", "5"), added("b", "7"), bookmarkEvent("12", true), added("c", "13")}, closeAtEnd: true},
			},
			wantCalls: []call{watchListCall(""), watchListCall("10"), watchListCall(""), watchCall("13")},
			wantOps:   []string{"replace [ns/a@5]@10", "replace [ns/a@5 ns/b@7]@12", "add ns/c@13"},
			wantGaps:  []gapCheck{backoffGap(0), immediate(1)},
		},
		{
			name:      "a streaming list refused for its resource version is retried at once from the most recent state",
			watchList: true,
			watches: []step{
				{events: []watch.Event{added("a", "5"), bookmarkEvent("10", true), modified("a", "abc"), errorEvent(errExpired)}},
				{err: errWatchInvalidRV},
				{events: []watch.Event{added("a", "5"), bookmarkEvent("12", true), added("c", "13")}, closeAtEnd: true},
			},
			wantCalls: []call{watchListCall(""), watchListCall("abc"), watchListCall(""), watchCall("13")},
			wantOps:   []string{"replace [ns/a@5]@10", "update ns/a@abc", "replace [ns/a@5]@12", "add ns/c@13"},
			wantGaps:  []gapCheck{backoffGap(0), immediate(1)},
		},
		{
			name:      "a streaming list whose end bookmark has a malformed resource version is made again from the most recent state",
			watchList: true,
			watches: []step{
				{events: []watch.Event{added("a", "5"), bookmarkEvent("10", true), errorEvent(errExpired)}},
				{events: []watch.Event{added("a", "5"), bookmarkEvent("abc", true)}},
				{events: []watch.Event{added("a", "5"), bookmarkEvent("12", true), added("c", "13")}, closeAtEnd: true},
			},
			wantCalls: []call{watchListCall(""), watchListCall("10"), watchListCall(""), watchCall("13")},
			wantOps:   []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12", "add ns/c@13"},
			wantGaps:  []gapCheck{backoffGap(0), immediate(1)},
		},
		{
			name:      "a streaming list of the most recent state is taken whatever its resource version",
			watchList: true,
			watches: []step{
				{events: []watch.Event{added("a", "5"), bookmarkEvent("abc", true), added("c", "13")}, closeAtEnd: true},
			},
			wantCalls: []call{watchListCall(""), watchCall("13")},
			wantOps:   []string{"replace [ns/a@5]@abc", "add ns/c@13"},
		},
		{
			name:      "a streaming list that stalls falls back to a paginated list, for good",
			watchList: true,
			lists:     []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
			watches: []step{
				{events: []watch.Event{added("a", "5")}}, // never sends its bookmark
				{events: []watch.Event{errorEvent(errExpired)}},
			},
			wantCalls: []call{watchListCall(""), listCall("0", 500), watchCall("10"), listCall("10", 0), watchCall("12")},
			wantOps:   []string{"replace [ns/a@5]@10", "replace [ns/a@5]@12"},
			wantGaps:  []gapCheck{{after: 0, min: time.Minute, max: time.Minute + 1}, backoffGap(2)},
		},
		{
			name:      "the same ListerWatcher without streaming support is listed",
			lists:     []step{{list: pomList("10", "", a)}},
			wantCalls: []call{listCall("0", 500), watchCall("10")},
			wantOps:   []string{"replace [ns/a@5]@10"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logger, _ := ktesting.NewTestContext(t)
				lw := newScriptedLW(tc.lists, tc.watches)
				lw.noWatchList = !tc.watchList
				store := newRecordingStore()
				var rs ReflectorStore = store
				if tc.bookmarks {
					rs = bookmarkingStore{store}
				}
				var expected any = &metav1.PartialObjectMetadata{}
				if tc.untyped {
					expected = nil
				}
				r := NewReflectorWithOptions(lw, expected, rs, ReflectorOptions{Name: "test", Logger: &logger})
				r.MaxInternalErrorRetryDuration = tc.maxInternalErrorRetry
				var mu sync.Mutex
				var handlerErrs []error
				r.watchErrorHandler = func(ctx context.Context, r *Reflector, err error) {
					mu.Lock()
					handlerErrs = append(handlerErrs, err)
					mu.Unlock()
					DefaultWatchErrorHandler(ctx, r, err)
				}

				runReflector(t, r, lw)

				calls := lw.recorded()
				if diff := cmp.Diff(tc.wantCalls, callsOf(calls)); diff != "" {
					t.Errorf("calls (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.wantOps, store.operations()); diff != "" {
					t.Errorf("store operations (-want +got):\n%s", diff)
				}
				g := gaps(calls)
				for _, want := range tc.wantGaps {
					if want.after >= len(g) {
						t.Errorf("no call after call %d", want.after)
						continue
					}
					if got := g[want.after]; got < want.min || got >= want.max {
						t.Errorf("time between calls %d and %d = %v, want in [%v, %v)", want.after, want.after+1, got, want.min, want.max)
					}
				}
				for i, c := range calls {
					if c.Kind != "watch" {
						continue
					}
					if c.timeoutSeconds == nil || *c.timeoutSeconds < 300 || *c.timeoutSeconds > 600 {
						t.Errorf("call %d: watch timeout %v, want in [300, 600] seconds", i, c.timeoutSeconds)
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if len(handlerErrs) != tc.wantHandlerErrs {
					t.Errorf("error handler got %d errors (%v), want %d", len(handlerErrs), handlerErrs, tc.wantHandlerErrs)
				}
				for _, w := range lw.opened {
					if !w.isStopped() {
						t.Errorf("a watch was left open")
					}
				}
			})
		})
	}
}

// TestReflectorWatchListAppliesStoreTransform checks that a streaming list
// hands the store objects already passed through the store's transform, and
// that later watch events reach the store untransformed (the store transforms
// them itself).
func TestReflectorWatchListAppliesStoreTransform(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptedLW(nil, []step{{events: []watch.Event{
			added("a", "5"), bookmarkEvent("10", true), added("c", "11"),
		}, closeAtEnd: true}})
		store := newRecordingStore()
		store.transform = func(obj any) (any, error) {
			p := obj.(*metav1.PartialObjectMetadata).DeepCopy()
			p.ResourceVersion += "t"
			return p, nil
		}
		r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, transformingStore{store}, ReflectorOptions{})
		runReflector(t, r, lw)
		want := []string{"replace [ns/a@5t]@10", "add ns/c@11"}
		if diff := cmp.Diff(want, store.operations()); diff != "" {
			t.Errorf("store operations (-want +got):\n%s", diff)
		}
	})
}

// TestReflectorWithoutListerWatcherOrStore checks that a reflector built
// without a ListerWatcher or a store reports it instead of panicking.
func TestReflectorWithoutListerWatcherOrStore(t *testing.T) {
	for _, r := range []*Reflector{
		NewReflector(nil, nil, newRecordingStore(), 0),
		NewReflector((*ListWatch)(nil), nil, newRecordingStore(), 0),
		NewReflector(&ListWatch{}, nil, nil, 0),
		NewReflector(&ListWatch{}, nil, (*recordingStore)(nil), 0),
		NewReflector((*watchListSemanticsListWatch)(nil), nil, newRecordingStore(), 0),
	} {
		if err := r.ListAndWatchWithContext(context.Background()); err == nil {
			t.Errorf("ListAndWatch succeeded without a ListerWatcher or store")
		}
	}
}

func TestReflectorTypeDescription(t *testing.T) {
	withGVK := &unstructured.Unstructured{}
	withGVK.SetAPIVersion("apps/v1")
	withGVK.SetKind("Deployment")
	for _, tc := range []struct {
		name     string
		expected any
		opts     ReflectorOptions
		want     string
	}{
		{name: "nil", expected: nil, want: "<unspecified>"},
		{name: "Go type", expected: &metav1.PartialObjectMetadata{}, want: "*v1.PartialObjectMetadata"},
		{name: "unstructured without kind", expected: &unstructured.Unstructured{}, want: "*unstructured.Unstructured"},
		{name: "nil unstructured", expected: (*unstructured.Unstructured)(nil), want: "*unstructured.Unstructured"},
		{name: "unstructured with kind", expected: withGVK, want: "apps/v1, Kind=Deployment"},
		{name: "explicit", expected: withGVK, opts: ReflectorOptions{TypeDescription: "deployments"}, want: "deployments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReflectorWithOptions(&ListWatch{}, tc.expected, newRecordingStore(), tc.opts)
			if got := r.TypeDescription(); got != tc.want {
				t.Errorf("TypeDescription() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReflectorRejectsOtherKinds checks that a reflector expecting an
// unstructured kind drops watch events of another kind.
func TestReflectorRejectsOtherKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		u := func(kind, name, rv string) *unstructured.Unstructured {
			obj := &unstructured.Unstructured{}
			obj.SetAPIVersion("v1")
			obj.SetKind(kind)
			obj.SetNamespace(testNamespace)
			obj.SetName(name)
			obj.SetResourceVersion(rv)
			return obj
		}
		list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "PodList"}}
		list.SetResourceVersion("10")
		lw := newScriptedLW([]step{{list: list}}, []step{{events: []watch.Event{
			{Type: watch.Added, Object: u("Service", "s", "11")},
			{Type: watch.Added, Object: u("Pod", "p", "12")},
		}, closeAtEnd: true}})
		lw.noWatchList = true
		var added []string
		store := &addOnlyStore{add: func(obj any) { added = append(added, obj.(*unstructured.Unstructured).GetName()) }}
		r := NewReflectorWithOptions(lw, u("Pod", "", ""), store, ReflectorOptions{})
		runReflector(t, r, lw)
		if diff := cmp.Diff([]string{"p"}, added); diff != "" {
			t.Errorf("added (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]call{listCall("0", 500), watchCall("10"), watchCall("12")}, callsOf(lw.recorded())); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
}

// addOnlyStore is a ReflectorStore that only reports adds.
type addOnlyStore struct{ add func(any) }

func (s *addOnlyStore) Add(obj any) error           { s.add(obj); return nil }
func (s *addOnlyStore) Update(any) error            { return nil }
func (s *addOnlyStore) Delete(any) error            { return nil }
func (s *addOnlyStore) Replace([]any, string) error { return nil }
func (s *addOnlyStore) Resync() error               { return nil }

// TestDefaultWatchErrorHandler checks which errors the default handler only
// logs at some verbosity and which it reports through HandleError: only the
// bare end-of-stream errors of a watch are quiet, as in client-go; a list
// that failed because its connection ended is reported.
func TestDefaultWatchErrorHandler(t *testing.T) {
	for _, tc := range []struct {
		name        string
		err         error
		wantHandled bool
	}{
		{name: "expired", err: errExpired},
		{name: "wrapped expired", err: fmt.Errorf("list pods: %w", errExpired)},
		{name: "end of a watch stream", err: io.EOF},
		{name: "unexpected end of a watch stream", err: io.ErrUnexpectedEOF},
		{name: "list whose connection ended", err: fmt.Errorf("list pods: %w", &url.Error{Op: "Get", URL: "https://x", Err: io.EOF}), wantHandled: true},
		{name: "list cut short", err: fmt.Errorf("list pods: %w", io.ErrUnexpectedEOF), wantHandled: true},
		{name: "forbidden", err: errForbidden, wantHandled: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			handled := storeHandledErrors(t)
			_, ctx := ktesting.NewTestContext(t)
			r := NewReflectorWithOptions(&ListWatch{}, nil, newRecordingStore(), ReflectorOptions{Name: "test"})
			DefaultWatchErrorHandler(ctx, r, tc.err)
			if got := len(handled()) == 1; got != tc.wantHandled {
				t.Errorf("reported through HandleError: %v, want %v", got, tc.wantHandled)
			}
		})
	}
}

// rvUpdatingStore is a recordingStore that also records the resource versions
// passed to UpdateResourceVersion.
type rvUpdatingStore struct{ *recordingStore }

func (s rvUpdatingStore) UpdateResourceVersion(rv string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, "rv "+rv)
}

// TestReflectorResourceVersionOfSyntheticAdds checks that a watch started at
// resource version "" (after a list that carried none) does not record the
// resource versions of its initial ADDED events, which come in no particular
// order, until another kind of event shows they are over; and that a watch
// started at a real resource version records every event's, including in
// ResourceVersionUpdater stores.
func TestReflectorResourceVersionOfSyntheticAdds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptedLW([]step{{list: pomList("", "")}}, []step{
			// Synthetic adds only: nothing recorded, the next watch
			// starts at "" again.
			{delay: 2 * time.Second, events: []watch.Event{added("a", "30"), added("b", "20")}, closeAtEnd: true},
			// A modification ends the synthetic adds: from then on, every
			// event counts.
			{delay: 2 * time.Second, events: []watch.Event{added("a", "30"), modified("b", "31"), added("c", "32")}, closeAtEnd: true},
			{delay: 2 * time.Second, events: []watch.Event{added("d", "40")}, closeAtEnd: true},
		})
		lw.noWatchList = true
		store := newRecordingStore()
		r := NewReflectorWithOptions(lw, &metav1.PartialObjectMetadata{}, rvUpdatingStore{store}, ReflectorOptions{Name: "test"})
		runReflector(t, r, lw)
		wantCalls := []call{listCall("0", 500), watchCall(""), watchCall(""), watchCall("32"), watchCall("40")}
		if diff := cmp.Diff(wantCalls, callsOf(lw.recorded())); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
		wantOps := []string{
			"replace []@",
			"add ns/a@30", "add ns/b@20",
			"add ns/a@30", "update ns/b@31", "rv 31", "add ns/c@32", "rv 32",
			"add ns/d@40", "rv 40",
		}
		if diff := cmp.Diff(wantOps, store.operations()); diff != "" {
			t.Errorf("store operations (-want +got):\n%s", diff)
		}
	})
}

// TestPlainStoreTakesNoBookmarks checks that the stores of this package do
// not qualify as ReflectorBookmarkStore: their Bookmark method has no error
// result, as in client-go, so a reflector writing into one never calls it.
func TestPlainStoreTakesNoBookmarks(t *testing.T) {
	for _, s := range []any{NewStore(MetaNamespaceKeyFunc), NewIndexer(MetaNamespaceKeyFunc, Indexers{})} {
		if _, ok := s.(ReflectorBookmarkStore); ok {
			t.Errorf("%T is a ReflectorBookmarkStore", s)
		}
	}
}
