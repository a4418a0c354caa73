package framework

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Defaults of [Options]; each applies when its field is zero or negative.
const (
	// DefaultHistoryLimit is how many changes a [Server] keeps for watches
	// and exact reads from an older resourceVersion.
	DefaultHistoryLimit = 1000
	// DefaultWatchBufferSize is how many live events a [WatchStream] buffers
	// for a slow client before the server closes it.
	DefaultWatchBufferSize = 100
	// DefaultResourceVersionTimeout is how long a request for a future
	// resourceVersion waits before failing, as the apiserver's watch cache
	// does.
	DefaultResourceVersionTimeout = 3 * time.Second
	// DefaultBookmarkInterval is how often a watch that allows bookmarks
	// receives a periodic BOOKMARK, as the apiserver's watch cache does.
	DefaultBookmarkInterval = time.Minute
)

// Options configures a [Server]. The zero value is usable: every field has a
// default. T is the server's object type.
type Options[T runtime.Object] struct {
	// Clock drives every wait of the server: list latency, the wait for a
	// future resourceVersion, watch timeouts and periodic bookmarks.
	// Defaults to the real clock, which also serves testing/synctest.
	Clock clock.Clock

	// Logger receives the server's log lines. Defaults to klog.Background()
	// when it has no sink (the zero value).
	Logger klog.Logger

	// NewList returns an empty list object whose Items can hold T values, as
	// accepted by meta.SetList. Defaults to *unstructured.UnstructuredList for
	// *unstructured.Unstructured, *metav1.PartialObjectMetadataList for
	// *metav1.PartialObjectMetadata and *[ObjectList][T] otherwise. If it
	// returns something meta.SetList rejects, every List fails with an error
	// saying so.
	NewList func() runtime.Object

	// GroupVersionKind is the kind of the objects. It is set on BOOKMARK
	// objects and, for unstructured lists, on the list ("<Kind>List"). When
	// empty, the kind of the first created object that carries one is used.
	GroupVersionKind schema.GroupVersionKind

	// GroupResource names the resource in error messages
	// (`configmaps "x" not found`). Defaults to the lower-cased kind (or Go
	// type name) plus "s".
	GroupResource schema.GroupResource

	// Fields registers field selector labels beyond metadata.name and
	// metadata.namespace, with the function that extracts each one's value
	// from an object (like the apiserver's per-type field label conversions,
	// e.g. "spec.nodeName"). A selector on a label that is neither built in
	// nor registered fails with 400 Bad Request, as on the apiserver.
	Fields map[string]func(obj T) string

	// HistoryLimit bounds the change history. Watches and exact lists from a
	// resourceVersion older than the oldest retained change fail with 410
	// Gone. Defaults to [DefaultHistoryLimit]; see also [Server.Compact].
	HistoryLimit int

	// WatchBufferSize is the number of live events a watch buffers while its
	// client does not receive. One more closes the watch, as the apiserver
	// closes a cache watcher that cannot keep up. Defaults to
	// [DefaultWatchBufferSize].
	WatchBufferSize int

	// ResourceVersionTimeout is how long a list or a streaming watch at a
	// future resourceVersion waits for the server to reach it before failing
	// with "Too large resource version". Defaults to
	// [DefaultResourceVersionTimeout].
	ResourceVersionTimeout time.Duration

	// BookmarkInterval is the period of BOOKMARK events on watches that
	// allow them; a watch with a timeout also gets one 2s before it times
	// out. As on the apiserver, a bookmark is only sent once the server's
	// resourceVersion has moved past the point the watch started from.
	// Defaults to [DefaultBookmarkInterval].
	BookmarkInterval time.Duration

	// IgnoreSendInitialEvents makes watches ignore sendInitialEvents and
	// resourceVersionMatch, as old servers and some proxies do: a watch from
	// "" or "0" gets the legacy synthetic ADDED events and no
	// initial-events-end bookmark.
	IgnoreSendInitialEvents bool

	// ValidateName checks the name (prefix false) or generateName (prefix
	// true) of a created object, returning one message per problem, like
	// apimachinery's validation.ValidateNameFunc. Defaults to
	// validation.NameIsDNSSubdomain, the rule of most resources (ConfigMaps,
	// Secrets, Pods, ...). Namespaces are always checked as DNS labels.
	ValidateName func(name string, prefix bool) []string

	// IgnoreShardSelector makes lists and watches ignore shardSelector, as
	// a kube-apiserver without the ShardedListAndWatch feature gate (or
	// older than 1.36) does: every object is returned, lists carry no
	// shardInfo, and a malformed selector is not refused. Without it, the
	// server honours shard selectors as kube-apiserver 1.36 with the gate
	// does: lists, watches and streaming lists see only the objects whose
	// hashed uid or namespace is in the selector's ranges, lists echo the
	// selector in shardInfo, and a malformed selector fails the request
	// with a 500 "invalid shard selector: ..." error.
	IgnoreShardSelector bool

	// MaxPageSize, when positive, caps the number of objects a paginated
	// list returns per page, whatever larger limit the client asked for, as
	// API conventions allow a server to do (kube-apiserver returns shorter
	// pages when selectors filter). Lists without a limit are not
	// paginated, as on the apiserver. Zero means no cap.
	MaxPageSize int64

	// WatchCacheLag makes the server answer like a kube-apiserver whose
	// watch cache trails etcd: the reads that the apiserver may serve from
	// that cache at any resourceVersion not older than the one asked for
	// see the state WatchCacheLag writes behind the newest, unless that is
	// older than the request allows. These are lists at resourceVersion
	// "0", lists not older than N (resourceVersionMatch NotOlderThan, or N
	// without a match and without a limit), and the initial events of
	// watches from "0" and of streaming lists not older than N; a watch
	// from "0" without initial events starts at that state too. The writes
	// after that state then reach such a watch as live events after its
	// initial events (and after the initial-events-end bookmark, which
	// carries the state's resourceVersion). As with one apiserver's cache,
	// the state served this way never goes back: once a read was served at
	// some resourceVersion, later ones are not older. Reads that must be
	// current or exact are not affected: resourceVersion "" (lists and
	// streaming lists), exact lists and continue tokens, watches from N.
	// Zero, the default, serves every read from the newest state.
	WatchCacheLag int

	// WatchListUnsupported makes IsWatchListSemanticsUnSupported report true,
	// as client-go's fake clientsets do, so that reflectors do not try a
	// streaming list. Combine with IgnoreSendInitialEvents to imitate such a
	// client fully.
	WatchListUnsupported bool
}

