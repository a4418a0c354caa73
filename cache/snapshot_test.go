package cache

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/informer-go/informer/cache/internal/snapshot"
	framework "github.com/informer-go/informer/cache/testing"
)

// snapshotRun is one run of an informer with a snapshot.
type snapshotRun struct {
	inf  *sharedIndexInformer
	rec  *recorder
	stop func()
}

// runSnapshotInformer runs an informer of srv in the pipeline inOrder
// selects, with snap, and a recorder as its handler, until stop or the end
// of the test.
func runSnapshotInformer(t *testing.T, srv ListerWatcher, inOrder bool, snap *SnapshotOptions) snapshotRun {
	t.Helper()
	inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: inOrder, Snapshot: snap})
	rec := newRecorder()
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	return snapshotRun{inf: inf, rec: rec, stop: runSharedInformer(t, inf)}
}

// testSnapshotOptions returns options for a snapshot in a new directory,
// written only at stop.
func testSnapshotOptions(t *testing.T) *SnapshotOptions {
	return &SnapshotOptions{Path: filepath.Join(t.TempDir(), "snap"), ClusterIdentity: "test-cluster", Interval: -1}
}

// snapshotWritten creates objects o0 to o<objects-1> on a new server, runs
// an informer with a new snapshot in the pipeline inOrder selects until it
// synced, and stops it, which writes the snapshot.
func snapshotWritten(t *testing.T, objects int, inOrder bool) (*fakeServer, *SnapshotOptions, snapshotRun) {
	t.Helper()
	srv := newTestServer(t)
	for i := range objects {
		create(t, srv, fmt.Sprintf("o%d", i))
	}
	snap := testSnapshotOptions(t)
	first := runSnapshotInformer(t, srv, inOrder, snap)
	waitForSync(t, first.inf.HasSyncedChecker())
	first.stop()
	return srv, snap, first
}

// allServerContents returns "ns/name@rv" of every object of srv, sorted.
func allServerContents(t *testing.T, srv *fakeServer) []string {
	t.Helper()
	obj, err := srv.ListWithContext(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := range obj.(*metav1.PartialObjectMetadataList).Items {
		out = append(out, testObjString(&obj.(*metav1.PartialObjectMetadataList).Items[i]))
	}
	slices.Sort(out)
	return out
}

// listRequests counts the lists among reqs: plain lists and streaming
// lists (watches asking for the initial events).
func listRequests(reqs []framework.Request) int {
	n := 0
	for _, r := range reqs {
		if r.Verb == framework.VerbList || (r.Options.SendInitialEvents != nil && *r.Options.SendInitialEvents) {
			n++
		}
	}
	return n
}

// eventStrings returns the events as strings, sorted.
func eventStrings(events []event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.String())
	}
	slices.Sort(out)
	return out
}

