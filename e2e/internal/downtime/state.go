package downtime

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// serverState lists the ConfigMaps of the namespace from etcd (a quorum
// read) and returns their names and resourceVersions.
func (s *Scenario) serverState(ctx context.Context, client kubernetes.Interface) (map[string]string, error) {
	list, err := client.CoreV1().ConfigMaps(s.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list the ConfigMaps of %s: %w", s.Namespace, err)
	}
	state := make(map[string]string, len(list.Items))
	for _, cm := range list.Items {
		state[cm.Name] = cm.ResourceVersion
	}
	return state, nil
}

// storeState returns the names and resourceVersions of the objects in
// store.
func storeState(store Store) map[string]string {
	objs := store.List()
	state := make(map[string]string, len(objs))
	for _, obj := range objs {
		name, rv := nameAndVersion(obj)
		state[name] = rv
	}
	return state
}

// storeEquals reports whether store holds exactly the objects of state, at
// their resourceVersions.
func storeEquals(store Store, state map[string]string) bool {
	objs := store.List()
	if len(objs) != len(state) {
		return false
	}
	for _, obj := range objs {
		name, rv := nameAndVersion(obj)
		if want, ok := state[name]; !ok || want != rv {
			return false
		}
	}
	return true
}

// diffStates describes how got differs from want: the numbers of names
// missing, extra and at another version, with a few of each; empty if
// they are equal.
func diffStates(want, got map[string]string) string {
	var missing, extra, stale []string
	for name, rv := range want {
		switch have, ok := got[name]; {
		case !ok:
			missing = append(missing, name)
		case have != rv:
			stale = append(stale, fmt.Sprintf("%s at %s, not %s", name, have, rv))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			extra = append(extra, name)
		}
	}
	var parts []string
	for _, d := range []struct {
		what  string
		items []string
	}{{"missing", missing}, {"extra", extra}, {"at another version", stale}} {
		if len(d.items) == 0 {
			continue
		}
		slices.Sort(d.items)
		const shown = 5
		list := d.items[:min(shown, len(d.items))]
		parts = append(parts, fmt.Sprintf("%d %s (%s%s)", len(d.items), d.what, strings.Join(list, ", "),
			map[bool]string{true: ", ...", false: ""}[len(d.items) > shown]))
	}
	return strings.Join(parts, "; ")
}

// forgetHistory compacts etcd at its current revision and restarts
// kube-apiserver, whose watch cache then starts from that revision: a
// watch from any older resourceVersion fails with 410 Gone. It returns
// once the watch cache of ConfigMaps serves again.
func (s *Scenario) forgetHistory(ctx context.Context, client kubernetes.Interface) error {
	rev, err := s.Cluster.CompactEtcd(ctx)
	if err != nil {
		return fmt.Errorf("compact etcd: %w", err)
	}
	began := time.Now()
	if err := s.Cluster.RestartAPIServer(ctx); err != nil {
		return err
	}
	if err := s.waitForWatchCache(ctx, client); err != nil {
		return err
	}
	s.logf("compacted etcd at revision %d; kube-apiserver restarted and serving watches in %v", rev, time.Since(began).Round(time.Millisecond))
	return nil
}

// waitForWatchCache waits until a streaming list of the namespace's
// ConfigMaps (served by the watch cache only) completes, so that a
// restarted kube-apiserver does not answer the informers with "storage is
// (re)initializing" and make them list twice. The streaming list selects
// no object.
func (s *Scenario) waitForWatchCache(ctx context.Context, client kubernetes.Interface) error {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	opts := metav1.ListOptions{
		SendInitialEvents:    ptr.To(true),
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan,
		AllowWatchBookmarks:  true,
		FieldSelector:        "metadata.name=no-such-configmap",
	}
	var last error
	for {
		w, err := client.CoreV1().ConfigMaps(s.Namespace).Watch(ctx, opts)
		if err == nil {
			err = waitInitialEventsEnd(ctx, w)
			w.Stop()
			if err == nil {
				return nil
			}
		}
		last = err
		if sleepUntil(ctx, time.Now().Add(100*time.Millisecond)) != nil {
			return fmt.Errorf("kube-apiserver's watch cache not serving ConfigMaps after %v: %w", s.Timeout, last)
		}
	}
}

// waitInitialEventsEnd waits for the bookmark that ends the initial events
// of a streaming list.
func waitInitialEventsEnd(ctx context.Context, w watch.Interface) error {
	for {
		select {
		case e, ok := <-w.ResultChan():
			switch {
			case !ok:
				return fmt.Errorf("watch ended before its initial events did")
			case e.Type == watch.Error:
				return fmt.Errorf("watch error: %v", e.Object)
			case e.Type == watch.Bookmark:
				if m, err := meta.Accessor(e.Object); err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true" {
					return nil
				}
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// snapshotDir is the directory of lib's snapshots.
func (s *Scenario) snapshotDir(lib Library) string { return filepath.Join(s.SnapshotDir, lib.Name) }

func (s *Scenario) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}
