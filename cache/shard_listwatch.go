package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-go/informer/cache/internal/shard"
)

// ShardedListWatchOptions configures [NewShardedListWatch]. The zero value
// is usable.
type ShardedListWatchOptions struct {
	// Logger receives the log lines of the ListerWatcher. Default: the
	// logger of each request's context.
	Logger *klog.Logger

	// FallbackMetric, when set, is set to 1 when the server is seen
	// ignoring the shard selector (the ListerWatcher then filters on the
	// client) and to 0 when it is seen honouring it again.
	FallbackMetric GaugeMetric
}

// ShardedListWatch is a [ListerWatcher] that puts the reflector reading it,
// and so any informer (shared, typed or low-level) built on it, on one shard
// of a resource: it sets [metav1.ListOptions.ShardSelector] on every list,
// watch and streaming list, so that kube-apiserver sends only the objects
// whose hashed uid or namespace falls in the shard's ranges (KEP-5866,
// feature gate ShardedListAndWatch, alpha in Kubernetes 1.36).
//
//	sel, _ := cache.ShardSelectorFor(cache.ShardKeyUID, replica, replicas)
//	lw, _ := cache.NewShardedListWatch(podsListWatch, sel, cache.ShardedListWatchOptions{})
//	informer := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
//
// Fallback. A server without the feature gate, or older than 1.36, ignores
// the selector and sends everything: a list response then lacks
// [metav1.ListMeta.ShardInfo], or an event arrives for an object outside the
// shard. ShardedListWatch therefore also filters every list and every event
// on the client with the apiserver's own matcher, so the informer holds
// exactly its shard either way; with the server's help it receives only that
// shard, without it everything. The first time it sees the server ignore the
// selector it says so in the log, and [ShardedListWatch.ClientSideFiltering]
// and [ShardedListWatchOptions.FallbackMetric] report it.
//
// Resharding. [ShardedListWatch.SetShardSelector] moves the reflector to
// another shard while it runs. At the resourceVersion R its watch has
// reached, the open watch lists, at exactly R and with the watch's label and
// field selectors, the objects that leave the shard and those that enter it,
// sends a DELETED event (stamped R) for each
// leaving object and an ADDED event for each entering one, then a BOOKMARK
// at R, and goes on with a watch of the new shard from R. Handlers thus get
// OnDelete for the objects that left and OnAdd for those that entered, and
// nothing for the objects in both shards, in both informer pipelines. When
// that is not possible (the shard changes during the initial list, the new
// shard hashes another field, or R is too old for the server), the watch
// ends with a 410 Expired error instead, and the reflector relists the new
// shard: handlers then see OnUpdate, with an unchanged object, for the
// objects in both shards, as after any relist.
//
// One ShardedListWatch serves one reflector: it remembers which shard that
// reflector's state belongs to. Its methods are safe for concurrent use.
// Each watch it returns runs one goroutine, which ends when the watch is
// stopped, its context ends or the server closes it.
type ShardedListWatch struct {
	lw          ListerWatcherWithContext
	noWatchList bool
	logger      *klog.Logger
	metric      GaugeMetric

	mu sync.Mutex
	// target is the shard the reflector is to hold. Guarded by mu.
	target shard.Set
	// targetChanged is closed, and replaced, whenever target changes.
	// Guarded by mu.
	targetChanged chan struct{}
	// held is the shard of the state the reflector holds: that of its last
	// complete list or streaming list, or of the last handover. Guarded by
	// mu.
	held shard.Set
	// listing is the shard of the paginated list in progress: every page
	// asks for the first page's. Guarded by mu.
	listing shard.Set
	// clientSide records that the server was last seen ignoring the shard
	// selector; warned, that this was logged at level 0 once. Guarded by
	// mu.
	clientSide, warned bool
}

var (
	_ ListerWatcher            = (*ShardedListWatch)(nil)
	_ ListerWatcherWithContext = (*ShardedListWatch)(nil)
)

