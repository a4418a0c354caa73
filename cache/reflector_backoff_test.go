package cache

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	testingclock "k8s.io/utils/clock/testing"

	framework "github.com/informer-go/informer/cache/testing"
	"github.com/informer-go/informer/wait"
)

// backoffBounds are the bounds of the default delays: 800ms doubling to a
// 30s cap, each stretched by [1, 2).
var backoffBounds = func() [][2]time.Duration {
	var out [][2]time.Duration
	for base := defaultBackoffInit; ; base *= 2 {
		if base >= defaultBackoffMax {
			return append(out, [2]time.Duration{defaultBackoffMax, 2 * defaultBackoffMax})
		}
		out = append(out, [2]time.Duration{base, 2 * base})
	}
}()

// checkDelay fails the test unless d is the i-th delay of the default
// sequence (0 the first).
func checkDelay(t *testing.T, what string, i int, d time.Duration) {
	t.Helper()
	b := backoffBounds[min(i, len(backoffBounds)-1)]
	if d < b[0] || d >= b[1] {
		t.Fatalf("%s: delay %v, want delay %d of the sequence, in [%v, %v)", what, d, i, b[0], b[1])
	}
}

// TestReflectorBackoffSequence checks the delays against their bounds on a
// fake clock: a continuous run of failures never restarts the sequence, nor
// does contact with the server that ended within a second; a second of
// contact, or two minutes without failure, do.
func TestReflectorBackoffSequence(t *testing.T) {
	for range 20 { // the delays are random
		clk := testingclock.NewFakeClock(time.Unix(1000, 0))
		b := newReflectorBackoff(defaultBackoff(), defaultBackoffReset, clk)
		// fail asks for the next delay and waits it.
		fail := func() time.Duration {
			d := b.next()
			clk.Step(d)
			return d
		}
		// Failures follow each other with no healthy time in between, for
		// far longer than the reset period.
		for i := range 40 {
			checkDelay(t, "a run of failures", i, fail())
		}
		// Almost two minutes without failure: the sequence goes on.
		clk.Step(defaultBackoffReset - time.Second)
		checkDelay(t, "after 1m59s without failure", 40, fail())
		// Two minutes: it starts over.
		clk.Step(defaultBackoffReset)
		checkDelay(t, "after 2m without failure", 0, fail())
		for i := 1; i < 10; i++ {
			checkDelay(t, "a new run of failures", i, fail())
		}
		// A list completed, but the next request failed at once.
		b.inContact(clk.Now())
		clk.Step(healthyContact - time.Millisecond)
		checkDelay(t, "after contact shorter than a second", 10, fail())
		// A watch stayed open for a second; the next failure follows it
		// at once.
		b.inContact(clk.Now())
		clk.Step(healthyContact)
		checkDelay(t, "after a second of contact", 0, fail())
		checkDelay(t, "the next failure", 1, fail())
		// Contact counts for the next failure only.
		b.inContact(clk.Now().Add(-time.Hour))
		checkDelay(t, "after an hour of contact", 0, fail())
		checkDelay(t, "the failure after that", 1, fail())
	}
}

func TestReflectorCustomBackoff(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Unix(1000, 0))
	r := NewReflectorWithOptions(newScriptedLW(nil, nil), nil, newRecordingStore(), ReflectorOptions{
		Clock:   clk,
		Backoff: &wait.Backoff{Duration: time.Second, Factor: 3, Steps: 3},
	})
	var got []time.Duration
	for range 4 {
		got = append(got, r.backoff.next())
	}
	want := []time.Duration{time.Second, 3 * time.Second, 9 * time.Second, 27 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("delays (-want +got):\n%s", diff)
	}
}

// attempt is a list or watch request a server answered.
type attempt struct {
	at     time.Time
	verb   string
	failed bool
}

// attemptRecorder is a server that records the time and outcome of every
// request.
type attemptRecorder struct {
	*framework.Server[*metav1.PartialObjectMetadata]
	mu       sync.Mutex
	attempts []attempt // guarded by mu
}

func (a *attemptRecorder) record(verb string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.attempts = append(a.attempts, attempt{at: time.Now(), verb: verb, failed: err != nil})
}

// since returns the attempts made at t or later.
func (a *attemptRecorder) since(t time.Time) []attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	i, _ := slices.BinarySearchFunc(a.attempts, t, func(x attempt, t time.Time) int { return x.at.Compare(t) })
	return slices.Clone(a.attempts[i:])
}

func (a *attemptRecorder) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	obj, err := a.Server.ListWithContext(ctx, opts)
	a.record(framework.VerbList, err)
	return obj, err
}

func (a *attemptRecorder) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := a.Server.WatchWithContext(ctx, opts)
	a.record(framework.VerbWatch, err)
	return w, err
}

func (a *attemptRecorder) List(opts metav1.ListOptions) (runtime.Object, error) {
	return a.ListWithContext(context.Background(), opts)
}

func (a *attemptRecorder) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return a.WatchWithContext(context.Background(), opts)
}

