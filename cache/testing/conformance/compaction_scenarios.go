package conformance

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func compactionScenarios() []Scenario {
	return []Scenario{
		{Name: "compaction/watch-expired", Run: compactionWatch},
		{Name: "compaction/exact-list-expired", Run: compactionExactList},
		{Name: "compaction/continue-expired", Run: compactionContinue},
	}
}

// compact compacts the target's history, skipping targets that cannot.
func compact(t *testing.T, target Target) {
	t.Helper()
	c, ok := target.(Compacter)
	if !ok {
		t.Skip("the target cannot compact its history")
	}
	if err := c.Compact(t.Context()); err != nil {
		t.Fatalf("compact: %v", err)
	}
}

func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// compactionWatch: a watch from a compacted resourceVersion fails with 410:
// it opens, delivers one ERROR event with a 410 status and closes (as
// kube-apiserver does), or the request itself fails with 410; either way the
// client must relist.
func compactionWatch(t *testing.T, target Target) {
	r := record(t, target)
	a := r.create("a", nil)
	r.create("b", nil)
	compact(t, target)
	w, err := target.ListerWatcher().WatchWithContext(t.Context(), metav1.ListOptions{ResourceVersion: a.RV})
	if err != nil {
		if !isExpired(err) {
			t.Errorf("watch from a compacted resourceVersion: %v, want 410", err)
		}
		return
	}
	t.Cleanup(w.Stop)
	e := mustNextEvent(t, w)
	if e.Type != watch.Error || !isExpired(e.Err) {
		t.Errorf("got %v, want an ERROR with 410", e)
	}
	expectClosed(t, w)
}

// compactionExactList: an exact list at a compacted resourceVersion fails
// with 410.
func compactionExactList(t *testing.T, target Target) {
	r := record(t, target)
	a := r.create("a", nil)
	r.create("b", nil)
	compact(t, target)
	_, err := tryList(t, target, metav1.ListOptions{ResourceVersion: a.RV, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !isExpired(err) {
		t.Errorf("exact list at a compacted resourceVersion: %v, want 410", err)
	}
}

// compactionContinue: the continue token of a list whose resourceVersion
// was compacted fails with 410.
func compactionContinue(t *testing.T, target Target) {
	r := record(t, target)
	for _, name := range []string{"a", "b", "c"} {
		r.create(name, nil)
	}
	first := list(t, target, metav1.ListOptions{Limit: 1})
	if first.Continue == "" {
		t.Fatalf("no continue token from a list of 3 with limit 1: %+v", first)
	}
	r.create("d", nil)
	compact(t, target)
	if _, err := tryList(t, target, metav1.ListOptions{Limit: 1, Continue: first.Continue}); !isExpired(err) {
		t.Errorf("continue after compaction: %v, want 410", err)
	}
}