// NewShardedListWatch returns a ListerWatcher that reads lw on the shard
// selector selects; see [ShardedListWatch]. selector comes from
// [ShardSelectorFor], [UnionShardSelectors] or [ParseShardSelector]; a nil or
// empty selector selects everything (and sets no ShardSelector). It fails
// when lw is nil or the selector is not one kube-apiserver would accept.
func NewShardedListWatch(lw ListerWatcher, selector sharding.Selector, options ShardedListWatchOptions) (*ShardedListWatch, error) {
	if lw == nil || isNilObject(lw) {
		return nil, errors.New("sharded list watch: the ListerWatcher is nil")
	}
	set, err := shard.SetOf(selector)
	if err != nil {
		return nil, fmt.Errorf("sharded list watch: %w", err)
	}
	return &ShardedListWatch{
		lw:            ToListerWatcherWithContext(lw),
		noWatchList:   clientLacksWatchListSemantics(lw),
		logger:        options.Logger,
		metric:        options.FallbackMetric,
		target:        set,
		targetChanged: make(chan struct{}),
		held:          set,
		listing:       set,
	}, nil
}

// ShardSelector returns the shard the reflector is to hold, in canonical
// form (see [UnionShardSelectors]): the last one set, even if the reflector
// is still moving to it.
func (s *ShardedListWatch) ShardSelector() sharding.Selector {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.target.Selector()
}

// SetShardSelector moves the reflector to the shard selector selects, as
// described on [ShardedListWatch], and returns at once: the open watch, if
// any, hands over in the background, and a reflector between a list and a
// watch hands over when it opens the watch. Setting the current shard
// again does nothing. It fails, changing nothing, when the selector is not
// one kube-apiserver would accept.
func (s *ShardedListWatch) SetShardSelector(selector sharding.Selector) error {
	set, err := shard.SetOf(selector)
	if err != nil {
		return fmt.Errorf("set shard selector: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if set.Equal(s.target) {
		return nil
	}
	s.target = set
	close(s.targetChanged)
	s.targetChanged = make(chan struct{})
	return nil
}

// ClientSideFiltering reports whether the server was last seen ignoring
// the shard selector, so that the objects outside the shard are filtered
// out on the client: a list response without shardInfo, or an event for an
// object outside the shard. It reports false until the first response
// that shows it, and after a list response with shardInfo.
func (s *ShardedListWatch) ClientSideFiltering() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.clientSide
}

// IsWatchListSemanticsUnSupported forwards the wrapped ListerWatcher's
// answer (false if it has no such method), so that a fake client's opt-out
// of streaming lists reaches the reflector.
func (s *ShardedListWatch) IsWatchListSemanticsUnSupported() bool {
	return s.noWatchList
}

// List lists on the shard; see [ShardedListWatch.ListWithContext].
//
// Deprecated: use [ShardedListWatch.ListWithContext].
func (s *ShardedListWatch) List(options metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), options)
}

// ListWithContext lists through the wrapped ListerWatcher with the shard
// selector set and returns the list with only the shard's items (removing
// any the server sent outside it). Every page of a paginated list asks for
// the shard of its first page. The caller owns the returned list.
func (s *ShardedListWatch) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	s.mu.Lock()
	if options.Continue == "" {
		s.listing = s.target
	}
	set := s.listing
	s.mu.Unlock()

	list, err := s.listShard(ctx, options, shard.NewFilter(set))
	if err != nil || isNilObject(list) {
		return list, err
	}
	if listMeta, err := listMetaOf(list); err == nil && listMeta.GetContinue() == "" {
		// The last page: the reflector is about to hold this shard.
		s.setHeld(set)
	}
	return list, nil
}

