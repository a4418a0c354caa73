package framework_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	framework "github.com/informer-go/informer/cache/testing"
)

// TestWatchCacheLagLists checks which state each kind of list reads when
// the imitated watch cache trails by two writes: "0" and not-older-than
// reads see the lagging state, never older than asked for and never going
// back; most recent and exact reads do not lag.
func TestWatchCacheLagLists(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{WatchCacheLag: 2})
	a := mustCreate(t, srv, object("ns", "a", nil))
	b := mustCreate(t, srv, object("ns", "b", nil))
	c := mustCreate(t, srv, object("ns", "c", nil))
	notOlderThan := func(rv string) metav1.ListOptions {
		return metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}
	}
	steps := []struct {
		name  string
		opts  metav1.ListOptions
		write string // created before the list
		want  page
	}{
		{name: "any lags two writes", opts: metav1.ListOptions{ResourceVersion: "0"},
			want: page{Names: []string{"ns/a"}, RV: a.ResourceVersion}},
		{name: "not older than lags no further than asked", opts: notOlderThan(b.ResourceVersion),
			want: page{Names: []string{"ns/a", "ns/b"}, RV: b.ResourceVersion}},
		{name: "any does not go back", opts: metav1.ListOptions{ResourceVersion: "0"},
			want: page{Names: []string{"ns/a", "ns/b"}, RV: b.ResourceVersion}},
		{name: "legacy not older than", opts: metav1.ListOptions{ResourceVersion: c.ResourceVersion},
			want: page{Names: []string{"ns/a", "ns/b", "ns/c"}, RV: c.ResourceVersion}},
		{name: "most recent does not lag", opts: metav1.ListOptions{}, write: "d",
			want: page{Names: []string{"ns/a", "ns/b", "ns/c", "ns/d"}, RV: "5"}},
		{name: "exact does not lag", opts: metav1.ListOptions{ResourceVersion: a.ResourceVersion, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			want: page{Names: []string{"ns/a"}, RV: a.ResourceVersion}},
		{name: "legacy exact with a limit", opts: metav1.ListOptions{ResourceVersion: a.ResourceVersion, Limit: 10},
			want: page{Names: []string{"ns/a"}, RV: a.ResourceVersion}},
		{name: "any stays until the lag passes it", opts: metav1.ListOptions{ResourceVersion: "0"}, write: "e",
			want: page{Names: []string{"ns/a", "ns/b", "ns/c"}, RV: c.ResourceVersion}},
		{name: "any follows two writes behind", opts: metav1.ListOptions{ResourceVersion: "0"}, write: "f",
			want: page{Names: []string{"ns/a", "ns/b", "ns/c", "ns/d"}, RV: "5"}},
	}
	for _, step := range steps {
		if step.write != "" {
			mustCreate(t, srv, object("ns", step.write, nil))
		}
		got, _ := mustList(t, srv, step.opts)
		if diff := cmp.Diff(step.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", step.name, diff)
		}
	}
	srv.Compact()
	got, _ := mustList(t, srv, metav1.ListOptions{ResourceVersion: "0"})
	if want := (page{Names: []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e", "ns/f"}, RV: "7"}); !cmp.Equal(want, got) {
		t.Errorf("any after a compaction: %+v, want the current state %+v", got, want)
	}
}

// TestWatchCacheLagWatches checks where watches start when the imitated
// watch cache trails by one write: the initial events show the lagging
// state, the initial-events-end bookmark carries its resourceVersion, and
// the later writes follow as live events.
func TestWatchCacheLagWatches(t *testing.T) {
	notOlderThan := metav1.ResourceVersionMatchNotOlderThan
	tests := []struct {
		name   string
		ignore bool // Options.IgnoreSendInitialEvents
		opts   func(first string) metav1.ListOptions
		want   []event
	}{
		{
			name: "streaming list not older than the first write",
			opts: func(first string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersion: first, ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true), AllowWatchBookmarks: true}
			},
			want: []event{{Type: watch.Added, Key: "ns/a", RV: "2"}, {Type: watch.Added, Key: "ns/b", RV: "3"},
				{Type: watch.Bookmark, RV: "3", Ann: initialEventsEnd}, {Type: watch.Modified, Key: "ns/a", RV: "4", Label: "1"}},
		},
		{
			name: "streaming list from the most recent does not lag",
			opts: func(string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(true), AllowWatchBookmarks: true}
			},
			want: []event{{Type: watch.Added, Key: "ns/a", RV: "4", Label: "1"}, {Type: watch.Added, Key: "ns/b", RV: "3"},
				{Type: watch.Bookmark, RV: "4", Ann: initialEventsEnd}},
		},
		{
			name: "defaulted watch from any",
			opts: func(string) metav1.ListOptions { return metav1.ListOptions{ResourceVersion: "0"} },
			want: []event{{Type: watch.Added, Key: "ns/a", RV: "2"}, {Type: watch.Added, Key: "ns/b", RV: "3"},
				{Type: watch.Modified, Key: "ns/a", RV: "4", Label: "1"}},
		},
		{
			name: "no initial events from any replays the writes after the cache",
			opts: func(string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersion: "0", ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(false)}
			},
			want: []event{{Type: watch.Modified, Key: "ns/a", RV: "4", Label: "1"}},
		},
		{
			name: "no initial events from the most recent",
			opts: func(string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersionMatch: notOlderThan, SendInitialEvents: ptr(false)}
			},
		},
		{
			name:   "legacy watch from any",
			ignore: true,
			opts: func(string) metav1.ListOptions {
				return metav1.ListOptions{ResourceVersion: "0", AllowWatchBookmarks: true}
			},
			want: []event{{Type: watch.Added, Key: "ns/a", RV: "2"}, {Type: watch.Added, Key: "ns/b", RV: "3"},
				{Type: watch.Modified, Key: "ns/a", RV: "4", Label: "1"}},
		},
		{
			name:   "legacy watch from the most recent",
			ignore: true,
			opts:   func(string) metav1.ListOptions { return metav1.ListOptions{} },
			want:   []event{{Type: watch.Added, Key: "ns/a", RV: "4", Label: "1"}, {Type: watch.Added, Key: "ns/b", RV: "3"}},
		},
		{
			name: "watch from a resourceVersion does not lag",
			opts: func(first string) metav1.ListOptions { return metav1.ListOptions{ResourceVersion: first} },
			want: []event{{Type: watch.Added, Key: "ns/b", RV: "3"}, {Type: watch.Modified, Key: "ns/a", RV: "4", Label: "1"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, framework.Options[*pom]{WatchCacheLag: 1, IgnoreSendInitialEvents: tc.ignore})
			first := mustCreate(t, srv, object("ns", "a", nil)).ResourceVersion
			mustCreate(t, srv, object("ns", "b", nil))
			mustUpdate(t, srv, object("ns", "a", map[string]string{"l": "1"}))
			w := mustWatch(t, srv, tc.opts(first))
			sentinel := mustCreate(t, srv, object("ns", "sentinel", nil))
			expectEvents(t, w, append(tc.want, event{Type: watch.Added, Key: "ns/sentinel", RV: sentinel.ResourceVersion})...)
		})
	}
}
