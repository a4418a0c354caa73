package cache

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2/ktesting"
)

// recordingObserver is a reflectorObserver that records its calls, and closes
// reached once it has recorded want of them.
type recordingObserver struct {
	mu      sync.Mutex
	calls   []string
	want    int
	reached chan struct{}
}

func newRecordingObserver(want int) *recordingObserver {
	return &recordingObserver{want: want, reached: make(chan struct{})}
}

var _ reflectorObserver = (*recordingObserver)(nil)

func (o *recordingObserver) record(format string, args ...any) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, fmt.Sprintf(format, args...))
	if len(o.calls) == o.want {
		close(o.reached)
	}
}

func (o *recordingObserver) recorded() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.calls...)
}

func (o *recordingObserver) cycleStarted(relist RelistReason) { o.record("cycle %s", relist) }
func (o *recordingObserver) listStarted(m ListMethod)         { o.record("list %s", m) }
func (o *recordingObserver) initialEventReceived()            { o.record("initial event") }
func (o *recordingObserver) listFailed(m ListMethod, err error) {
	o.record("list %s failed: %t", m, err != nil)
}
func (o *recordingObserver) listed(m ListMethod, items int, rv string) {
	o.record("listed %s %d@%s", m, items, rv)
}
func (o *recordingObserver) resumed(items int, rv string) { o.record("resumed %d@%s", items, rv) }
func (o *recordingObserver) watchStarted(err error) {
	o.record("watch started, failed: %t", err != nil)
}
func (o *recordingObserver) watchEventReceived(t watch.EventType) {
	o.record("event %s", t)
}
func (o *recordingObserver) watchEnded(err error, cause WatchRestartCause) {
	o.record("watch ended, failed: %t, restart %s", err != nil, cause)
}
func (o *recordingObserver) watchStopped()                    { o.record("watch stopped") }
func (o *recordingObserver) resourceVersionReached(rv string) { o.record("at %s", rv) }

// TestReflectorObserver checks what a reflector tells the observer it was
// built with: every request's outcome in order, the cause of each watch
// restart, the failure that ended a cycle as the reason of the relist that
// follows, and a watch the reflector stops as stopped, not as a restart.
func TestReflectorObserver(t *testing.T) {
	a := pom("a", "5")
	for _, tc := range []struct {
		name           string
		watchList      bool
		lists, watches []step
		// want is every call; the reflector is stopped once it made all
		// but the last, which is then the stop.
		want []string
	}{{
		name:    "a watch that ends expired labels its restart and the relist",
		lists:   []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
		watches: []step{{events: []watch.Event{modified("a", "11"), errorEvent(errExpired)}}},
		want: []string{
			"cycle error", "list paginated", "listed paginated 1@10", "at 10",
			"watch started, failed: false", "event MODIFIED", "at 11", "watch ended, failed: true, restart expired",
			"cycle expired", "list paginated", "listed paginated 1@12", "at 12",
			"watch started, failed: false", "watch stopped",
		},
	}, {
		name:  "a list that fails ends the cycle and labels the relist",
		lists: []step{{err: errExpired}, {err: errExpired}, {list: pomList("10", "", a)}},
		want: []string{
			"cycle error", "list paginated", "list paginated failed: true",
			"cycle expired", "list paginated", "listed paginated 1@10", "at 10",
			"watch started, failed: false", "watch stopped",
		},
	}, {
		name:    "a watch that cannot start ends the cycle and labels the relist",
		lists:   []step{{list: pomList("10", "", a)}, {list: pomList("12", "", a)}},
		watches: []step{{err: errRVTooLarge}},
		want: []string{
			"cycle error", "list paginated", "listed paginated 1@10", "at 10",
			"watch started, failed: true",
			"cycle too_large_resource_version", "list paginated", "listed paginated 1@12", "at 12",
			"watch started, failed: false", "watch stopped",
		},
	}, {
		name:    "a watch the server closes is a restart, and the watch is reopened",
		lists:   []step{{list: pomList("10", "", a)}},
		watches: []step{{events: []watch.Event{modified("a", "11")}, closeAtEnd: true}},
		want: []string{
			"cycle error", "list paginated", "listed paginated 1@10", "at 10",
			"watch started, failed: false", "event MODIFIED", "at 11", "watch ended, failed: false, restart closed",
			"watch started, failed: false", "watch stopped",
		},
	}, {
		name:      "a streaming list reports its initial events and hands its watch on",
		watchList: true,
		watches:   []step{{events: []watch.Event{added("a", "5"), bookmarkEvent("10", true), modified("a", "11")}}},
		want: []string{
			"cycle error", "list streaming", "initial event", "listed streaming 1@10", "at 10",
			"event MODIFIED", "at 11", "watch stopped",
		},
	}, {
		name:      "a streaming list that fails falls back to a paginated list in the same cycle",
		watchList: true,
		lists:     []step{{list: pomList("10", "", a)}},
		watches:   []step{{err: errForbidden}},
		want: []string{
			"cycle error", "list streaming", "list streaming failed: true",
			"list paginated", "listed paginated 1@10", "at 10",
			"watch started, failed: false", "watch stopped",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				logger, _ := ktesting.NewTestContext(t)
				lw := newScriptedLW(tc.lists, tc.watches)
				lw.noWatchList = !tc.watchList
				o := newRecordingObserver(len(tc.want) - 1)
				r := newReflector(lw, &metav1.PartialObjectMetadata{}, newRecordingStore(), ReflectorOptions{Name: "test", Logger: &logger}, o)
				r.watchErrorHandler = func(context.Context, *Reflector, error) {}
				stop := startReflector(context.Background(), r)
				select {
				case <-o.reached:
				case <-time.After(time.Hour):
					t.Error("the reflector did not make the calls before its stop")
				}
				stop()
				if diff := cmp.Diff(tc.want, o.recorded()); diff != "" {
					t.Errorf("observer calls (-want +got):\n%s", diff)
				}
			})
		})
	}
}