// listShard makes one list request on the shard of f and filters its
// items on the client.
func (s *ShardedListWatch) listShard(ctx context.Context, options metav1.ListOptions, f shard.Filter) (runtime.Object, error) {
	options.ShardSelector = f.RequestSelector()
	list, err := s.lw.ListWithContext(ctx, options)
	if err != nil || isNilObject(list) {
		return list, err
	}
	removed, err := filterShardList(f, list)
	if err != nil {
		return nil, err
	}
	if !f.Everything() {
		s.observe(ctx, ShardInfoOf(list) == nil || removed > 0)
	}
	return list, nil
}

// Watch watches on the shard; see [ShardedListWatch.WatchWithContext].
//
// Deprecated: use [ShardedListWatch.WatchWithContext].
func (s *ShardedListWatch) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), options)
}

// WatchWithContext opens a watch through the wrapped ListerWatcher with the
// shard selector set, and returns one that forwards only the shard's events
// and hands over to a new shard when [ShardedListWatch.SetShardSelector]
// asks for it. A streaming list (SendInitialEvents) is on the current
// shard; a watch from a resourceVersion continues the shard of the
// reflector's last list, handing over first if the shard changed since.
// The returned watch must be stopped; it also ends with ctx.
func (s *ShardedListWatch) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	phase := shard.StartPhase(options)
	s.mu.Lock()
	target, held, changed := s.target, s.held, s.targetChanged
	if phase != shard.PhaseLive {
		// The watch starts with the shard's state: the reflector will
		// hold the target shard.
		held = target
		if phase == shard.PhaseOpaque {
			s.held = target
		}
	}
	s.mu.Unlock()

	st := streamState{stream: shard.NewStream(held, options), changed: changed}
	if !held.Equal(target) {
		// Hand over before the first event; the stream does it.
		st.pendingHandover = true
	} else {
		var err error
		if st.inner, err = s.watchShard(ctx, options, st.stream.Filter()); err != nil {
			return nil, err
		}
	}
	return s.startStream(ctx, options, st), nil
}

// watchShard opens one watch on the shard of f.
func (s *ShardedListWatch) watchShard(ctx context.Context, options metav1.ListOptions, f shard.Filter) (watch.Interface, error) {
	options.ShardSelector = f.RequestSelector()
	w, err := s.lw.WatchWithContext(ctx, options)
	if err != nil {
		return nil, err
	}
	if w == nil || isNilObject(w) {
		return nil, errors.New("watch returned neither a watch nor an error")
	}
	return w, nil
}

// targetState returns the target shard and the channel closed when it
// changes.
func (s *ShardedListWatch) targetState() (shard.Set, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.target, s.targetChanged
}

func (s *ShardedListWatch) setHeld(set shard.Set) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = set
}

// observe records whether the server was seen ignoring the shard selector,
// and reports a change: the first fallback at level 0, later changes at
// level 2.
func (s *ShardedListWatch) observe(ctx context.Context, ignored bool) {
	s.mu.Lock()
	if s.clientSide == ignored {
		s.mu.Unlock()
		return
	}
	s.clientSide = ignored
	first := ignored && !s.warned
	s.warned = s.warned || ignored
	selector := s.target.Selector().String()
	s.mu.Unlock()

	if s.metric != nil {
		value := 0.0
		if ignored {
			value = 1
		}
		s.metric.Set(value)
	}
	logger := s.loggerFor(ctx)
	switch {
	case first:
		logger.Info("The server ignores shard selectors, filtering on the client: every object is received; enable the ShardedListAndWatch feature gate of kube-apiserver (1.36+) to receive only the shard",
			"shardSelector", selector)
	case ignored:
		logger.V(2).Info("The server ignores shard selectors again, filtering on the client", "shardSelector", selector)
	default:
		logger.V(2).Info("The server honours shard selectors", "shardSelector", selector)
	}
}

// loggerFor returns the configured logger, else ctx's.
func (s *ShardedListWatch) loggerFor(ctx context.Context) klog.Logger {
	if s.logger != nil {
		return *s.logger
	}
	return klog.FromContext(ctx)
}
