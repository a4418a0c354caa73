// Package conformance is one table of list/watch scenarios that every
// kube-apiserver satisfies, written once and run against any server: the
// in-memory fake of package framework in this module, and a real
// kube-apiserver in the end-to-end tests.
//
// A scenario only asserts what the apiserver guarantees to clients:
// resourceVersions are compared for equality and by the order of events,
// never by value; lists are compared as sets unless pagination fixes the
// order; errors are classified with k8s.io/apimachinery/pkg/api/errors. The
// scenarios cover list semantics (resourceVersion "", "0", N with
// NotOlderThan and Exact), pagination with consistent pages, label and field
// selectors, option validation, too large resourceVersions, watches from a
// resourceVersion and from the current state, streaming lists with the
// initial-events-end bookmark, selector transitions, watch timeouts, write
// preconditions, shard selectors (lists, pages, watches and streaming lists
// of a shard, the shardInfo echo, the refusal of malformed selectors;
// skipped against a server that ignores them), and — for targets that
// implement [Compacter] — 410 Gone for compacted watches, exact lists and
// continue tokens. Fault injection is not
// part of it: it is specific to the fake and tested there.
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
