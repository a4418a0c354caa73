// Package conformance is one table of list/watch scenarios that every
// kube-apiserver satisfies, written once and run against any server: the
// in-memory fake of package framework in this module, and a real
// kube-apiserver in the end-to-end tests.
//
// The scenarios cover list semantics (resourceVersion "", "0", N with
// NotOlderThan and Exact), pagination with consistent pages, label and field
// selectors, option validation, too large resourceVersions, watches from a
// resourceVersion and from the current state, streaming lists with the
// initial-events-end bookmark, selector transitions, watch timeouts, write
// preconditions, shard selectors (lists, pages, watches and streaming lists
// of a shard, the shardInfo echo, the refusal of malformed selectors;
// skipped against a server that ignores them), and — for targets that
// implement [Compacter] — 410 Gone for compacted watches, exact lists and
// continue tokens. Fault injection is not part of it: it is specific to the
// fake and tested there.
//
// # What a scenario may assume
//
// kube-apiserver answers most reads from its watch cache, which trails etcd
// by a delay that is usually short and has no bound; only some reads wait
// for it to catch up. A read right after a write may therefore not see the
// write, and a watch may send its initial events from an older state and
// the later writes as events after them. A scenario asserts only what holds
// for every state of that cache. It makes its writes one at a time through
// a recorder that keeps each with the object it returned; every read is
// checked against that history: it shows the state after some number c of
// the writes (a cut), and the guarantees below bound c and fix the rest.
//
//   - G1 Writes: each write is atomic and returns the object as stored,
//     with a new resourceVersion; an update whose resourceVersion
//     precondition is stale fails with 409 Conflict; creating an existing
//     object fails with 409 AlreadyExists, updating or deleting a missing
//     one with 404.
//   - G2 Most recent: a list at resourceVersion "" and a watch from ""
//     (a streaming list, or a plain watch, which kube-apiserver turns into
//     one) show every write completed before the request.
//   - G3 Not older than N: a list at N with resourceVersionMatch
//     NotOlderThan (or N without a match and without a limit) and a
//     streaming list not older than N show every write up to the one that
//     returned N, and maybe later ones.
//   - G4 Any: a list at "0" and a watch from "0" may show any cut, even one
//     before all of the scenario's writes.
//   - G5 Exact: a list at N with Exact (or N without a match but with a
//     limit) and every page of a continue token show exactly the cut of N
//     (the first page's) and report N.
//   - G6 Not from the future: a list shows no write made after it returned;
//     the initial events of a watch show no write made after its first
//     event arrived.
//   - G7 Watch from N: a watch from N (not "0") without initial events
//     delivers the events of every write after N, exactly once, in order,
//     and nothing else: an object entering the watch's selection is ADDED,
//     one staying in it MODIFIED, one leaving it DELETED with its previous
//     state and the write's resourceVersion, a deleted one DELETED with its
//     last state and a new resourceVersion.
//   - G8 Initial events: a watch with initial events (sendInitialEvents, or
//     a plain watch from "" or "0") first sends ADDED, in any order, for the
//     selected objects of its cut (bounded by G2 to G4 and G6); then, with
//     sendInitialEvents and allowWatchBookmarks, exactly one BOOKMARK
//     annotated k8s.io/initial-events-end at a resourceVersion of the cut
//     (G10);
//     then the events of every write after the cut, as in G7. An object
//     whose update came after the cut is thus sent twice: ADDED in its
//     older state, later MODIFIED.
//   - G9 Bookmarks: only when allowWatchBookmarks asks for them and, apart
//     from the initial-events-end one, at any time; a bookmark's
//     resourceVersion is not older than the event before it and older than
//     the event after it. Without allowWatchBookmarks kube-apiserver sends
//     none, not even the initial-events-end one.
//   - G10 Ordered resourceVersions: where resourceVersions are integers (in
//     kube-apiserver and the fake, revisions that grow with every write to
//     the cluster), the events of a watch after its initial ones carry
//     increasing ones, and the
//     resourceVersion of a list or of an initial-events-end bookmark lies in
//     the span of the cut it shows: not older than the last write in it,
//     older than the first write after it. Otherwise resourceVersions are
//     compared for equality only.
//   - G11 Delivery: a watch delivers every write, each event within
//     [EventTimeout]. A scenario reads a watch until its events show the
//     objects as the scenario's writes left them (and the
//     initial-events-end bookmark when due); its last write always changes
//     what the watch selects, so that point comes only once every write was
//     delivered. No scenario waits for an event at a given moment, or
//     concludes from an event not having come yet.
//   - G12 Compaction: once [Compacter.Compact] returned, a watch from an
//     older resourceVersion fails with 410 (an ERROR event then the end of
//     the stream, or the request itself), and so do an exact list at it and
//     the continue token of a list at it.
//   - G13 Future resourceVersions: a read not older than a resourceVersion
//     the server has not reached fails, after the server's wait (3s on
//     kube-apiserver), with 504 and the ResourceVersionTooLarge cause: as the
//     error of the request or as the one ERROR event of a streaming list.
//   - G14 Validation: invalid combinations of options fail with 400 Bad
//     Request or 422 Invalid, malformed shard selectors with kube-apiserver's
//     500 and message.
//   - G15 Pages: a page holds at most limit items and a continue token while
//     items remain; the remainingItemCount, when set, counts them.
//   - G16 Selectors: label and field selectors select as apimachinery
//     evaluates them (metadata.name, metadata.namespace); a shard selector
//     selects the objects whose hashed uid or namespace is in its ranges, as
//     cache.ShardIndex places them, and a list echoes it in shardInfo.
//   - G17 Timeouts: a watch with timeoutSeconds ends by itself, without an
//     ERROR event.
//
// The scenarios and the guarantees each relies on:
//
//	list/empty                               G2
//	list/resource-version-semantics          G2 G3 G4 G6 G10
//	list/exact                               G5 G10
//	list/pagination                          G2 G5 G15
//	list/label-selector                      G2 G16
//	list/field-selector                      G2 G16
//	list/invalid-options                     G14 G15
//	list/too-large-resource-version          G13
//	watch/from-resource-version              G7 G9 G10 G11
//	watch/from-list                          G2 G7 G9 G10 G11
//	watch/initial-state                      G2 G4 G6 G8 G9 G10 G11
//	watch/initial-events-end-bookmark        G2 G6 G8 G9 G10 G11
//	watch/initial-events-without-bookmarks   G2 G6 G8 G9 G11
//	watch/initial-events-not-older-than      G3 G6 G8 G9 G10 G11
//	watch/selector-transitions               G7 G9 G10 G11 G16
//	watch/field-selector                     G7 G9 G10 G11 G16
//	watch/timeout                            G9 G17
//	watch/invalid-options                    G14
//	watch/too-large-resource-version         G13
//	write/resource-version-precondition      G1
//	write/errors                             G1
//	compaction/watch-expired                 G12
//	compaction/exact-list-expired            G12
//	compaction/continue-expired              G12 G15
//	shard/list                               G2 G16
//	shard/paginated-list                     G2 G15 G16
//	shard/namespace                          G2 G16
//	shard/watch                              G2 G7 G9 G10 G11 G16
//	shard/streaming-list                     G2 G6 G8 G9 G10 G11 G16
//	shard/malformed-selector                 G14
//
// Every write is G1. The fake of package framework runs the table with a
// watch cache that is caught up, one write behind, and as far behind as
// each request allows (Options.WatchCacheLag 0, 1 and 1000), so that the
// scenarios meet the states kube-apiserver may serve.
//
// The server under test is a [Target]. The end-to-end module calls it as:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func(t *testing.T) conformance.Target {
//			ns := createNamespace(t) // a fresh namespace per scenario
//			return &configMapTarget{client: client, namespace: ns}
//		})
//	}
//
// where configMapTarget maps the metadata-only writes of Target onto
// ConfigMaps and returns a ListerWatcher restricted to the namespace.
// Scenarios that need a server feature the target lacks (a streaming list on
// a server without watch-list, integer resourceVersions) skip themselves.
// Each scenario waits at most [EventTimeout] for any one event; the "too
// large resourceVersion" scenarios take the server's own wait (3s on a
// kube-apiserver).
package conformance
