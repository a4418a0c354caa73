package cache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
	"k8s.io/utils/clock"

	framework "github.com/informer-go/informer/cache/testing"
)

// chaosRunKey is the context key under which a run's context carries the
// run, so that a panic reaching utilruntime.HandleCrashWithContext can be
// pinned on it.
type chaosRunKey struct{}

// chaosIndexers are the indexes of the chaos informers: the first from the
// start, the others added by the schedule, one per step.
var chaosIndexers = []struct {
	name string
	fn   IndexFunc
}{
	{"color", chaosLabelIndex("color")},
	{"namespace", MetaNamespaceIndexFunc},
	{"gen", chaosLabelIndex("gen")},
	{"finalized", func(obj any) ([]string, error) {
		m, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok || len(m.Finalizers) == 0 {
			return nil, nil
		}
		return slices.Clone(m.Finalizers), nil
	}},
}

func chaosLabelIndex(label string) IndexFunc {
	return func(obj any) ([]string, error) {
		m, ok := obj.(*metav1.PartialObjectMetadata)
		if !ok {
			return nil, fmt.Errorf("index %s: %T", label, obj)
		}
		if v, ok := m.Labels[label]; ok {
			return []string{v}, nil
		}
		return nil, nil
	}
}

// chaosRun is one schedule carried out against one informer.
type chaosRun struct {
	t     *testing.T
	cfg   chaosConfig
	steps []chaosStep
	// ctx carries the run's logger and the run itself (chaosRunKey).
	ctx    context.Context
	logger klog.Logger
	clk    clock.Clock
	// sleep and after wait on clk.
	sleep func(time.Duration)
	after func(time.Duration) <-chan time.Time

	srv     *fakeServer
	lw      *chaosLW
	sharded *ShardedListWatch
	writer  *chaosWriter
	// rules are the exceptions to the handlers' checks that the schedule
	// makes legitimate.
	rules handlerRules

	// The informer: inf for a shared one; store and ctrl for a low-level
	// one.
	inf       *sharedIndexInformer
	store     Store
	ctrl      Controller
	runCancel context.CancelFunc
	runDone   chan struct{}
	stopped   bool

	// relistPending says that events were dropped since the last forced
	// relist. Only the schedule's goroutine uses the fields up to mu.
	relistPending bool
	// ignoringInitialEvents is what the server does with
	// sendInitialEvents now.
	ignoringInitialEvents bool
	nextIndexer           int
	stats                 *chaosStats

	mu sync.Mutex
	// handlers holds every handler ever added, by id; regs their
	// registrations once AddEventHandler returned. Guarded by mu.
	handlers []*chaosHandler
	regs     map[*chaosHandler]ResourceEventHandlerRegistration
	// shutdownsFromHandlers counts the ShutDownEventHandler calls made
	// from inside handlers. Guarded by mu.
	shutdownsFromHandlers int
	// problems are the failures found by the run itself. Guarded by mu.
	problems []string
}

// newChaosRun prepares the run of seed in the given pipeline; t is the
// subtest, inside the synctest bubble for virtual-time runs.
func newChaosRun(t *testing.T, seed uint64, inOrder bool, verbosity int) *chaosRun {
	cfg, steps := chaosPlan(seed, inOrder)
	var clk clock.Clock = realClock
	if cfg.realTime {
		clk = newFastClock(100)
	}
	return newChaosRunOn(t, cfg, steps, clk, verbosity)
}

// newChaosRunOn prepares a run of cfg and steps on clk.
func newChaosRunOn(t *testing.T, cfg chaosConfig, steps []chaosStep, clk clock.Clock, verbosity int) *chaosRun {
	r := &chaosRun{
		t: t, cfg: cfg, steps: steps, clk: clk, sleep: clk.Sleep, after: clk.After,
		regs: map[*chaosHandler]ResourceEventHandlerRegistration{}, stats: newChaosStats(),
	}
	r.logger = ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(verbosity)))
	r.ctx = context.WithValue(klog.NewContext(context.Background(), r.logger), chaosRunKey{}, r)
	for _, s := range steps {
		r.rules.lossy = r.rules.lossy || (cfg.inOrder && s.kind == stepDropEvents)
		r.rules.reshards = r.rules.reshards || s.kind == stepReshard
	}
	return r
}

