// Package cache keeps a local, indexed, eventually consistent copy of a set of
// Kubernetes-style objects and tells handlers about every change. It is a
// faithful reimplementation of k8s.io/client-go/tools/cache: the exported API
// and its documented behaviour are the same, so code written against
// client-go compiles and behaves the same after swapping the import path.
//
// The pipeline:
//
//	ListerWatcher ─► Reflector ─► DeltaFIFO ─► Indexer ─► processor ─► listener ─► handler
//	 (list+watch)    (RVs, relist,  (per-key     (store +    (fan-out)   (chunked queue,
//	                  backoff)      deltas)      indexes)                 own goroutine)
//
// The storage layer is [Store], [Indexer] and [ThreadSafeStore]; the queues
// are [DeltaFIFO], [RealFIFO] and [FIFO]; keys come from a [KeyFunc], by
// default [MetaNamespaceKeyFunc]. The stores' engine, the object table and
// the indexes without any lock, is the internal package cache/internal/store.
//
// # Sources
//
// This package does not depend on k8s.io/client-go, so it has no Getter and
// no NewListWatchFromClient: the nested module
// github.com/informer-go/informer/clientgo has both (clientgo.Getter,
// clientgo.NewListWatchFromClient), and so has its drop-in package
// github.com/informer-go/informer/clientgo/cache.
// [NewListWatchFromTypedClient] adapts, in one line, any client with List and
// Watch: a typed clientset's resource client (clientset.CoreV1().Pods(ns)),
// the dynamic client's (dynamicClient.Resource(gvr).Namespace(ns)) or the
// metadata client's (metadataClient.Resource(gvr).Namespace(ns)), and their
// fakes. A [ListWatch] made of two functions adapts anything else.
// [Reflector] describes how lists, streaming lists, watches, relists and
// backoff behave against a server.
//
// A source that is not a kube-apiserver should opt out of streaming lists:
// the reflector first asks for one (a watch with SendInitialEvents), and a
// source that ignores the option keeps it waiting for the end bookmark until
// the source sends a change or a bookmark, or until
// [ReflectorOptions].WatchListStallTimeout passes without a new object.
// Either fail such watches with an error (the reflector then lists), or wrap
// the source with [ToListWatcherWithWatchListSemantics] and a value whose
// IsWatchListSemanticsUnSupported method returns true.
// [NewListWatchFromTypedClient] does so by itself for client-go's fake
// clients.
//
// client-go's generated listers (corev1listers and friends) and
// controller-runtime take client-go's own Indexer and SharedIndexInformer
// types, not this package's: the clientgo module's AsIndexer and
// AsSharedIndexInformer adapt them, and its informers package is a drop-in
// for client-go's generated SharedInformerFactory. Without it, use
// [NewGenericLister] or a [TypedIndexer].
//
// Tombstones: [DeletionHandlingMetaNamespaceKeyFunc],
// [DeletionHandlingObjectToName] and the typed handlers' [DeletedObject]
// recognise client-go's DeletedFinalStateUnknown as well as this package's,
// so that handlers written against this package also work on client-go's
// informers.
//
// # Informers and queue modes
//
// [NewSharedIndexInformerWithOptions] and [NewInformerWithOptions] build the
// whole pipeline. The queue between the reflector and the store is the one
// deliberate difference from client-go v0.37.2, chosen with the InOrder field
// of [SharedIndexInformerOptions] and [InformerOptions]:
//
//   - InOrder false (the default here): a [DeltaFIFO] that knows the store's
//     objects. Changes to one object that pile up while the informer is busy
//     are processed together, so each handler sees the changes of an object in
//     order, but changes of different objects not necessarily in watch order.
//     A deletion of an object that was never stored and is not queued is
//     dropped, and consecutive deletions collapse into one. Handlers get a
//     relist as adds and updates in list order, then
//     [DeletedFinalStateUnknown] tombstones for the objects that disappeared.
//     A relist that finds no change queued (the initial list always does)
//     writes the whole list to the store in one step before the handlers
//     hear of it; one that finds changes queued is processed object by
//     object. Likewise a resync that finds nothing queued is one step.
//     Bookmarks do not reach the store.
//   - InOrder true (client-go v0.37.2's default): a [RealFIFO] with atomic
//     events. Every watch event is processed on its own, in watch order,
//     deletions of never-seen objects included. A relist replaces the store's
//     contents in one step; handlers then get the tombstones first and the
//     adds and updates in list order. A resync is one step. Up to 1000 events
//     for distinct objects are written to the store in one transaction before
//     their handlers run, and bookmarks reach the store's resource version.
//
// In both modes an informer, and each handler registration, reports synced
// only after the last object of the initial list has been processed (for a
// registration: after its handler returned from that object's OnAdd), each
// handler runs on its own goroutine and sees the changes of an object in
// order, and a slow handler delays no other handler and not the store.
//
// # Clocks
//
// A clock injected into a reflector ([ReflectorOptions].Clock) or an informer
// carries the timers client-go v0.37.2 puts on it and no other: the resync
// period, the delays before retrying a throttled or refused watch, and the
// ticker of the warning about a streaming list awaiting its bookmark. Tests
// written for client-go that wait for a fake clock's waiters and step it see
// the same waiters at every point. Everything else waits in real time: the
// backoff delay between two list-and-watch cycles (in real time in client-go
// too) and the safety timers client-go does not have (the bound on a watch's
// life, the streaming-list stall timeout, watch liveness, the delays before
// reopening watches that keep closing at once). Inside a testing/synctest
// bubble real time is the bubble's virtual time, so tests there control both.
//
// # Beyond client-go: handlers
//
// A registration may bound the backlog of its handler
// ([HandlerOptions].Coalesce merges pending notifications per object,
// MaxBacklog caps them and later replays what changed from the store), and
// [AddEventHandlerWithContext] registers a handler until a context ends.
// [InformerFactory] shares one informer per object type and selection.
//
// # Bad input
//
// Servers, proxies and ListerWatchers can misbehave. Whatever they send, a
// reflector, and an informer built on one, does not panic, keeps in its store
// only objects that were listed or watched, and waits a backoff delay (800ms
// doubling to 30s, see [Reflector]) between attempts that keep failing; once
// the input is good again, store and handlers catch up with the server.
// Errors that reach the watch error handler ([DefaultWatchErrorHandler]
// unless set otherwise) are those of a failed list or of a watch that could
// not be started; "reported" below means logged through
// utilruntime.HandleErrorWithContext. Each row is a case of TestBadInput
// (bad_input_test.go), named by its first column and run in both queue
// modes: ten minutes of virtual time with the bad input (counting requests,
// checking the store), then fifteen more after the source healed.
//
//	Input                        What happens
//	---------------------------  ---------------------------------------------------------
//	nil list                     A list that returns neither a list nor an error (or a nil
//	                             pointer) fails: error handler, relist after a backoff
//	                             delay. The store keeps what it had; an informer stays
//	                             unsynced until a list succeeds.
//	nil watch                    A watch that returns neither a watch nor an error fails:
//	                             a streaming list falls back to a paginated list at once;
//	                             a watch goes to the error handler and relists after a
//	                             backoff delay.
//	watch closed at once,        A watch closed within a second without an event is a
//	forever                      VeryShortWatchError: a streaming list falls back to a
//	                             paginated list at once; a watch relists after a backoff
//	                             delay, logged as a warning.
//	watch closed after each      Events are applied; the watch is reopened from the last
//	event, forever               resource version at once, but after a backoff delay
//	                             once two watches in a row ended within a second.
//	watch that never sends and   A streaming list is abandoned after WatchListStallTimeout
//	never closes                 (a warning) for paginated lists, for good. A watch is
//	                             closed by the reflector a minute after the longest
//	                             timeout it asks for (11 minutes by default, logged at
//	                             verbosity 2) and reopened. The store keeps its state.
//	error events without a       An ERROR event with a nil or non-Status object ends the
//	status                       watch: a streaming list falls back to a paginated list
//	                             at once; a watch relists after a backoff delay, logged
//	                             as a warning.
//	duplicate objects in a list  The last copy of an object listed twice is kept, in the
//	                             place of the first; reported. Store and handlers see the
//	                             object once.
//	duplicate objects in a       The same: a later ADDED event of an object replaces the
//	streaming list               earlier one in place; reported.
//	objects without metadata,    Dropped from lists and watches, each reported; the rest
//	of the wrong type or nil     of the list is stored and the watch goes on.
//	tombstones with nil objects  A DeletedFinalStateUnknown whose Obj is nil (the
//	                             DeltaFIFO makes one when it cannot read a vanished
//	                             object) removes its key from the store; handlers get the
//	                             tombstone as it is, typed handlers a DeletedObject with a
//	                             zero OptionalObj.
//	malformed resource versions  A list or streaming list that asked for a version and is
//	                             answered with one that is not a decimal number is made
//	                             again at once from the most recent state (""), and so
//	                             is one the server refuses for its version (a 400, 422
//	                             or 500 naming it); a refused watch goes to the error
//	                             handler, and a relist of the most recent state follows
//	                             after a backoff delay. Logged at verbosity 2. An answer
//	                             to a request for "" is taken as it is.
//	streaming lists closed       Retried after a backoff delay; the third attempt in a
//	before their end bookmark    cycle is followed, after its delay, by a paginated list.
//	                             Logged at verbosity 2.
//	streaming lists answering    Retried at once from "" if it asked for another version,
//	410 Gone                     else after a backoff delay; the third attempt in a cycle
//	                             is followed (after its delay, if any) by a paginated
//	                             list from "".
//	ListerWatcher that panics    A panic of List or Watch is recovered and fails the call
//	                             like an error carrying the panic value: a streaming
//	                             list falls back at once; a list or watch goes to the
//	                             error handler, and a relist follows after a backoff
//	                             delay. A panic of IsWatchListSemanticsUnSupported counts
//	                             as no opt-out.
//	invalid memory options       MemoryOptions that do not fit the example object (a Keep
//	                             path its type lacks, Encode for a type with no codec)
//	                             are reported once, at construction; the informer runs
//	                             without them, keeping full objects.
//
// # Operating informers
//
// Beyond client-go, and only when asked for: [InformerSyncStatus] says what
// an informer is doing and why it has not synced (phase, attempts, the last
// list or watch error); [WaitForSync] returns that cause as a [*SyncError]
// and, with FailFast, stops at a 401, 403 or 404 instead of at the timeout;
// [WatchLivenessOptions] restarts watches that go silent; [WaitForResourceVersion]
// waits until the store reflects a write (read-your-writes); and a
// [RunMetricsProvider] gets every stage's metrics, released when the informer
// or handler stops (the nested module github.com/informer-go/informer/prometheus
// exports them to Prometheus). The reflector reports list and watch outcomes
// to its informer through a small observer; the queues number the deltas they
// take in so that a wait knows when everything up to a resource version is
// stored, in both queue modes.
//
// # Memory
//
// An informer's objects are most of its heap. [MemoryOptions] (the Memory
// field of every informer's options, nil by default) keeps them smaller,
// on the informer's write path, in the queue's transform step after the
// user's transform: DropManagedFields deletes metadata.managedFields; Keep
// projects every object to chosen field paths, metadata always included,
// and marks it ([IsProjected], [CheckWritable]); Share stores once the
// strings, byte slices and whole maps, slices and structs that repeat
// across objects (the leaf packages cache/internal/project and
// cache/internal/share do the work). Readers see ordinary objects: Get,
// List, ByIndex, listers, handlers and the old object of an update all
// read what the write path cached. Cached objects must never be mutated
// (client-go's contract); with Share a mutation corrupts other objects too.
// Encode keeps objects serialized and decodes them on read (the store's
// engine, built by newEncodedThreadSafeStore).
//
// # Shards
//
// Kubernetes 1.36 kube-apiserver with the ShardedListAndWatch feature gate
// serves a shard of a resource: the objects whose hashed uid (or namespace)
// falls in a range of the 64-bit hash space. [NewShardedListWatch] puts any
// informer on a shard from [ShardSelectorFor], filters on the client when
// the server ignores the selector, and moves a running informer to another
// shard ([ShardedListWatch.SetShardSelector]) with a delete for each object
// that left and an add for each that entered. The selector parser, the hash
// range math, the client-side filter, the watch's state machine and the
// handover plan are the internal package cache/internal/shard.
//
// # Restart without a relist
//
// With [SharedIndexInformerOptions].Snapshot (or
// [InformerFactoryOptions].Snapshot), an informer keeps its cache in a file,
// written every [SnapshotOptions].Interval and when it stops, and on Run
// resumes from it: the reflector watches from the snapshot's resource
// version without a list, and the snapshot's objects reach the store and the
// handlers as the initial list once that watch is open. A version the server
// no longer serves makes it list at once, as it would have without a
// snapshot. A periodic snapshot is a consistent cut: the reflector pauses
// between two watch events until the queue has applied everything
// (reflectorSnapshots in reflector_resume.go), the store's objects are
// copied, and a goroutine of the informer's snapshotKeeper
// (snapshot_keeper.go) encodes and writes them; the file format, its checks
// and the atomic write are the internal package cache/internal/snapshot,
// the encodings cache/internal/codec. [SnapshotOptions] has the contract,
// [SnapshotStatus] what an informer reports.
//
// # How the code is arranged
//
// One watch event, from the server to a handler, and the files that own each
// step:
//
//	source      ListerWatcher, ListWatch (listwatch.go, listwatch_typed.go); shards (shard_*.go)
//	reflector   list, streaming list, watch, relist, backoff (reflector*.go, watch_list.go,
//	            watch_liveness.go, pager.go); it reports to an observer (reflector_observer.go);
//	            a resume from a snapshot and its checkpoints (reflector_resume.go)
//	queue       DeltaFIFO, RealFIFO (delta_fifo.go, real_fifo.go), one write, resync and pop
//	            path in delta_queue.go, the first batch and Close in queue.go
//	controller  runs the reflector and the pop loop (controller.go); an informer's queue and
//	            how it pops, with the keys the queue computed (informer_pipeline.go)
//	processing  writes each popped change to the store (store.go, thread_safe_store.go,
//	            index.go), then tells the handler (process_deltas.go); the memory modes
//	            trim and share objects in the queue's transform step (memory_*.go)
//	processor   fans out to the handlers (processor.go), resync schedules (resync.go)
//	listener    per handler: a chunked queue (notification_queue.go), the delivery goroutine
//	            (listener.go), bounded backlogs (listener_backlog.go, coalescing_backlog.go)
//	informer    shared_informer.go, informer.go; its monitor (informer_monitor.go) keeps the
//	            sync status, run metrics and resource-version waits
//
// Pure leaves, with no goroutines and nothing of this package, are internal
// packages: the store's engine (cache/internal/store: the object table, its
// indexes, key sets and transactions) and the shard machinery
// (cache/internal/shard). The files here wrap them in the exported types.
//
// A user's controller ([New]) runs the same code as an informer's; the one
// difference, how it pops, is controllerOptions.pop (controller.go).
//
// Layers: keys → storage → queues → reflector → handlers → controller →
// listener → processor → informer → operability (waits) → factory. A file
// names only what its own layer and lower ones declare; TestLayers
// (layers_test.go, which holds the table of file → layer) fails otherwise,
// and for a new file without a layer. A lower layer that needs something
// from a higher one is handed it at construction, as a function or a small
// interface (the queue's beforeWait, the processor's shouldResync).
//
// Lock order in an informer, outermost first: startedLock, the
// resource-version tracker's, the queue's, blockDeltas, the processor's mu
// and runMu, the listener's; every other lock is a leaf (but for an
// encoded store's sources, which its AddIndexers holds around the store's
// lock), and none is held while a handler runs. sharedIndexInformer.startedLock (shared_informer.go)
// has the details.
//
// A new option goes in the exported options it belongs to
// ([SharedIndexInformerOptions], [InformerOptions], [HandlerOptions],
// [Config]) and reaches the code that uses it as a field of
// pipelineConfig (queue and processing) or controllerOptions (controller
// and reflector), never as a hidden field of an exported type or a type
// assertion. A new queue mode is a queue embedding deltaQueue with its
// deltaLog (delta_queue.go), built by newInformerPipeline; it joins the
// queue conformance test (queueImpls), the model test (queueModels), and
// the informer tests (queueModes). Test every behaviour in both pipelines.
//
// Checks before a change lands: go test -race ./... in the module (with
// TestLayers); make chaos (CHAOS_SCHEDULES=300 for a quick run) for whole
// informers under faults; make upstream-tests for client-go's own tests; go
// test -bench in cache and make bench-compare (against client-go) for
// speed; duplicates --change for code written twice.
package cache
