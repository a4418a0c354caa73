// Package wire counts what one client receives from kube-apiserver, on the
// wire rather than in the informer: a [Counter] gives a rest.Config a
// dialer that counts the bytes read from every TCP connection (TLS records:
// what crossed the wire, after any gzip), and a transport wrapper that
// classifies every request by its method, path and URL query — a list (one
// page of it), a streaming list (a watch with sendInitialEvents=true), a
// plain watch, or anything else — and counts the bytes of each response
// body as the client reads them (after gzip is undone).
//
// A list is counted once when its first page is asked for (a request
// without a continue token); its pages are counted as list requests. A
// streaming list counts as a list too: "lists of any kind" is
// [Traffic.Lists].
package wire
