package cache

import "time"

// Defaults of [WatchLivenessOptions].
const (
	// DefaultBookmarkInterval is how often kube-apiserver sends a bookmark
	// on a watch that asked for them, once its resource version has moved
	// past the watch's start.
	DefaultBookmarkInterval = time.Minute
	// DefaultWatchLivenessMultiple is how many bookmark intervals a watch
	// may stay silent before it is restarted.
	DefaultWatchLivenessMultiple = 3
)

// WatchLivenessOptions turns on the watch liveness check of a reflector (see
// [ReflectorOptions.WatchLiveness], [SharedIndexInformerOptions.WatchLiveness]).
// It is not part of client-go's API.
//
// Every watch of a reflector asks the server for bookmarks. With the check,
// a watch that receives neither an event nor a bookmark for Multiple times
// BookmarkInterval is stopped and a new one is started at once from the last
// resource version the reflector saw: no relist, no backoff delay. A
// connection that went half-open (a dead peer, a stuck load balancer) then
// costs at most that long instead of the up to ten minutes until the watch
// timeout, after which the reflector itself closes a watch the server did
// not (see [Reflector]). Restarts are logged at verbosity 2 and counted in
// the watch restarts metric with [WatchRestartLiveness].
//
// It is off by default because a silent watch is not always a dead one:
// kube-apiserver sends a periodic bookmark only when the resource version of
// the watched resource has moved past the watch's start, so a watch on a
// resource nobody writes gets no bookmark at all, and with the check it is
// restarted every Multiple × BookmarkInterval. Such a restart is cheap (one
// watch request from the same resource version, served from the watch cache)
// and no worse than the periodic restart at the watch timeout, but it is
// traffic a healthy idle informer does not need, and aggregated API servers
// and proxies may send bookmarks rarely or never. Turn it on where silent
// connections are a known risk and the resources change at least every few
// minutes.
//
// The liveness timeout runs in real time, not on an injected clock
// ([ReflectorOptions.Clock]), which carries only client-go's timers.
//
// It pays off over HTTP/1.1, where each watch has a connection of its own:
// the new watch opens a fresh connection, while without the check a dead one
// goes unnoticed until the reflector's bound on a watch's life. Over HTTP/2 the new watch is another stream on the
// same connection, so when the connection is dead it shares its fate until
// the transport's ping gives up on the connection (about 45 seconds with
// client-go's defaults: a ping after 30 seconds without frames, then 15
// seconds for its answer), which ends the silent watch too. Measured against a black-holed
// HTTP/1.1 watch, a reflector with the check found it in 5 seconds, where
// client-go had not recovered after 12 minutes.
//
// The zero value is usable: one minute, three times.
type WatchLivenessOptions struct {
	// BookmarkInterval is how often the server is expected to send a
	// bookmark to a watch that receives no events. Zero or negative means
	// [DefaultBookmarkInterval], kube-apiserver's period.
	BookmarkInterval time.Duration

	// Multiple is how many BookmarkIntervals a watch may receive nothing
	// before it is restarted. Zero or negative means
	// [DefaultWatchLivenessMultiple]. Below 2, one late bookmark restarts a
	// healthy watch.
	Multiple int
}

// timeout returns how long a watch may stay silent under o: zero (no bound)
// for nil options.
func (o *WatchLivenessOptions) timeout() time.Duration {
	if o == nil {
		return 0
	}
	interval, multiple := o.BookmarkInterval, o.Multiple
	if interval <= 0 {
		interval = DefaultBookmarkInterval
	}
	if multiple <= 0 {
		multiple = DefaultWatchLivenessMultiple
	}
	return time.Duration(multiple) * interval
}