// config is the resolved form of Options.
type config[T runtime.Object] struct {
	clock           clock.Clock
	logger          klog.Logger
	newList         func() runtime.Object
	gvk             schema.GroupVersionKind
	resource        schema.GroupResource
	fields          map[string]func(obj T) string
	historyLimit    int
	bufferSize      int
	rvTimeout       time.Duration
	bookmarkEvery   time.Duration
	noWatchList     bool
	ignoreShards    bool
	maxPageSize     int64
	cacheLag        int
	validateName    func(name string, prefix bool) []string
	newEmptyObject  func() runtime.Object
	typeDescription string
}

// Server is an in-memory API server for one resource type. It stores objects
// of type T, stamps every write with a monotonically increasing
// resourceVersion, and serves LIST and WATCH with the semantics of a real
// kube-apiserver: option validation, resourceVersion and
// resourceVersionMatch rules, pagination with consistent pages, label and
// field selectors, watch from a resourceVersion, 410 Gone for compacted
// history, streaming lists with the initial-events-end bookmark, periodic
// bookmarks and slow-watcher termination. It also injects faults; see
// [Server.FailNextLists] and its siblings.
//
// Server implements cache.ListerWatcher and cache.ListerWatcherWithContext
// for all namespaces; [Server.Namespace] returns one restricted to a
// namespace. Every method is safe for concurrent use. Objects are deep-copied
// on the way in and on the way out: callers own what they pass and what they
// get back. A Server starts one goroutine per open watch; [Server.Close] stops
// them all and waits for them.
type Server[T runtime.Object] struct {
	cfg config[T]

	// wg tracks watch stream goroutines; Close waits on it.
	wg sync.WaitGroup

	mu sync.Mutex
	// rv is the current resourceVersion: that of the last write, or
	// initialResourceVersion before any.
	rv uint64
	// items holds the current state by key ("namespace/name" or "name").
	// Stored values are never mutated.
	items map[string]*stored
	// hist holds the changes after hist.compacted, oldest first.
	hist history
	// cacheRV is the newest state served to a read that a watch cache may
	// answer ([Options.WatchCacheLag]); such reads never see an older one.
	cacheRV uint64
	// rvChanged is closed and replaced whenever rv advances.
	rvChanged chan struct{}
	// streams holds the open watch streams by id.
	streams map[uint64]*WatchStream
	// streamsChanged is closed and replaced whenever a stream opens or closes.
	streamsChanged chan struct{}
	nextStreamID   uint64
	closed         bool
	// inferredGVK is the kind of the first created object that had one.
	inferredGVK schema.GroupVersionKind
	faults      faults
	// ignoreInitial is Options.IgnoreSendInitialEvents, as last set by
	// SetIgnoreSendInitialEvents.
	ignoreInitial bool
	requests      []Request
	uidSeq        uint64
	nameSeq       uint64
}

