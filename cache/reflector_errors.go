package cache

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// errStopRequested ends a watch because the reflector's context ended.
var errStopRequested = errors.New("stop requested")

// veryShortWatch is the age under which a watch that closes without
// events counts as a failure (see [VeryShortWatchError]).
const veryShortWatch = time.Second

// VeryShortWatchError reports a watch whose stream closed less than a second
// after it was requested without delivering a single event: a sign of a
// misbehaving server or proxy. The reflector treats it as a failed watch and
// relists after a backoff delay.
type VeryShortWatchError struct {
	// Name is the reflector's name.
	Name string
}

// Error describes the short watch.
func (e *VeryShortWatchError) Error() string {
	return fmt.Sprintf("very short watch: %s: Unexpected watch close - watch lasted less than a second and no items received", e.Name)
}

// errWatchListStalled ends a streaming list whose end-of-initial-events
// bookmark did not arrive in time.
var errWatchListStalled = errors.New("streaming list stalled before the initial-events-end bookmark")

// errWatchListClosedEarly ends a streaming list whose stream closed without
// an error before the initial-events-end bookmark.
var errWatchListClosedEarly = errors.New("streaming list closed before the initial-events-end bookmark")

// errWatchOutlivedTimeout ends a watch still open well past the timeout the
// reflector asked the server for.
var errWatchOutlivedTimeout = errors.New("watch outlived its timeout")

// errWatchLivenessLost ends a watch that received neither an event nor a
// bookmark within its liveness timeout (see [WatchLivenessOptions]).
var errWatchLivenessLost = errors.New("watch received neither an event nor a bookmark within its liveness timeout")

// errInitialEventsNotStreamed ends a streaming list whose server turned out to
// ignore sendInitialEvents (see checkInitialEvent).
var errInitialEventsNotStreamed = errors.New("the server does not stream initial events")

// isExpiredError reports a resource version too old for the server (HTTP
// 410). Servers before Kubernetes 1.18 said Gone instead of Expired.
func isExpiredError(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// isTooLargeResourceVersionError reports a resource version newer than the
// server knows, as a status cause (Kubernetes 1.18.6 and later) or, from
// older servers, as a Timeout whose cause or message says so.
func isTooLargeResourceVersionError(err error) bool {
	if apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		return true
	}
	if !apierrors.IsTimeout(err) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	s := status.Status()
	if s.Details != nil {
		for _, cause := range s.Details.Causes {
			if cause.Message == "Too large resource version" {
				return true
			}
		}
	}
	return strings.Contains(s.Message, "Too large resource version")
}

// errMalformedResourceVersion is wrapped by the error of a list or streaming
// list whose answer carries a resource version kube-apiserver would refuse.
var errMalformedResourceVersion = errors.New("malformed resource version")

// checkResourceVersion returns an error wrapping errMalformedResourceVersion
// unless rv is "" or a decimal number, as kube-apiserver's resource versions
// are; what says where rv came from.
func checkResourceVersion(rv, what string) error {
	if rv == "" {
		return nil
	}
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil {
		return fmt.Errorf("%w %q in %s", errMalformedResourceVersion, rv, what)
	}
	return nil
}

// isInvalidResourceVersion reports that a request failed because of its
// resource version: the server sent a malformed one
// (errMalformedResourceVersion), or refused the one it was asked for as
// invalid. kube-apiserver 1.36 refuses a list at a malformed version with 400
// Bad Request, and a watch or streaming list from one with a 500 of no
// reason, both saying `resourceVersion: Invalid value: "abc"`; a 422 Invalid
// with a cause on the field "resourceVersion" says the same in API terms. So
// this is a 400, 422 or 500 whose causes name the field or, when it has none,
// whose message names the resource version. An error misjudged as such costs
// one read of the most recent state.
func isInvalidResourceVersion(err error) bool {
	if errors.Is(err, errMalformedResourceVersion) {
		return true
	}
	if !apierrors.IsBadRequest(err) && !apierrors.IsInvalid(err) && !apierrors.IsInternalError(err) {
		return false
	}
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	s := status.Status()
	if s.Details != nil && len(s.Details.Causes) > 0 {
		for _, cause := range s.Details.Causes {
			if cause.Field == "resourceVersion" || cause.Field == "metadata.resourceVersion" {
				return true
			}
		}
		return false
	}
	return namesResourceVersion(s.Message)
}

// namesResourceVersion reports whether msg mentions a resource version, in
// any case: "resource version", or "resourceVersion" as a word of its own
// (not the start of "resourceVersionMatch").
func namesResourceVersion(msg string) bool {
	const word = "resourceversion"
	msg = strings.ToLower(msg)
	if strings.Contains(msg, "resource version") {
		return true
	}
	for {
		i := strings.Index(msg, word)
		if i < 0 {
			return false
		}
		msg = msg[i+len(word):]
		if msg == "" || msg[0] < 'a' || msg[0] > 'z' {
			return true
		}
	}
}
