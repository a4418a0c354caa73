package downtime

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/informer-go/informer/e2e/internal/apiserver"
	"github.com/informer-go/informer/e2e/internal/wire"
)

// Scenario is one restart of some libraries after one downtime. The
// namespace holds the ConfigMaps before [Scenario.Run]; a scenario changes
// them, so that the next one on the namespace starts from where it ended.
type Scenario struct {
	Cluster *apiserver.Cluster
	// Namespace holds the ConfigMaps the informers watch.
	Namespace string
	// Changes is the number of writes made while the informers are down.
	Changes int
	// Downtime is how long the informers stay down, the writes spread
	// evenly over it (the informer restarted first; the others wait their
	// turn on top of it). kube-apiserver's watch cache keeps at least 75s
	// of history, so a downtime well below that is within the watch
	// window.
	Downtime time.Duration
	// PastWindow makes the downtime end past the watch window: once the
	// changes are written, etcd is compacted and kube-apiserver restarted,
	// so that neither can serve a watch from a resourceVersion of before
	// the downtime.
	PastWindow bool
	// Seed picks the changes; a scenario run with the same seed on the
	// same objects writes the same changes.
	Seed uint64
	// SnapshotDir holds a directory per library, kept across the
	// restart.
	SnapshotDir string
	// Timeout bounds every wait for an informer to catch up with the
	// server.
	Timeout time.Duration
	// Logf, when not nil, reports progress.
	Logf func(format string, args ...any)
}

// Result is what one library's restart measured and what [Check] found.
type Result struct {
	Library string
	// Outcome is the outcome the library promises, which Err checks.
	Outcome Outcome
	// Equal is the time from building the informer (Run follows at once)
	// until its store first equalled the server (names and
	// resourceVersions), Handled until the handler's view did, Synced
	// until HasSynced.
	Equal, Handled, Synced time.Duration
	// UntilEqual is the traffic of the informer's client until its store
	// equalled the server, Total until the informer stopped.
	UntilEqual, Total wire.Traffic
	// Requests are the first requests the restarted informer sent.
	Requests []string
	// Calls is the number of handler calls.
	Calls int
	// Observation is what Err was checked on.
	Observation Observation
	// Err is what went wrong: the store or the handler that did not
	// catch up, or handler calls and lists other than Outcome's (see
	// [Check]); nil if nothing did.
	Err error
}

// pollInterval is how often the store is compared with the server. A
// comparison is a few lookups, unless they all match.
const pollInterval = 2 * time.Millisecond

// Run runs every library of libs (in that order) until its store equals
// the server's ConfigMaps, and stops them all; makes the changes over the
// downtime (then, past the window, compacts etcd and restarts
// kube-apiserver); and starts the libraries again, one after the other,
// with new handlers, each until its store and its handler's view equal
// the server and its handler had the calls its outcome promises. It
// returns the result of every second run. An error is a
// failure of the scenario itself (the server, the first runs); a
// library's failure to catch up or to call its handler as promised is in
// its Result.
func (s *Scenario) Run(ctx context.Context, libs []Library) ([]Result, error) {
	for _, lib := range libs {
		if lib.Build == nil {
			return nil, fmt.Errorf("library %s cannot run: %s", lib.Name, lib.Skip)
		}
	}
	admin := s.Cluster.Client()
	before, err := s.serverState(ctx, admin)
	if err != nil {
		return nil, err
	}
	stopped := make(map[string]map[string]string, len(libs))
	for _, lib := range libs {
		if err := os.MkdirAll(s.snapshotDir(lib), 0o700); err != nil {
			return nil, err
		}
		r, err := s.start(ctx, lib, before, nil)
		if err != nil {
			return nil, err
		}
		_, err = r.waitEqual(s.Timeout)
		if err == nil {
			err = r.waitHandled(s.Timeout)
		}
		r.stop()
		if err != nil {
			return nil, fmt.Errorf("%s: first run: %w", lib.Name, err)
		}
		stopped[lib.Name] = storeState(r.inst.Store)
		s.logf("%s: first run synced %d ConfigMaps in %v", lib.Name, len(before), r.handled.Round(time.Millisecond))
	}

	began := time.Now()
	changes, err := newWriter(admin, s.Namespace, before, s.Seed).writeSpread(ctx, s.Changes, s.Downtime)
	if err != nil {
		return nil, fmt.Errorf("write the changes of the downtime: %w", err)
	}
	if s.PastWindow {
		if err := s.forgetHistory(ctx, admin); err != nil {
			return nil, err
		}
	}
	after, err := s.serverState(ctx, admin)
	if err != nil {
		return nil, err
	}
	if diff := diffStates(apply(before, changes), after); diff != "" {
		return nil, fmt.Errorf("the server's ConfigMaps are not the ones before the downtime with its changes: %s", diff)
	}
	s.logf("downtime: %d changes in %v; %d ConfigMaps on the server", len(changes), time.Since(began).Round(time.Millisecond), len(after))

	results := make([]Result, 0, len(libs))
	for _, lib := range libs {
		res, err := s.restart(ctx, lib, stopped[lib.Name], changes, after)
		if err != nil {
			return nil, err
		}
		s.logf("%s: %s", lib.Name, res)
		results = append(results, res)
	}
	return results, nil
}