// TestSnapshotResume stops an informer (which writes its snapshot), changes
// the server while it is down, and runs a new informer from the snapshot:
// within the server's window it makes no list, its handler gets the
// snapshot as the initial list and then exactly the changes; past the
// window (the server compacted) it makes exactly one list at once and its
// handler gets the differences, deletions as tombstones.
func TestSnapshotResume(t *testing.T) {
	for _, mode := range queueModes {
		for _, expired := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/expired=%t", mode.name, expired), func(t *testing.T) {
				srv, snap, first := snapshotWritten(t, 10, mode.inOrder)
				st := first.inf.SyncStatus().Snapshot
				if st == nil || st.Writes != 1 || st.LastWriteResourceVersion != srv.ResourceVersion() || st.LastWriteObjects != 10 {
					t.Fatalf("after stop: snapshot status %+v, want one write of 10 objects at %s", st, srv.ResourceVersion())
				}
				snapRV := st.LastWriteResourceVersion
				before := map[string]string{}
				for _, obj := range first.inf.GetStore().List() {
					key, rv := describeObject(obj)
					before[key] = rv
				}

				o1 := touch(t, srv, "o1", "x")
				remove(t, srv, "o2")
				n1 := create(t, srv, "n1")
				var o3 *metav1.PartialObjectMetadata
				if expired {
					srv.Compact()
				} else {
					// Deleted and created again: a delete and an add
					// outside the initial list.
					remove(t, srv, "o3")
					o3 = create(t, srv, "o3")
				}
				srv.ResetRequests()

				want := allServerContents(t, srv)
				srv.ResetRequests()
				second := runSnapshotInformer(t, srv, mode.inOrder, snap)
				waitForSync(t, second.inf.HasSyncedChecker())
				waitFor(t, "store equals server", func() bool { return slices.Equal(storeContents(second.inf.GetStore()), want) })

				var initial []event
				for _, key := range slices.Sorted(func(yield func(string) bool) {
					for k := range before {
						if !yield(k) {
							return
						}
					}
				}) {
					initial = append(initial, event{Kind: "add", Key: key, RV: before[key], Initial: true})
				}
				changes := []event{
					{Kind: "update", Key: "ns/o1", RV: o1.ResourceVersion, OldRV: before["ns/o1"]},
					{Kind: "add", Key: "ns/n1", RV: n1.ResourceVersion},
				}
				wantLists := 0
				if expired {
					// As after any relist, every listed object that was
					// cached is an update, changed or not.
					changes = append(changes, event{Kind: "delete", Key: "tombstone:ns/o2", RV: before["ns/o2"]})
					for key, rv := range before {
						if key != "ns/o1" && key != "ns/o2" {
							changes = append(changes, event{Kind: "update", Key: key, RV: rv, OldRV: rv})
						}
					}
					wantLists = 1
				} else {
					changes = append(changes, event{Kind: "delete", Key: "ns/o2"}, event{Kind: "delete", Key: "ns/o3"},
						event{Kind: "add", Key: "ns/o3", RV: o3.ResourceVersion})
				}
				// The DeltaFIFO may deliver a change of one object before
				// the initial add of another.
				got := second.rec.waitForCount(t, len(initial)+len(changes))
				var gotInitial, gotChanges []event
				for _, e := range got {
					if e.Initial {
						gotInitial = append(gotInitial, e)
					} else {
						gotChanges = append(gotChanges, e)
					}
				}
				if diff := cmp.Diff(eventStrings(initial), eventStrings(gotInitial)); diff != "" {
					t.Errorf("initial list (-want +got):\n%s", diff)
				}
				if !expired {
					// The deletion carries the server's final state, whose
					// resource version the test does not know.
					for i := range gotChanges {
						if gotChanges[i].Kind == "delete" {
							gotChanges[i].RV = ""
						}
					}
				}
				if diff := cmp.Diff(eventStrings(changes), eventStrings(gotChanges)); diff != "" {
					t.Errorf("changes (-want +got):\n%s", diff)
				}
				if got := listRequests(srv.Requests()); got != wantLists {
					t.Errorf("%d lists, want %d; requests: %+v", got, wantLists, srv.Requests())
				}
				st = second.inf.SyncStatus().Snapshot
				wantStatus := SnapshotStatus{Path: snap.Path, ResumedAt: snapRV}
				if expired {
					wantStatus.NotLoaded, wantStatus.CaughtUp = "expired", true
				}
				gotStatus := SnapshotStatus{Path: st.Path, ResumedAt: st.ResumedAt, NotLoaded: st.NotLoaded, CaughtUp: st.CaughtUp}
				if diff := cmp.Diff(wantStatus, gotStatus); diff != "" {
					t.Errorf("snapshot status (-want +got):\n%s", diff)
				}
				second.stop()
				if got := second.rec.count(); got != len(initial)+len(changes) {
					t.Errorf("%d handler calls, want %d:\n%s", got, len(initial)+len(changes), formatEvents(second.rec.recorded()))
				}
			})
		}
	}
}