// problem records a failure of the run.
func (r *chaosRun) problem(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.problems) < 50 {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	}
}

// run carries out the whole run: set up, chaos, heal, converge, stop. It
// returns the run's problems and the handlers' violations.
func (r *chaosRun) run() []string {
	r.setUp()
	for i, s := range r.steps {
		r.sleep(s.delay)
		r.logger.V(1).Info("Chaos step", "step", i, "what", s.String())
		r.apply(s)
		if r.stopped {
			break
		}
	}
	if !r.stopped {
		r.heal()
		r.converge()
		r.stop()
	}
	r.srv.Close()
	return r.failures()
}

func (r *chaosRun) setUp() {
	opts := r.cfg.server
	opts.Logger = r.logger
	if r.cfg.realTime {
		opts.Clock = r.clk
	}
	r.srv = framework.NewServer(opts)
	r.ignoringInitialEvents = opts.IgnoreSendInitialEvents
	r.writer = newChaosWriter(r.srv, rand.New(rand.NewPCG(r.cfg.seed, 0x777269746572)), r.cfg.pool) // "writer"
	for created := 0; created < r.cfg.initial; {
		name := r.writer.names[created]
		if err := r.writer.create(name); err != nil {
			r.problem("writer: %v", err)
			return
		}
		created++
	}

	var source ListerWatcher = r.srv
	if r.cfg.shardKey != "" {
		sel, err := ShardSelectorFor(r.cfg.shardKey, r.cfg.shardIndex, r.cfg.shardCount)
		if err != nil {
			r.t.Fatal(err)
		}
		if r.sharded, err = NewShardedListWatch(r.srv, sel, ShardedListWatchOptions{Logger: &r.logger}); err != nil {
			r.t.Fatal(err)
		}
		source = r.sharded
	}
	r.lw = &chaosLW{inner: ToListerWatcherWithContext(source), optOut: clientLacksWatchListSemantics(source), labelSelector: r.cfg.labelSelector}

	ctx, cancel := context.WithCancel(r.ctx)
	r.runCancel, r.runDone = cancel, make(chan struct{})
	indexers := Indexers{chaosIndexers[0].name: chaosIndexers[0].fn}
	r.nextIndexer = 1
	if r.cfg.lowLevel {
		h := r.newHandler()
		r.store, r.ctrl = NewInformerWithOptions(InformerOptions{
			Logger: &r.logger, ListerWatcher: r.lw, ObjectType: &metav1.PartialObjectMetadata{},
			Handler: h, ResyncPeriod: r.cfg.resync, Indexers: indexers, InOrder: r.cfg.inOrder,
			Memory: r.cfg.memory.options,
		})
		go func() {
			defer close(r.runDone)
			r.ctrl.RunWithContext(ctx)
		}()
		return
	}
	r.startSharedInformer(ctx, indexers)
}

// startSharedInformer builds the shared informer with indexers and its
// handlers, and runs it until ctx ends.
func (r *chaosRun) startSharedInformer(ctx context.Context, indexers Indexers) {
	r.inf = newSharedIndexInformer(r.lw, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{
		ResyncPeriod: r.cfg.resync, Indexers: indexers, InOrder: r.cfg.inOrder,
		Memory: r.cfg.memory.options, Snapshot: r.snapshotOptions(),
	}, r.clk)
	if r.cfg.realTime {
		r.inf.realTime = r.clk // the reflector's real time runs as fast
	}
	r.store = r.inf.GetIndexer()
	for range r.cfg.handlers {
		r.addHandler()
	}
	go func() {
		defer close(r.runDone)
		r.inf.RunWithContext(ctx)
	}()
}

// newHandler returns a new chaos handler with the next id.
func (r *chaosRun) newHandler() *chaosHandler {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := newChaosHandler(len(r.handlers), r.rules, r.sleep)
	r.handlers = append(r.handlers, h)
	return h
}

