// Package framework provides in-memory list/watch sources for testing code
// built on the cache package: reflectors, informers and controllers.
//
// # Server: an in-memory kube-apiserver for one resource type
//
// [Server] stores objects of one type T (any runtime.Object with
// ObjectMeta: typed structs, *unstructured.Unstructured,
// *metav1.PartialObjectMetadata) and serves LIST and WATCH the way a real
// kube-apiserver with its watch cache does, so that code passing against it
// behaves the same against a cluster:
//
//	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
//	defer srv.Close()
//	srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
//	informer := cache.NewSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
//
// Writes ([Server.Create], [Server.Update], [Server.Delete]) stamp a
// monotonically increasing resourceVersion, enforce resourceVersion
// preconditions (409 Conflict), skip no-op updates, honour finalizers, and
// deep-copy objects in and out; [Server.AdvanceResourceVersion] moves the
// resourceVersion as writes to other resources do in a cluster. Lists validate their options as the apiserver
// does and implement resourceVersion ""/"0"/N with resourceVersionMatch
// Exact and NotOlderThan, limit/continue pagination over consistent
// snapshots with remainingItemCount, label selectors, field selectors
// (metadata.name, metadata.namespace and those registered in
// [Options.Fields]), namespaces ([Server.Namespace]) and shard selectors
// (KEP-5866: only the objects whose hashed uid or namespace is in the
// selector's ranges, the selector echoed in shardInfo, malformed selectors
// refused with kube-apiserver's message; [Options.IgnoreShardSelector]
// imitates a server without the feature gate). Watches start from
// ""/"0" (the current state as ADDED events) or from a resourceVersion (the
// later changes, in order), support sendInitialEvents with the
// k8s.io/initial-events-end bookmark, periodic bookmarks, timeoutSeconds and
// selector transitions, and close slow clients. History is bounded
// ([Options.HistoryLimit]) and can be compacted ([Server.Compact]); a watch
// from a compacted resourceVersion opens and delivers one ERROR event with a
// 410 Expired status. By default every read sees the newest state;
// [Options.WatchCacheLag] makes the reads that kube-apiserver may serve
// from a watch cache that has not caught up ("0", not older than N, and
// the initial events of watches from them) see an older state, within what
// the request allows, with the later writes arriving as events after the
// initial ones.
//
// Tests inject faults: failing lists and watches ([Server.FailNextLists],
// [Server.FailNextWatches], [Server.FailNextWatchStreams]), lost events
// ([Server.DropNextEvents], [WatchStream.DropNextEvents]), hanging streams
// ([WatchStream.Freeze]), closed streams ([Server.CloseWatchStreams]),
// streams that fail after they opened ([WatchStream.Fail]), expiring
// continue tokens ([Server.ExpireNextContinues]), list latency
// ([Server.SetListLatency]), short pages ([Options.MaxPageSize]), servers
// that ignore sendInitialEvents ([Options], from some point on with
// [Server.SetIgnoreSendInitialEvents]) or declare streaming lists
// unsupported ([Options]). They observe the
// traffic through [Server.Requests] and [Server.WatchStreams].
//
// All waiting uses [Options.Clock]: tests drive it with a fake clock from
// k8s.io/utils/clock/testing, or run inside a testing/synctest bubble with
// the default real clock. In a bubble, create the server inside it too, so
// that its channels and goroutines belong to the bubble, and close it before
// the bubble ends. A test binary that runs informers in bubbles calls
// [SetSynctestErrorHandlers] once, in TestMain or an init function:
// apimachinery's default error handlers rate-limit on a clock that a bubble
// turns back to 2000, and the first error an informer reports there (a
// failed list or watch) would hang the test.
//
// The conformance subpackage holds scenarios that hold against any
// kube-apiserver; they run against Server in this module and against a real
// apiserver in the end-to-end tests.
//
// # FakeControllerSource: client-go compatibility
//
// [FakeControllerSource], [FakePVControllerSource] and
// [FakePVCControllerSource] reproduce client-go's tools/cache/testing API
// for existing tests. They do not depend on k8s.io/api, so their List
// returns a *metav1.List (client-go: core/v1 List, PersistentVolumeList,
// PersistentVolumeClaimList); meta.ExtractList reads its items the same way.
// They ignore list options and offer none of Server's fidelity.
package framework