// TestSnapshotNotLoaded checks that a missing, corrupt, truncated or foreign
// snapshot is ignored, with its reason in the status, and the informer lists
// as usual.
func TestSnapshotNotLoaded(t *testing.T) {
	for _, mode := range queueModes {
		for _, tc := range []struct {
			name   string
			spoil  func(t *testing.T, path string, opts *SnapshotOptions)
			reason string
		}{
			{name: "missing", spoil: func(t *testing.T, path string, _ *SnapshotOptions) {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
			}, reason: "missing"},
			{name: "corrupt", spoil: func(t *testing.T, path string, _ *SnapshotOptions) {
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				b[len(b)-30] ^= 0xff
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}, reason: "corrupt"},
			{name: "truncated", spoil: func(t *testing.T, path string, _ *SnapshotOptions) {
				if err := os.Truncate(path, 40); err != nil {
					t.Fatal(err)
				}
			}, reason: "truncated"},
			{name: "garbage", spoil: func(t *testing.T, path string, _ *SnapshotOptions) {
				if err := os.WriteFile(path, []byte("not a snapshot at all"), 0o600); err != nil {
					t.Fatal(err)
				}
			}, reason: "corrupt"},
			{name: "other cluster", spoil: func(_ *testing.T, _ string, opts *SnapshotOptions) {
				opts.ClusterIdentity = "another-cluster"
			}, reason: "foreign"},
			{name: "other selector", spoil: func(_ *testing.T, _ string, opts *SnapshotOptions) {
				opts.LabelSelector = "app=web"
			}, reason: "foreign"},
		} {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				srv, snap, _ := snapshotWritten(t, 5, mode.inOrder)
				opts := *snap
				tc.spoil(t, snap.Path, &opts)
				touch(t, srv, "o1", "y")
				srv.ResetRequests()

				want := allServerContents(t, srv)
				srv.ResetRequests()
				second := runSnapshotInformer(t, srv, mode.inOrder, &opts)
				waitForSync(t, second.inf.HasSyncedChecker())
				waitFor(t, "store equals server", func() bool { return slices.Equal(storeContents(second.inf.GetStore()), want) })
				if got := listRequests(srv.Requests()); got != 1 {
					t.Errorf("%d lists, want 1", got)
				}
				events := second.rec.waitForCount(t, 5)
				for _, e := range events {
					if e.Kind != "add" || !e.Initial {
						t.Errorf("handler got %s, want only the initial list", e)
					}
				}
				if st := second.inf.SyncStatus().Snapshot; st.NotLoaded != tc.reason || st.ResumedAt != "" {
					t.Errorf("snapshot status %+v, want not loaded for %q", st, tc.reason)
				}
			})
		}
	}
}

// TestSnapshotPeriodicIsExact writes to the server while an informer takes
// snapshots every few milliseconds, and checks that every snapshot holds
// exactly the server's state at its resource version: the checkpoint is a
// consistent cut, so a resume from it neither replays nor loses a change.
func TestSnapshotPeriodicIsExact(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			// states[rv] is the server's state (name -> object rv) after the
			// write that returned rv.
			states := map[string]map[string]string{}
			current := map[string]string{}
			record := func(rv string) {
				states[rv] = maps.Clone(current)
			}
			for i := range 20 {
				o := create(t, srv, fmt.Sprintf("o%d", i))
				current[o.Name] = o.ResourceVersion
				record(o.ResourceVersion)
			}
			snap := testSnapshotOptions(t)
			snap.Interval = 2 * time.Millisecond
			run := runSnapshotInformer(t, srv, mode.inOrder, snap)
			waitForSync(t, run.inf.HasSyncedChecker())

			rng := rand.New(rand.NewPCG(1, 2))
			checked := 0
			id := run.inf.monitor.snapshot.identity("")
			dec := run.inf.monitor.snapshot.codec
			for i := range 400 {
				name := fmt.Sprintf("o%d", rng.IntN(30))
				if _, ok := current[name]; !ok {
					o := create(t, srv, name)
					current[name] = o.ResourceVersion
					record(o.ResourceVersion)
				} else if rng.IntN(4) == 0 {
					remove(t, srv, name)
					delete(current, name)
					record(srv.ResourceVersion())
				} else {
					o := touch(t, srv, name, fmt.Sprint(i))
					current[name] = o.ResourceVersion
					record(o.ResourceVersion)
				}
				if i%40 != 39 {
					continue
				}
				waitFor(t, "a snapshot", func() bool {
					st := run.inf.SyncStatus().Snapshot
					return st.Writes > 0 && st.LastWriteResourceVersion == srv.ResourceVersion()
				})
				s, err := snapshot.Load(snap.Path, id)
				if err != nil {
					t.Fatal(err)
				}
				objs, err := s.Decode(context.Background(), dec, 0)
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]string{}
				for _, obj := range objs {
					m := obj.(*metav1.PartialObjectMetadata)
					got[m.Name] = m.ResourceVersion
				}
				want, ok := states[s.Header.ResourceVersion]
				if !ok {
					t.Fatalf("snapshot at %s, which no write returned", s.Header.ResourceVersion)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("snapshot at %s (-server +snapshot):\n%s", s.Header.ResourceVersion, diff)
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("no snapshot checked")
			}
		})
	}
}