// addHandler adds a new handler to the shared informer: from the schedule,
// or from inside another handler. Half of them ask for the informer's resync
// period, the others for none.
func (r *chaosRun) addHandler() {
	h := r.newHandler()
	opts := HandlerOptions{Logger: &r.logger}
	if h.id%2 == 1 {
		var none time.Duration
		opts.ResyncPeriod = &none
	}
	reg, err := r.inf.AddEventHandlerWithOptions(h, opts)
	if err != nil {
		if !r.inf.IsStopped() {
			r.problem("add handler %d: %v", h.id, err)
		}
		h.markRemoved(removedHard)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.regs[h] = reg
}

// pick returns the n-th (modulo) of the registered handlers, by id, and its
// registration; nil when there is none.
func (r *chaosRun) pick(n int) (*chaosHandler, ResourceEventHandlerRegistration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var live []*chaosHandler
	for _, h := range r.handlers {
		if _, ok := r.regs[h]; ok && h.isRegistered() {
			live = append(live, h)
		}
	}
	if len(live) == 0 {
		if r.cfg.lowLevel && len(r.handlers) > 0 {
			return r.handlers[0], nil
		}
		return nil, nil
	}
	h := live[n%len(live)]
	return h, r.regs[h]
}

// apply carries out one step.
func (r *chaosRun) apply(s chaosStep) {
	r.stats.steps[string(s.kind)]++
	switch s.kind {
	case stepWrites:
		r.write(s.n)
	case stepCloseWatches:
		r.stats.effects["watch streams closed"] += r.srv.NumWatchStreams()
		r.srv.CloseWatchStreams()
	case stepCompact:
		r.srv.Compact()
	case stepListErrors:
		r.srv.FailNextLists(s.n, chaosErrors[s.errIndex].err)
		r.stats.steps[string(s.kind)+"/"+chaosErrors[s.errIndex].name]++
	case stepWatchErrors:
		r.srv.FailNextWatches(s.n, chaosErrors[s.errIndex].err)
		r.stats.steps[string(s.kind)+"/"+chaosErrors[s.errIndex].name]++
	case stepWatchStreamError:
		r.srv.FailNextWatchStreams(s.n, chaosErrors[s.errIndex].err)
		r.stats.steps[string(s.kind)+"/"+chaosErrors[s.errIndex].name]++
	case stepFailOpenStreams:
		for _, w := range r.srv.WatchStreams() {
			w.Fail(chaosErrors[s.errIndex].err)
			r.stats.effects["open watch streams failed"]++
		}
		r.stats.steps[string(s.kind)+"/"+chaosErrors[s.errIndex].name]++
	case stepDropEvents:
		r.srv.DropNextEvents(s.n)
		r.relistPending = true
	case stepForceRelist:
		r.forceRelist()
	case stepFreeze:
		for _, w := range r.srv.WatchStreams() {
			w.Freeze()
			r.stats.effects["watch streams frozen"]++
		}
	case stepThaw:
		r.thaw()
	case stepSlowWatcher:
		r.slowWatcher()
	case stepListLatency:
		r.srv.SetListLatency(s.d)
	case stepExpireContinues:
		r.srv.ExpireNextContinues(s.n)
	case stepReshard:
		r.reshard(s.shard)
	case stepToggleStreaming:
		r.ignoringInitialEvents = !r.ignoringInitialEvents
		r.srv.SetIgnoreSendInitialEvents(r.ignoringInitialEvents)
	case stepHandlerPanic:
		if h, _ := r.pick(s.actor); h != nil {
			h.armPanics(s.n)
		}
	case stepHandlerStall:
		if h, _ := r.pick(s.actor); h != nil {
			h.armStall(s.d)
		}
	case stepAddHandler:
		r.addHandler()
	case stepAddFromHandler:
		if h, _ := r.pick(s.actor); h != nil {
			h.arm(func(*chaosHandler) { r.addHandler() })
		}
	case stepRemoveHandler, stepShutDownHandler:
		if h, reg := r.pick(s.target); h != nil {
			r.remove(nil, h, reg, s.kind == stepShutDownHandler)
		}
	case stepRemoveSelf, stepShutDownSelf:
		if h, reg := r.pick(s.actor); h != nil {
			h.arm(func(self *chaosHandler) { r.remove(self, h, reg, s.kind == stepShutDownSelf) })
		}
	case stepRemoveFromOther, stepShutDownByOther:
		if h, _ := r.pick(s.actor); h != nil {
			h.arm(func(self *chaosHandler) {
				if target, reg := r.pick(s.target); target != nil {
					r.remove(self, target, reg, s.kind == stepShutDownByOther)
				}
			})
		}
	case stepAddIndexers:
		r.addIndexer()
	case stepStop:
		r.stats.stoppedMidChaos++
		r.stop()
	case stepRestart:
		r.restartFromSnapshot(s)
	default:
		r.problem("unknown step %s", s.kind)
	}
}

// write makes n writes.
func (r *chaosRun) write(n int) {
	for range n {
		if err := r.writer.write(); err != nil {
			r.problem("writer: %v", err)
			return
		}
	}
}

// forceRelist repairs the events dropped so far: no more are dropped, and
// the informer relists before it watches again.
func (r *chaosRun) forceRelist() {
	r.srv.DropNextEvents(0)
	r.relistPending = false
	r.lw.forceRelist.Store(true)
	for _, w := range r.srv.WatchStreams() {
		w.Fail(errExpired)
		r.stats.effects["open watch streams failed"]++
	}
}

func (r *chaosRun) thaw() {
	for _, w := range r.srv.WatchStreams() {
		w.Thaw()
	}
}

// slowWatcher freezes the open watches and writes until the server has
// closed them for not keeping up, or gives up after eight buffers' worth of
// writes (a stream whose filter the writes miss), then thaws what is left.
func (r *chaosRun) slowWatcher() {
	streams := r.srv.WatchStreams()
	for _, w := range streams {
		w.Freeze()
	}
	open := func() int {
		// A closed stream's goroutine has to run to close Done.
		r.sleep(time.Millisecond)
		n := 0
		for _, w := range streams {
			select {
			case <-w.Done():
			default:
				n++
			}
		}
		return n
	}
	chunk := max(r.cfg.server.WatchBufferSize/2, 1)
	for written := 0; written < 8*r.cfg.server.WatchBufferSize && open() > 0; written += chunk {
		r.write(chunk)
	}
	r.stats.effects["slow watch streams terminated"] += len(streams) - open()
	for _, w := range streams {
		w.Thaw()
	}
}

// reshard moves a sharded informer to the shard n picks: mostly of the same
// key, sometimes of the other.
func (r *chaosRun) reshard(n int) {
	key := r.cfg.shardKey
	if n%7 == 0 {
		key = ShardKeyUID
		if key == r.cfg.shardKey {
			key = ShardKeyNamespace
		}
	}
	count := 1 + n%3
	sel, err := ShardSelectorFor(key, (n/3)%count, count)
	if err != nil {
		r.t.Fatal(err)
	}
	if err := r.sharded.SetShardSelector(sel); err != nil {
		r.problem("set shard selector %v: %v", sel, err)
	}
}

// remove removes target (registered as reg) from the shared informer, or
// shuts it down, from inside handler self or, when self is nil, from the
// schedule, and checks the outcome.
func (r *chaosRun) remove(self, target *chaosHandler, reg ResourceEventHandlerRegistration, shutDown bool) {
	if !shutDown {
		if err := r.inf.RemoveEventHandler(reg); err != nil {
			r.problem("remove handler %d: %v", target.id, err)
		}
		if self == target {
			target.markRemoved(removedHard)
		} else {
			target.markRemoved(removedSoft)
		}
		return
	}
	if self != nil {
		self.mu.Lock()
		self.shutdownsInCall++
		self.mu.Unlock()
		r.mu.Lock()
		r.shutdownsFromHandlers++
		r.mu.Unlock()
	}
	err := ShutDownEventHandler(r.inf, reg)
	target.mu.Lock()
	targetShuttingDown := target.shutdownsInCall > 0
	target.mu.Unlock()
	switch {
	case self == target:
		if !errors.Is(err, errShutdownFromHandler) {
			r.problem("handler %d shutting itself down: %v, want %v", target.id, err, errShutdownFromHandler)
		}
		target.markRemoved(removedHard)
	case errors.Is(err, errShutdownFromHandler) && (self != nil || targetShuttingDown):
		// From inside a handler while the target was in a call, or for
		// a target whose call was itself shutting a handler down (a
		// deadlock client-go never leaves, which the wait cannot tell
		// from its own): removed, but not waited for.
		target.markRemoved(removedSoft)
	case err != nil:
		r.problem("shut down handler %d: %v", target.id, err)
		target.markRemoved(removedSoft)
	default:
		target.markRemoved(removedHard)
	}
}

// addIndexer adds the next of chaosIndexers, if any is left.
func (r *chaosRun) addIndexer() {
	if r.nextIndexer >= len(chaosIndexers) {
		return
	}
	ix := chaosIndexers[r.nextIndexer]
	r.nextIndexer++
	var err error
	if r.inf != nil {
		err = r.inf.AddIndexers(Indexers{ix.name: ix.fn})
	} else {
		err = r.store.(Indexer).AddIndexers(Indexers{ix.name: ix.fn})
	}
	if err != nil {
		r.problem("add indexer %s: %v", ix.name, err)
	}
}

// heal clears every fault: what is armed is disarmed, frozen streams thaw,
// lost events are repaired by a relist, handlers stop misbehaving (a stall
// in progress runs out).
func (r *chaosRun) heal() {
	r.logger.V(1).Info("Chaos healed")
	r.srv.FailNextLists(0, nil)
	r.srv.FailNextWatches(0, nil)
	r.srv.FailNextWatchStreams(0, nil)
	r.srv.SetListLatency(0)
	r.srv.ExpireNextContinues(0)
	if r.relistPending {
		r.forceRelist()
	}
	r.thaw()
	r.mu.Lock()
	handlers := slices.Clone(r.handlers)
	r.mu.Unlock()
	for _, h := range handlers {
		h.disarm()
	}
}

// stop stops the informer and checks that Run returns, that no handler is
// called afterwards and that the informer refuses what it must refuse once
// stopped.
func (r *chaosRun) stop() {
	r.stopped = true
	r.runCancel()
	// A handler caught shutting handlers down in a deadlock holds Run up
	// until each of its waits gives up.
	r.mu.Lock()
	limit := 2*time.Minute + time.Duration(r.shutdownsFromHandlers)*shutdownStalemate
	r.mu.Unlock()
	deadline, wallStart := r.after(limit), time.Now()
	for returned := false; !returned; {
		select {
		case <-r.runDone:
			returned = true
		case <-deadline:
			if !r.mayWaitLonger(wallStart) {
				r.problem("Run did not return within %v of its context ending", limit)
				return
			}
			deadline = r.after(time.Second)
		}
	}
	r.mu.Lock()
	handlers := slices.Clone(r.handlers)
	r.mu.Unlock()
	for _, h := range handlers {
		h.markRemoved(removedHard)
	}
	if r.inf == nil {
		return
	}
	if !r.inf.IsStopped() {
		r.problem("IsStopped is false after Run returned")
	}
	if _, err := r.inf.AddEventHandler(newChaosHandler(-1, r.rules, r.sleep)); err == nil {
		r.problem("AddEventHandler succeeded after Run returned")
	}
	if err := r.inf.AddIndexers(Indexers{"late": MetaNamespaceIndexFunc}); err == nil {
		r.problem("AddIndexers succeeded after Run returned")
	}
}

// failures returns the run's problems and its handlers' violations, and
// adds the handlers' calls to the statistics.
func (r *chaosRun) failures() []string {
	r.mu.Lock()
	out := slices.Clone(r.problems)
	handlers := slices.Clone(r.handlers)
	r.mu.Unlock()
	for _, h := range handlers {
		res := h.results()
		r.stats.notifications += res.calls
		r.stats.handlerPanics += res.panicked
		r.stats.effects["deletes of unknown objects (InOrder, lost events)"] += res.lossyDeletes
		out = append(out, res.violations...)
	}
	for k, v := range r.writer.counts {
		r.stats.writes[k] += v
	}
	for _, req := range r.srv.Requests() {
		switch {
		case req.Verb == framework.VerbList && req.Options.Continue != "":
			r.stats.effects["list pages after the first"]++
		case req.Verb == framework.VerbList:
			r.stats.effects["lists"]++
		case req.Options.SendInitialEvents != nil && *req.Options.SendInitialEvents:
			r.stats.effects["streaming lists"]++
		default:
			r.stats.effects["watches"]++
		}
	}
	r.stats.schedules++
	if r.cfg.realTime {
		r.stats.realTime++
	}
	if r.cfg.lowLevel {
		r.stats.lowLevel++
	}
	return out
}
