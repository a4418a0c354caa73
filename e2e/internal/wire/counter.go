package wire

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
)

// Kind is the class of a request, from its method, path and URL query.
type Kind int

const (
	// List is a GET of a collection without watch=true: a whole list or
	// one page of a paginated one.
	List Kind = iota
	// StreamingList is a watch with sendInitialEvents=true: the server
	// sends the current objects as ADDED events, then a bookmark, then
	// changes.
	StreamingList
	// Watch is any other watch.
	Watch
	// Other is every other request: gets of one object, writes, discovery.
	Other

	kinds = iota
)

var kindNames = [kinds]string{"list", "streaming-list", "watch", "other"}

// String returns the kind's name: list, streaming-list, watch or other.
func (k Kind) String() string {
	if k < 0 || k >= kinds {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Classify returns the kind of req, and whether it begins a list: a list
// request without a continue token, or a streaming list.
func Classify(req *http.Request) (kind Kind, beginsList bool) {
	q := req.URL.Query()
	switch {
	case req.Method != http.MethodGet || !isCollection(req.URL.Path):
		return Other, false
	case q.Get("watch") == "true" || q.Get("watch") == "1":
		if q.Get("sendInitialEvents") == "true" {
			return StreamingList, true
		}
		return Watch, false
	default:
		return List, q.Get("continue") == ""
	}
}

// isCollection reports whether path names a collection of a resource
// (/api/v1/configmaps, /api/v1/namespaces/ns/configmaps,
// /apis/group/version/...) rather than one object, a subresource or
// anything outside the resource API.
func isCollection(path string) bool {
	segments := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(segments) >= 2 && segments[0] == "api":
		segments = segments[2:] // api, version
	case len(segments) >= 3 && segments[0] == "apis":
		segments = segments[3:] // apis, group, version
	default:
		return false
	}
	if len(segments) >= 3 && segments[0] == "namespaces" {
		segments = segments[2:] // namespaces, name: a namespaced resource follows
	}
	return len(segments) == 1 && segments[0] != ""
}

// Traffic is what a [Counter] counted.
type Traffic struct {
	// Lists counts the lists begun, of any kind: plain lists (once per
	// list, however many pages) and streaming lists.
	Lists int64
	// Requests counts the requests of each kind; a paginated list counts
	// once per page under List.
	Requests [kinds]int64
	// BodyBytes counts the bytes of the response bodies of each kind as
	// the client read them, after gzip is undone.
	BodyBytes [kinds]int64
	// WireBytes counts the bytes read from the client's TCP connections:
	// TLS records holding HTTP/2 frames, after any compression.
	WireBytes int64
}

// String returns a one-line summary of t.
func (t Traffic) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d lists, %.2f MB on the wire;", t.Lists, float64(t.WireBytes)/1e6)
	for k := range Kind(kinds) {
		if t.Requests[k] != 0 {
			fmt.Fprintf(&b, " %d %s (%.2f MB)", t.Requests[k], k, float64(t.BodyBytes[k])/1e6)
		}
	}
	return b.String()
}

// maxRequestLog bounds the requests a Counter remembers for [Counter.Requests].
const maxRequestLog = 100

// Counter counts the traffic of the clients built from the configurations
// it returns ([Counter.Config]). Its methods are safe for concurrent use;
// the zero value is not usable: call [NewCounter].
type Counter struct {
	created   time.Time
	lists     atomic.Int64
	requests  [kinds]atomic.Int64
	bodyBytes [kinds]atomic.Int64
	wireBytes atomic.Int64

	mu     sync.Mutex
	conns  []net.Conn // guarded by mu: every connection dialed, for Close
	log    []string   // guarded by mu: the first maxRequestLog requests
	closed bool       // guarded by mu: Close was called; later dials fail
}

// NewCounter returns a Counter that has counted nothing.
func NewCounter() *Counter { return &Counter{created: time.Now()} }

// Config returns a copy of cfg whose clients dial through c (counting the
// bytes they read) and whose requests c classifies and counts. client-go
// does not share the transport of a configuration with a dialer of its own
// with any other configuration, so these clients open connections of
// their own.
func (c *Counter) Config(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	dial := cfg.Dial
	if dial == nil {
		dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	cfg.Dial = func(ctx context.Context, network, address string) (net.Conn, error) {
		conn, err := dial(ctx, network, address)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed {
			_ = conn.Close()
			return nil, fmt.Errorf("dial %s: the traffic counter was closed", address)
		}
		counted := &countingConn{Conn: conn, n: &c.wireBytes}
		c.conns = append(c.conns, counted)
		return counted, nil
	}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &countingTransport{c: c, next: rt} })
	return cfg
}

// Traffic returns what c counted so far.
func (c *Counter) Traffic() Traffic {
	t := Traffic{Lists: c.lists.Load(), WireBytes: c.wireBytes.Load()}
	for k := range Kind(kinds) {
		t.Requests[k] = c.requests[k].Load()
		t.BodyBytes[k] = c.bodyBytes[k].Load()
	}
	return t
}

// Requests returns the first 100 requests counted, each as the time since
// NewCounter, its kind, method and URL path with query, in the order they
// were sent.
func (c *Counter) Requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.log...)
}

// Close closes every connection c dialed, ending their requests and the
// transport's goroutines that serve them, and makes later dials fail. Call
// it once the clients are done.
func (c *Counter) Close() {
	c.mu.Lock()
	conns := c.conns
	c.conns, c.closed = nil, true
	c.mu.Unlock()
	for _, conn := range conns {
		_ = conn.Close()
	}
}

func (c *Counter) record(req *http.Request) Kind {
	kind, begins := Classify(req)
	c.requests[kind].Add(1)
	if begins {
		c.lists.Add(1)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.log) < maxRequestLog {
		c.log = append(c.log, fmt.Sprintf("+%v %s %s %s", time.Since(c.created).Round(time.Millisecond), kind, req.Method, req.URL.RequestURI()))
	}
	return kind
}

// countingTransport counts the requests it sends and the bytes of their
// response bodies.
type countingTransport struct {
	c    *Counter
	next http.RoundTripper
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	kind := t.c.record(req)
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &countingBody{ReadCloser: resp.Body, n: &t.c.bodyBytes[kind]}
	return resp, nil
}

// WrappedRoundTripper returns the transport it wraps, for client-go's
// helpers that look through wrappers (utilnet.CloseIdleConnectionsFor).
func (t *countingTransport) WrappedRoundTripper() http.RoundTripper { return t.next }

// countingBody adds the bytes read from a response body to n.
type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// countingConn adds the bytes read from a connection to n.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}