// TestSnapshotSamePathRefused runs two informers on one snapshot path: the
// second is refused the snapshot (it lists and writes nothing) and the first
// keeps it.
func TestSnapshotSamePathRefused(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			create(t, srv, "a")
			snap := testSnapshotOptions(t)
			first := runSnapshotInformer(t, srv, mode.inOrder, snap)
			waitForSync(t, first.inf.HasSyncedChecker())
			second := runSnapshotInformer(t, srv, mode.inOrder, snap)
			waitForSync(t, second.inf.HasSyncedChecker())
			second.stop()
			if st := second.inf.SyncStatus().Snapshot; st.NotLoaded != "locked" || st.Writes != 0 || st.LastError == nil {
				t.Errorf("second informer's snapshot status %+v, want locked, no writes", st)
			}
			first.stop()
			if st := first.inf.SyncStatus().Snapshot; st.Writes != 1 || st.NotLoaded != "missing" {
				t.Errorf("first informer's snapshot status %+v, want one write", st)
			}
		})
	}
}

// TestSnapshotWriteFails makes every write fail (the path is a directory,
// so the rename fails, as a full disk fails a write): the informer runs on
// and reports the failure.
func TestSnapshotWriteFails(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			create(t, srv, "a")
			snap := testSnapshotOptions(t)
			snap.Interval = time.Millisecond
			if err := os.MkdirAll(filepath.Join(snap.Path, "occupied"), 0o700); err != nil {
				t.Fatal(err)
			}
			run := runSnapshotInformer(t, srv, mode.inOrder, snap)
			waitForSync(t, run.inf.HasSyncedChecker())
			for i := range 3 {
				touch(t, srv, "a", fmt.Sprint(i))
				waitFor(t, "a failed write", func() bool { return run.inf.SyncStatus().Snapshot.WriteFailures > i })
			}
			b := create(t, srv, "b")
			waitFor(t, "the informer to go on", func() bool {
				_, ok, _ := run.inf.GetStore().GetByKey("ns/b")
				return ok
			})
			run.stop()
			st := run.inf.SyncStatus().Snapshot
			if st.Writes != 0 || st.LastError == nil || st.NotLoaded != "unreadable" {
				t.Errorf("snapshot status %+v, want failed writes", st)
			}
			_ = b
		})
	}
}

// TestSnapshotSecrets checks that Secrets are neither loaded nor written
// without AllowSecrets: an informer whose example is a Secret keeps no
// snapshot, one that meets Secret objects refuses to write them, and
// AllowSecrets writes them.
func TestSnapshotSecrets(t *testing.T) {
	secret := func(name string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: metav1.ObjectMeta{Namespace: testNamespace, Name: name},
		}
	}
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			if _, err := srv.Create(secret("s")); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				name        string
				example     runtime.Object
				allow       bool
				wantWrites  int
				wantRefused bool
			}{
				{name: "secret type", example: secret(""), wantRefused: true},
				{name: "secret objects", example: &metav1.PartialObjectMetadata{}},
				{name: "allowed", example: secret(""), allow: true, wantWrites: 1},
			} {
				t.Run(tc.name, func(t *testing.T) {
					snap := testSnapshotOptions(t)
					snap.AllowSecrets = tc.allow
					inf := newSharedIndexInformer(srv, tc.example, SharedIndexInformerOptions{InOrder: mode.inOrder, Snapshot: snap}, realClock)
					stop := runSharedInformer(t, inf)
					waitForSync(t, inf.HasSyncedChecker())
					stop()
					st := inf.SyncStatus().Snapshot
					if st.Writes != tc.wantWrites || (st.NotLoaded == "refused") != tc.wantRefused {
						t.Errorf("snapshot status %+v, want %d writes, refused %t", st, tc.wantWrites, tc.wantRefused)
					}
					if tc.wantWrites == 0 && !errors.Is(st.LastError, errSnapshotSecrets) {
						t.Errorf("last error %v, want %v", st.LastError, errSnapshotSecrets)
					}
					if _, err := os.Stat(snap.Path); (err == nil) != (tc.wantWrites > 0) {
						t.Errorf("snapshot file: %v, want one only when written", err)
					}
				})
			}
		})
	}
}

