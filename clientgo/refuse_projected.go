package clientgo

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/informer-go/informer/cache"
)

// RefuseProjectedWrites wraps rt so that a request writing an object (POST,
// PUT or PATCH) whose body names [cache.ProjectedAnnotation] fails with an
// error wrapping [cache.ErrProjected] and never reaches the server: such a
// body is, or was copied from, an object projected by
// [cache.MemoryOptions.Keep], and would clear the fields the projection
// dropped. It fits rest.Config.Wrap:
//
//	cfg.Wrap(clientgo.RefuseProjectedWrites)
//
// The body is read to be checked (in JSON, protobuf or CBOR the
// annotation's key appears as is) and handed on unchanged. A patch
// computed as the difference between a projected object and a modified
// copy of it does not name the annotation and passes; a patch that sets or
// removes the annotation itself is refused. Other requests pass untouched.
// It is not part of client-go's API.
func RefuseProjectedWrites(rt http.RoundTripper) http.RoundTripper {
	return refuseProjected{next: rt}
}

var projectedKey = []byte(cache.ProjectedAnnotation)

// refuseProjected is the RoundTripper of RefuseProjectedWrites.
type refuseProjected struct{ next http.RoundTripper }

// RoundTrip implements http.RoundTripper.
func (r refuseProjected) RoundTrip(req *http.Request) (*http.Response, error) {
	switch req.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		return r.next.RoundTrip(req)
	}
	if req.Body == nil || req.Body == http.NoBody {
		return r.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("%s %s: read the body: %w", req.Method, req.URL, err)
	}
	if bytes.Contains(body, projectedKey) {
		return nil, fmt.Errorf("%s %s: %w", req.Method, req.URL, cache.ErrProjected)
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	out.ContentLength = int64(len(body))
	return r.next.RoundTrip(out)
}