// refuse makes the server refuse every request, as a server behind a proxy
// that refuses connections, and closes the open watches; accept undoes it.
func refuse(srv *framework.Server[*metav1.PartialObjectMetadata]) {
	srv.FailNextLists(math.MaxInt, framework.NewConnectionRefusedError())
	srv.FailNextWatches(math.MaxInt, framework.NewConnectionRefusedError())
	srv.CloseWatchStreams()
}

func accept(srv *framework.Server[*metav1.PartialObjectMetadata]) {
	srv.FailNextLists(0, nil)
	srv.FailNextWatches(0, nil)
}

// startServerInformer starts, in a synctest bubble, an informer of the given
// pipeline on a recorded server of the given list mode, and waits for its
// sync unless the server refuses requests from the start.
func startServerInformer(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder, dead bool) (*attemptRecorder, *framework.Server[*metav1.PartialObjectMetadata]) {
	t.Helper()
	srv := framework.NewServer(opts)
	t.Cleanup(srv.Close)
	create(t, srv, "a")
	if dead {
		refuse(srv)
	}
	rec := &attemptRecorder{Server: srv}
	inf := NewSharedIndexInformerWithOptions(rec, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{InOrder: inOrder})
	t.Cleanup(runSharedInformer(t, inf))
	if !dead {
		waitForSync(t, inf.HasSyncedChecker())
	}
	return rec, srv
}

// TestReflectorRejoinsAFlappingServer refuses connections to the server for 8
// seconds at a time, each time after the informer had been back for 12 seconds
// (about every 20 seconds), and checks that the informer meets each outage
// with the shortest backoff delays: its first retry follows the first refusal
// by less than 1.6s, and it is back within 12.8s of the outage's end (at most
// the fourth delay of a sequence started with the outage, the delays it can
// reach in 8 seconds). In both pipelines and list modes, in a synctest bubble.
func TestReflectorRejoinsAFlappingServer(t *testing.T) {
	const (
		outage  = 8 * time.Second
		healthy = 12 * time.Second
		windows = 6
	)
	rejoinWithin := 16 * defaultBackoffInit // the bound of the fourth delay
	forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
		rec, srv := startServerInformer(t, opts, inOrder, false)
		for w := range windows {
			// The informer has been back for at most the 100ms it
			// took to notice.
			time.Sleep(healthy)
			start := time.Now()
			refuse(srv)
			time.Sleep(outage)
			accept(srv)
			end := time.Now()
			var back time.Time
			for back.IsZero() {
				time.Sleep(100 * time.Millisecond)
				for _, a := range rec.since(end) {
					if !a.failed {
						back = a.at
						break
					}
				}
			}
			during := rec.since(start)
			if len(during) < 2 || !during[0].failed {
				t.Fatalf("outage %d: attempts %v, want refusals and then the return", w, during)
			}
			if first := during[1].at.Sub(during[0].at); first >= 2*defaultBackoffInit {
				t.Errorf("outage %d: first retry %v after the first refusal, want a delay from the start of the sequence, under %v", w, first, 2*defaultBackoffInit)
			}
			if lag := back.Sub(end); lag >= rejoinWithin {
				t.Errorf("outage %d: back %v after its end, want under %v", w, lag, rejoinWithin)
			}
		}
	})
}

// TestReflectorBackoffAgainstADeadServer checks that against a server that
// refuses every request for half an hour, from the start or after the
// informer synced, the informer's attempts space out along the backoff
// sequence and then stay 30 to 60 seconds apart: the sequence never starts
// over while nothing succeeds (client-go's starts over every two minutes).
// In both pipelines and list modes, in a synctest bubble.
func TestReflectorBackoffAgainstADeadServer(t *testing.T) {
	for _, dead := range []struct {
		name      string
		fromStart bool
	}{{"after sync", false}, {"from the start", true}} {
		t.Run(dead.name, func(t *testing.T) {
			forEachPipeline(t, func(t *testing.T, opts framework.Options[*metav1.PartialObjectMetadata], inOrder bool) {
				rec, srv := startServerInformer(t, opts, inOrder, dead.fromStart)
				if !dead.fromStart {
					time.Sleep(time.Minute) // healthy, and after the sync's requests
				}
				start := time.Now()
				if !dead.fromStart {
					refuse(srv)
				}
				time.Sleep(30 * time.Minute)
				attempts := rec.since(start)
				accept(srv)
				if len(attempts) < 30 {
					t.Fatalf("%d attempts in 30 minutes, want one every 30 to 60 seconds", len(attempts))
				}
				for i := 1; i < len(attempts); i++ {
					a, prev := attempts[i], attempts[i-1]
					if !a.failed {
						t.Fatalf("attempt %d succeeded against a dead server", i)
					}
					// A refused watch that followed the closing of the
					// open one is retried after the first delay; a
					// paginated or streaming list that fell back to a
					// list may follow it at once.
					if gap := a.at.Sub(prev.at); gap > 0 {
						checkDelay(t, fmt.Sprintf("attempt %d", i), countDelays(attempts[:i]), gap)
					}
				}
			})
		})
	}
}

// countDelays returns how many backoff delays passed between the given
// attempts: one for each gap between two of them.
func countDelays(attempts []attempt) int {
	n := 0
	for i := 1; i < len(attempts); i++ {
		if attempts[i].at.After(attempts[i-1].at) {
			n++
		}
	}
	return n
}