// initialResourceVersion is the resourceVersion of an empty server, like the
// first revision of a new etcd. A list never reports "0", which would mean
// "any" to a client that watches from it.
const initialResourceVersion = 1

// NewServer returns an empty server configured by opts. It starts no
// goroutine; call [Server.Close] when done with it if any watch was opened.
func NewServer[T runtime.Object](opts Options[T]) *Server[T] {
	s := &Server[T]{
		cfg:            resolveOptions(opts),
		rv:             initialResourceVersion,
		items:          map[string]*stored{},
		rvChanged:      make(chan struct{}),
		streams:        map[uint64]*WatchStream{},
		streamsChanged: make(chan struct{}),
	}
	s.hist = history{limit: s.cfg.historyLimit, compacted: initialResourceVersion}
	s.ignoreInitial = opts.IgnoreSendInitialEvents
	return s
}

func resolveOptions[T runtime.Object](opts Options[T]) config[T] {
	c := config[T]{
		clock:         opts.Clock,
		newList:       opts.NewList,
		gvk:           opts.GroupVersionKind,
		resource:      opts.GroupResource,
		fields:        opts.Fields,
		historyLimit:  opts.HistoryLimit,
		bufferSize:    opts.WatchBufferSize,
		rvTimeout:     opts.ResourceVersionTimeout,
		bookmarkEvery: opts.BookmarkInterval,
		noWatchList:   opts.WatchListUnsupported,
		ignoreShards:  opts.IgnoreShardSelector,
		maxPageSize:   opts.MaxPageSize,
		cacheLag:      opts.WatchCacheLag,
		validateName:  opts.ValidateName,
	}
	if c.clock == nil {
		c.clock = clock.RealClock{}
	}
	if c.historyLimit <= 0 {
		c.historyLimit = DefaultHistoryLimit
	}
	if c.bufferSize <= 0 {
		c.bufferSize = DefaultWatchBufferSize
	}
	if c.rvTimeout <= 0 {
		c.rvTimeout = DefaultResourceVersionTimeout
	}
	if c.bookmarkEvery <= 0 {
		c.bookmarkEvery = DefaultBookmarkInterval
	}
	if c.validateName == nil {
		c.validateName = validation.NameIsDNSSubdomain
	}

	var zero T
	typ := reflect.TypeOf(&zero).Elem()
	c.typeDescription = typ.String()
	if c.newList == nil {
		c.newList = defaultNewList[T](typ)
	}
	c.newEmptyObject = func() runtime.Object { return &metav1.PartialObjectMetadata{} }
	if typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Struct {
		elem := typ.Elem()
		c.newEmptyObject = func() runtime.Object {
			if obj, ok := reflect.New(elem).Interface().(runtime.Object); ok {
				return obj
			}
			return &metav1.PartialObjectMetadata{}
		}
	}
	if c.resource.Empty() {
		name := c.gvk.Kind
		if name == "" {
			name = typ.Name()
			if typ.Kind() == reflect.Pointer {
				name = typ.Elem().Name()
			}
		}
		c.resource = schema.GroupResource{Group: c.gvk.Group, Resource: strings.ToLower(name) + "s"}
	}
	logger := klog.Background()
	if opts.Logger.GetSink() != nil {
		logger = opts.Logger
	}
	c.logger = klog.LoggerWithValues(klog.LoggerWithName(logger, "fake-apiserver"), "type", c.typeDescription)
	return c
}