// TestSnapshotCrashMidWrite leaves what a crash in the middle of a write
// leaves, a partial temporary file beside the snapshot: the next informer
// resumes from the snapshot.
func TestSnapshotCrashMidWrite(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv, snap, _ := snapshotWritten(t, 1, mode.inOrder)
			b, err := os.ReadFile(snap.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(snap.Path+".tmp-123", b[:len(b)/2], 0o600); err != nil {
				t.Fatal(err)
			}
			srv.ResetRequests()
			second := runSnapshotInformer(t, srv, mode.inOrder, snap)
			waitForSync(t, second.inf.HasSyncedChecker())
			if got := listRequests(srv.Requests()); got != 0 {
				t.Errorf("%d lists, want none", got)
			}
			if st := second.inf.SyncStatus().Snapshot; st.ResumedAt == "" {
				t.Errorf("snapshot status %+v, want resumed", st)
			}
			if _, err := os.Stat(snap.Path + ".tmp-123"); err == nil {
				t.Errorf("the partial file was left behind")
			}
		})
	}
}

// TestSnapshotShard checks that a sharded informer's snapshot records its
// shard: the same shard resumes, another lists.
func TestSnapshotShard(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			for i := range 10 {
				create(t, srv, fmt.Sprintf("o%d", i))
			}
			snap := testSnapshotOptions(t)
			sharded := func(index int) ListerWatcher {
				sel, err := ShardSelectorFor(ShardKeyUID, index, 2)
				if err != nil {
					t.Fatal(err)
				}
				lw, err := NewShardedListWatch(srv, sel, ShardedListWatchOptions{})
				if err != nil {
					t.Fatal(err)
				}
				return lw
			}
			first := runSnapshotInformer(t, sharded(0), mode.inOrder, snap)
			waitForSync(t, first.inf.HasSyncedChecker())
			first.stop()
			for _, tc := range []struct {
				index  int
				reason string
			}{{0, ""}, {1, "foreign"}} {
				run := runSnapshotInformer(t, sharded(tc.index), mode.inOrder, snap)
				waitForSync(t, run.inf.HasSyncedChecker())
				run.stop()
				if st := run.inf.SyncStatus().Snapshot; st.NotLoaded != tc.reason || (st.ResumedAt != "") != (tc.reason == "") {
					t.Errorf("shard %d: snapshot status %+v, want not loaded for %q", tc.index, st, tc.reason)
				}
			}
		})
	}
}

// TestSnapshotNotOnInjectedClock checks that the periodic snapshots wait in
// real time, not on the informer's injected clock, which carries only
// client-go's timers: with no resync and paginated lists (a streaming list
// leaves its warning ticker on the clock), a fake clock has no waiters while
// snapshots are written.
func TestSnapshotNotOnInjectedClock(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{WatchListUnsupported: true, IgnoreSendInitialEvents: true})
			t.Cleanup(srv.Close)
			create(t, srv, "a")
			clk := testingclock.NewFakeClock(time.Now())
			snap := testSnapshotOptions(t)
			snap.Interval = time.Millisecond
			inf := newSharedIndexInformer(srv, &metav1.PartialObjectMetadata{}, SharedIndexInformerOptions{InOrder: mode.inOrder, Snapshot: snap}, clk)
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())
			for i := range 3 {
				touch(t, srv, "a", fmt.Sprint(i))
				waitFor(t, "a snapshot", func() bool {
					return inf.SyncStatus().Snapshot.LastWriteResourceVersion == srv.ResourceVersion()
				})
			}
			if clk.HasWaiters() {
				t.Error("the injected clock has waiters")
			}
		})
	}
}
