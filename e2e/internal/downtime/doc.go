// Package downtime is the restart scenario of issue 24 ("restart without a
// relist"), run against a real kube-apiserver by the e2e/restart test and
// by BenchmarkRestart of e2e/bench.
//
// A [Scenario] runs an informer of every [Library] over the ConfigMaps of
// one namespace until its store equals the server, and stops it; while
// they are all down it writes a seeded mix of creates, updates and deletes
// spread over the downtime (and, to end past the watch window, compacts
// etcd and restarts kube-apiserver); then it starts each library again
// with a fresh handler, one after the other, and measures:
//
//   - on the wire, not in the informer ([wire.Counter] on the informer's
//     own client): the lists of any kind (plain, paginated or streaming)
//     and the bytes received, from Run until the store equals the server
//     and until the informer stopped;
//   - the time from Run until the store first equals the server's
//     ConfigMaps (names and resourceVersions of a quorum list taken after
//     the changes), until the handler's view does, and until HasSynced;
//   - what the handler saw, checked by [Check] against the [Outcome] the
//     library promises: every object once, as the initial list, then
//     exactly the changes or exactly the differences of a relist — no
//     object lost, none phantom, none duplicated.
//
// The libraries ([Libraries]) and what they promise:
//
//	library                        within the window   past the window
//	client-go                      Relist               Relist
//	informer-go(-inorder)          Relist               Relist
//	informer-go(-inorder)-snapshot Resume               ResumeThenRelist
//
// The snapshot libraries set informer-go's Snapshot option in
// snapshot.go; they are skipped only while that hook is nil.
//
// A restarted informer stops once its handler's view equals the server and
// it has had as many calls as its outcome promises (the updates of a
// relist that change nothing can come after the view is right): a call
// beyond those, coming later still, is not seen. The lists are counted
// until the informer stopped.
package downtime
