package cache

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-go/informer/wait"
)

// The checks of a chaos run once its faults have cleared: the informer must
// converge on the server within convergeWithin.

// convergeWithin is how long after healing the informer has to converge:
// backoff delays reach 30s (60s with jitter), and a streaming list that
// fails three times falls back to a list.
const convergeWithin = 15 * time.Minute

// converge waits until the informer agrees with the server, then checks its
// indexes; it records the differences if that takes too long.
func (r *chaosRun) converge() {
	deadline, wallStart := r.clk.Now().Add(convergeWithin), time.Now()
	for {
		diffs, onlyVersion := r.differences()
		if diffs == "" {
			break
		}
		if r.clk.Now().After(deadline) && !r.mayWaitLonger(wallStart) {
			r.problem("not converged %v after the faults cleared:\n%s", convergeWithin, diffs)
			return
		}
		if onlyVersion {
			// The last writes missed the informer's selection: in a
			// cluster, writes to other resources advance the revision
			// and bookmarks carry it. Do that, and give the next
			// bookmark time to arrive.
			if _, err := r.srv.AdvanceResourceVersion(); err != nil {
				r.problem("advance the server's resource version: %v", err)
				return
			}
			r.stats.effects["server resource version advanced"]++
			r.sleep(r.cfg.server.BookmarkInterval + time.Second)
			continue
		}
		r.sleep(5 * time.Second)
	}
	r.checkIndexes()
}

// serverState describes the objects the informer is to hold, sorted.
func (r *chaosRun) serverState() []string {
	list, err := r.srv.ListWithContext(r.ctx, metav1.ListOptions{LabelSelector: r.cfg.labelSelector})
	if err != nil {
		r.t.Fatalf("list the server: %v", err)
	}
	out := []string{}
	for i := range list.(*metav1.PartialObjectMetadataList).Items {
		obj := &list.(*metav1.PartialObjectMetadataList).Items[i]
		if r.sharded != nil {
			if ok, err := r.sharded.ShardSelector().Matches(obj); err != nil || !ok {
				continue
			}
		}
		out = append(out, describeObjectState(obj))
	}
	slices.Sort(out)
	return out
}

// storeState describes the informer's store, sorted.
func (r *chaosRun) storeState() []string {
	out := []string{}
	for _, obj := range r.store.List() {
		out = append(out, describeObjectState(obj))
	}
	slices.Sort(out)
	return out
}

// registered returns the handlers still registered with their
// registrations (for a low-level informer: its one handler, without).
func (r *chaosRun) registered() ([]*chaosHandler, []ResourceEventHandlerRegistration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var hs []*chaosHandler
	var regs []ResourceEventHandlerRegistration
	for _, h := range r.handlers {
		if !h.isRegistered() {
			continue
		}
		reg, ok := r.regs[h]
		if !ok && !r.cfg.lowLevel {
			continue
		}
		hs, regs = append(hs, h), append(regs, reg)
	}
	return hs, regs
}

// differences describes how the informer differs from the server, "" when
// it has converged: its store (keys, resource versions and uids), its
// resource version, its sync, and each registered handler's sync and view.
// onlyVersion reports that the resource version is all that differs.
func (r *chaosRun) differences() (_ string, onlyVersion bool) {
	var diffs []string
	want, got := r.serverState(), r.storeState()
	if diff := cmp.Diff(want, got); diff != "" {
		diffs = append(diffs, fmt.Sprintf("store (-server +store):\n%s", diff))
	}
	synced, lastRV := false, ""
	if r.inf != nil {
		synced, lastRV = r.inf.HasSynced(), r.inf.LastSyncResourceVersion()
	} else {
		synced, lastRV = r.ctrl.HasSynced(), r.ctrl.LastSyncResourceVersion()
	}
	if !synced {
		diffs = append(diffs, "informer not synced\n")
	}
	hs, regs := r.registered()
	for i, h := range hs {
		if regs[i] != nil && !regs[i].HasSynced() {
			diffs = append(diffs, fmt.Sprintf("handler %d not synced\n", h.id))
		}
		if diff := cmp.Diff(got, h.viewContents()); diff != "" {
			diffs = append(diffs, fmt.Sprintf("handler %d's view (-store +view):\n%s", h.id, diff))
		}
	}
	if rv := r.srv.ResourceVersion(); lastRV != rv {
		onlyVersion = len(diffs) == 0
		diffs = append(diffs, fmt.Sprintf("LastSyncResourceVersion %q, server at %q\n", lastRV, rv))
	}
	if len(diffs) == 0 {
		r.stats.objects += len(got) * (1 + len(hs))
	}
	return strings.Join(diffs, ""), onlyVersion
}

// checkIndexes checks every index of the store against the index function
// applied to the stored objects.
func (r *chaosRun) checkIndexes() {
	indexer, ok := r.store.(Indexer)
	if !ok {
		r.problem("the store is a %T, not an Indexer", r.store)
		return
	}
	objs := indexer.List()
	for name, fn := range indexer.GetIndexers() {
		want := map[string][]string{}
		for _, obj := range objs {
			key, err := DeletionHandlingMetaNamespaceKeyFunc(obj)
			if err != nil {
				r.problem("key of %T: %v", obj, err)
				continue
			}
			values, err := fn(obj)
			if err != nil {
				r.problem("index %s of %s: %v", name, key, err)
				continue
			}
			for _, v := range values {
				want[v] = append(want[v], key)
			}
		}
		got := map[string][]string{}
		for _, v := range indexer.ListIndexFuncValues(name) {
			keys, err := indexer.IndexKeys(name, v)
			if err != nil {
				r.problem("index %s, value %s: %v", name, v, err)
				continue
			}
			if len(keys) > 0 {
				got[v] = keys
			}
		}
		for _, m := range []map[string][]string{want, got} {
			for _, keys := range m {
				slices.Sort(keys)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			r.problem("index %s (-objects +index):\n%s", name, diff)
		}
	}
}

// mayWaitLonger reports whether a run in real time, which has waited past
// a deadline of its clock since wallStart, may wait longer: a loaded
// machine (go test runs packages in parallel, under the race detector) can
// slow the informer more than a clock a hundred times faster than the wall
// clock allows for, so such runs wait at least wait.ForeverTestTimeout.
func (r *chaosRun) mayWaitLonger(wallStart time.Time) bool {
	return r.cfg.realTime && time.Since(wallStart) < wait.ForeverTestTimeout
}