// restart runs lib again until its store and its handler's view equal
// after, and checks what it did.
func (s *Scenario) restart(ctx context.Context, lib Library, stopped map[string]string, changes []Change, after map[string]string) (Result, error) {
	outcome := lib.WithinWindow
	if s.PastWindow {
		outcome = lib.PastWindow
	}
	runtime.GC() // the garbage of earlier runs is not this one's
	r, err := s.start(ctx, lib, after, changes)
	if err != nil {
		return Result{}, err
	}
	obs := Observation{Stopped: stopped, Changes: changes, Server: after}
	calls, err := expectedCallCount(outcome, obs)
	if err != nil {
		return Result{}, err
	}
	untilEqual, errEqual := r.waitEqual(s.Timeout)
	errHandled := r.waitHandled(s.Timeout)
	if errEqual == nil && errHandled == nil {
		// The handler's view can equal the server before every call
		// came: the updates of a relist that change nothing may follow.
		errHandled = r.waitCalls(calls, s.Timeout)
	}
	r.stop()
	total := r.counter.Traffic()
	obs.Events, obs.Lists = r.handler.Events(), total.Lists
	res := Result{
		Library:     lib.Name,
		Outcome:     outcome,
		Equal:       r.equal,
		Handled:     r.handled,
		Synced:      r.synced,
		UntilEqual:  untilEqual,
		Total:       total,
		Requests:    r.counter.Requests(),
		Calls:       len(obs.Events),
		Observation: obs,
	}
	res.Err = errors.Join(errEqual, errHandled, Check(outcome, obs))
	return res, nil
}

// String summarises r on one line.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "store equal to the server after %v (handler %v, synced %v): %v; until stopped: %d lists, %d handler calls",
		r.Equal.Round(time.Millisecond), r.Handled.Round(time.Millisecond), r.Synced.Round(time.Millisecond),
		r.UntilEqual, r.Total.Lists, r.Calls)
	if r.Err != nil {
		fmt.Fprintf(&b, "; FAILED: %v", r.Err)
	}
	return b.String()
}

// run is one informer of one library running, with its traffic counted
// and its handler recorded, waited on against a target state.
type run struct {
	inst    Instance
	counter *wire.Counter
	handler *Recorder
	target  map[string]string
	sample  []string // names in the store compared with target before a full comparison
	ns      string
	began   time.Time
	cancel  context.CancelFunc
	done    chan struct{} // closed when the informer's Run returned

	equal, handled, synced time.Duration // since began; 0 until seen
}