func defaultNewList[T runtime.Object](typ reflect.Type) func() runtime.Object {
	switch typ {
	case reflect.TypeFor[*unstructured.Unstructured]():
		return func() runtime.Object { return &unstructured.UnstructuredList{} }
	case reflect.TypeFor[*metav1.PartialObjectMetadata]():
		return func() runtime.Object { return &metav1.PartialObjectMetadataList{} }
	default:
		return func() runtime.Object { return &ObjectList[T]{} }
	}
}

// stored is one object as the server keeps it, with the attributes that
// selectors match on computed once.
type stored struct {
	key    string
	obj    runtime.Object // never mutated once stored
	rv     uint64
	labels map[string]string
	fields map[string]string
}

// objectKey returns the storage key of namespace/name; keys sort like the
// apiserver's etcd keys.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Close closes every open watch stream, waits for their goroutines to exit
// and makes every later request fail with 503 Service Unavailable. It is
// idempotent and blocks until the goroutines are gone.
func (s *Server[T]) Close() {
	s.mu.Lock()
	s.closed = true
	close(s.rvChanged) // wakes requests waiting for a resourceVersion
	s.rvChanged = make(chan struct{})
	streams := s.streamsLocked()
	s.mu.Unlock()
	for _, w := range streams {
		w.terminate()
	}
	s.wg.Wait()
}

// errClosed is returned by every request after Close.
func errClosed() error {
	return apierrors.NewServiceUnavailable("the fake apiserver is closed")
}

// ResourceVersion returns the current resourceVersion: that of the last
// write, or the initial one of an empty server.
func (s *Server[T]) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return formatRV(s.rv)
}

// IsWatchListSemanticsUnSupported reports whether the server declares that
// it does not support streaming lists ([Options.WatchListUnsupported]).
// client-go's reflector looks this method up by name.
func (s *Server[T]) IsWatchListSemanticsUnSupported() bool {
	return s.cfg.noWatchList
}

// List lists all namespaces; see [Server.ListWithContext].
//
// Deprecated: use [Server.ListWithContext].
func (s *Server[T]) List(options metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), options)
}

// ListWithContext lists objects of all namespaces as the apiserver would
// answer GET on the collection with options. The result is a new list object
// (see [Options.NewList]) with deep-copied items, its resourceVersion, and
// the continue token and remaining item count of a paginated list. It blocks
// for the configured list latency and, for a future resourceVersion, until
// the server reaches it or [Options.ResourceVersionTimeout] passes; ctx
// cancels both waits.
func (s *Server[T]) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return s.list(ctx, metav1.NamespaceAll, options)
}

// Watch watches all namespaces; see [Server.WatchWithContext].
//
// Deprecated: use [Server.WatchWithContext].
func (s *Server[T]) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), options)
}

// WatchWithContext opens a watch on all namespaces as the apiserver would
// answer a WATCH with options. The returned stream is a [*WatchStream]; the
// caller must Stop it (or close the server). Cancelling ctx closes the
// stream. It may block for a streaming watch at a future resourceVersion,
// like [Server.ListWithContext].
func (s *Server[T]) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	return s.watch(ctx, metav1.NamespaceAll, options)
}

// Namespace returns a ListerWatcher restricted to namespace, like a typed
// client's Pods(namespace). An empty namespace means all namespaces.
func (s *Server[T]) Namespace(namespace string) *NamespaceView[T] {
	return &NamespaceView[T]{server: s, namespace: namespace}
}

// formatRV renders a resourceVersion.
func formatRV(rv uint64) string {
	return fmt.Sprintf("%d", rv)
}

// accessorOf returns obj's metadata accessor, rejecting nil objects.
func accessorOf(obj runtime.Object) (metav1.Object, error) {
	if isNil(obj) {
		return nil, fmt.Errorf("object is nil")
	}
	return meta.Accessor(obj)
}

// isNil reports whether obj is a nil interface or a typed nil pointer.
func isNil(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return v.IsNil()
	}
	return false
}