// start builds an informer of lib on a counted client and runs it, its
// handler and its waits aimed at target, which changes led to.
func (s *Scenario) start(ctx context.Context, lib Library, target map[string]string, changes []Change) (*run, error) {
	counter := wire.NewCounter()
	restConfig := s.Cluster.RESTConfig()
	client, err := kubernetes.NewForConfig(counter.Config(restConfig))
	if err != nil {
		return nil, err
	}
	r := &run{
		began:   time.Now(), // before Build: an informer may load its snapshot there
		counter: counter,
		handler: NewRecorder(target),
		target:  target,
		sample:  sampleNames(target, changes),
		ns:      s.Namespace,
		done:    make(chan struct{}),
	}
	r.inst, err = lib.Build(Source{
		Client:        client,
		Namespace:     s.Namespace,
		ListerWatcher: configMapListWatch{client: client, ns: s.Namespace},
		Handler:       r.handler,
		SnapshotDir:   s.snapshotDir(lib),
		ClusterID:     restConfig.Host,
	})
	if err != nil {
		counter.Close()
		return nil, fmt.Errorf("%s: build: %w", lib.Name, err)
	}
	ctx, r.cancel = context.WithCancel(ctx)
	go func() { // exits when ctx ends; stop waits on done
		defer close(r.done)
		r.inst.Run(ctx)
	}()
	return r, nil
}

// stop stops the informer, waits until its Run returned and closes its
// connections.
func (r *run) stop() {
	r.cancel()
	<-r.done
	r.counter.Close()
}

// waitEqual polls the store until it equals the target, or for timeout,
// and returns the traffic until then; it notes r.equal, and r.synced if
// HasSynced became true meanwhile.
func (r *run) waitEqual(timeout time.Duration) (wire.Traffic, error) {
	deadline := time.Now().Add(timeout)
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		at := time.Since(r.began)
		if r.synced == 0 && r.inst.HasSynced() {
			r.synced = at
		}
		if r.sampleMatches() && storeEquals(r.inst.Store, r.target) {
			r.equal = at
			return r.counter.Traffic(), nil
		}
		if time.Now().After(deadline) {
			return r.counter.Traffic(), fmt.Errorf("store not equal to the server after %v: %s", timeout, diffStates(r.target, storeState(r.inst.Store)))
		}
		<-ticker.C
	}
}

// waitHandled waits, for timeout at most, until the handler's view equals
// the target and the informer has synced, and notes r.handled and
// r.synced.
func (r *run) waitHandled(timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case <-r.handler.Reached():
		r.handled = r.handler.ReachedAt().Sub(r.began)
	case <-deadline.C:
		return fmt.Errorf("handler's view not equal to the server after %v", timeout)
	}
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for r.synced == 0 {
		if r.inst.HasSynced() {
			r.synced = time.Since(r.began)
			break
		}
		select {
		case <-ticker.C:
		case <-deadline.C:
			return fmt.Errorf("informer not synced after %v", timeout)
		}
	}
	return nil
}

// waitCalls waits, for timeout at most, until the handler was called n
// times.
func (r *run) waitCalls(n int, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	select {
	case <-r.handler.CallsReached(n):
		return nil
	case <-deadline.C:
		return fmt.Errorf("handler called %d times after %v, want %d calls", len(r.handler.Events()), timeout, n)
	}
}

// sampleMatches reports whether the sampled names are in the store as in
// the target, a cheap test before a full comparison.
func (r *run) sampleMatches() bool {
	for _, name := range r.sample {
		obj, exists, err := r.inst.Store.GetByKey(r.ns + "/" + name)
		want, inTarget := r.target[name]
		if err != nil || exists != inTarget {
			return false
		}
		if exists {
			if _, rv := nameAndVersion(obj); rv != want {
				return false
			}
		}
	}
	return true
}

// sampleNames returns the names of the changes and 64 names of state
// spread over its key order, which is the order of a list.
func sampleNames(state map[string]string, changes []Change) []string {
	const spread = 64
	names := slices.Sorted(maps.Keys(state))
	out := make([]string, 0, len(changes)+spread+1)
	for _, c := range changes {
		out = append(out, c.Name)
	}
	if len(names) <= spread {
		return append(out, names...)
	}
	for i := range spread {
		out = append(out, names[i*len(names)/spread])
	}
	return append(out, names[len(names)-1])
}
