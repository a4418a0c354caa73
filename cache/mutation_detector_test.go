package cache

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	testingclock "k8s.io/utils/clock/testing"
)

// waitMutationReport waits for a detector to report a mutation on reports
// and checks its message.
func waitMutationReport(t *testing.T, reports <-chan string, want string) {
	t.Helper()
	select {
	case msg := <-reports:
		if msg != want {
			t.Errorf("message %q, want %q", msg, want)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("mutation not reported")
	}
}

func TestMutationDetectorRunReportsMutation(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	mutated := make(chan string, 1)
	d := NewCacheMutationDetectorWithOptions("things", MutationDetectorOptions{
		Clock:      clk,
		OnMutation: func(msg string) { mutated <- msg },
	})
	obj := storeObj("ns", "a", "1")
	d.AddObject(obj)

	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // exits when stop is closed; the test waits on done
		defer close(done)
		d.Run(stop)
	}()
	waitFor(t, "the first check", clk.HasWaiters)
	select {
	case msg := <-mutated:
		t.Fatalf("reported %q before any mutation", msg)
	default:
	}

	obj.Labels = map[string]string{"mutated": "yes"} // the bug the detector exists for
	clk.Step(time.Second)
	waitMutationReport(t, mutated, "cache things modified")
	close(stop)
	<-done
}

func TestMutationDetectorRetention(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	var reports int
	d := NewCacheMutationDetectorWithOptions("things", MutationDetectorOptions{
		Clock:          clk,
		RetainDuration: time.Minute,
		OnMutation:     func(string) { reports++ },
	}).(*defaultCacheMutationDetector)

	old := storeObj("ns", "old", "1")
	d.AddObject(old)
	d.CompareObjects() // starts the first period
	clk.Step(61 * time.Second)
	d.CompareObjects() // old moves to the retained period
	old.Labels = map[string]string{"m": "1"}
	d.CompareObjects()
	if reports != 1 {
		t.Fatalf("mutation of a retained object reported %d times, want 1", reports)
	}
	clk.Step(61 * time.Second)
	d.CompareObjects() // old is dropped
	if reports != 1 {
		t.Errorf("object still watched after two periods: %d reports", reports)
	}
}

func TestMutationDetectorIgnores(t *testing.T) {
	d := NewCacheMutationDetectorWithOptions("things", MutationDetectorOptions{OnMutation: func(string) {
		t.Error("reported a mutation")
	}}).(*defaultCacheMutationDetector)
	for _, obj := range []any{
		nil, "text", (*metav1.PartialObjectMetadata)(nil), DeletedFinalStateUnknown{Key: "a", Obj: storeObj("", "a", "1")},
	} {
		d.AddObject(obj)
	}
	d.CompareObjects()
	if len(d.cached) != 0 {
		t.Errorf("watching %d objects, want none", len(d.cached))
	}
}

func TestMutationDetectorPanicsByDefault(t *testing.T) {
	d := NewCacheMutationDetectorWithOptions("things", MutationDetectorOptions{}).(*defaultCacheMutationDetector)
	obj := storeObj("ns", "a", "1")
	d.AddObject(obj)
	obj.Name = "changed"
	defer func() {
		if r := recover(); r != "cache things modified" {
			t.Errorf("recovered %v, want the client-go panic message", r)
		}
	}()
	d.CompareObjects()
	t.Error("CompareObjects returned")
}

func TestNewCacheMutationDetectorFollowsEnvironment(t *testing.T) {
	old := mutationDetectionEnabled
	t.Cleanup(func() { mutationDetectionEnabled = old })

	mutationDetectionEnabled = false
	if _, ok := NewCacheMutationDetector("x").(dummyMutationDetector); !ok {
		t.Error("detection disabled, but the detector is not a no-op")
	}
	// The no-op detector's Run returns at once.
	NewCacheMutationDetector("x").Run(make(chan struct{}))

	mutationDetectionEnabled = true
	d, ok := NewCacheMutationDetector("x").(*defaultCacheMutationDetector)
	if !ok {
		t.Fatal("detection enabled, but the detector is a no-op")
	}
	if d.period != time.Second || d.retainDuration != 2*time.Minute || d.failureFunc != nil {
		t.Errorf("defaults: period %v, retain %v, failure func set %v", d.period, d.retainDuration, d.failureFunc != nil)
	}
}

// TestSharedInformerMutationDetectorOption checks that a detector given in
// SharedIndexInformerOptions watches the informer's objects and reports a
// cached object mutated in place, in both pipelines.
func TestSharedInformerMutationDetectorOption(t *testing.T) {
	for _, mode := range queueModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := newTestServer(t)
			create(t, srv, "a")
			clk := testingclock.NewFakeClock(time.Now())
			mutated := make(chan string, 1)
			detector := NewCacheMutationDetectorWithOptions("things", MutationDetectorOptions{
				Clock: clk,
				OnMutation: func(msg string) {
					select {
					case mutated <- msg:
					default:
					}
				},
			})
			inf := newTestInformer(srv, SharedIndexInformerOptions{InOrder: mode.inOrder, MutationDetector: detector})
			runSharedInformer(t, inf)
			waitForSync(t, inf.HasSyncedChecker())
			waitFor(t, "the detector's first check", clk.HasWaiters)

			obj, ok, err := inf.GetIndexer().GetByKey(testNamespace + "/a")
			if !ok || err != nil {
				t.Fatalf("object not cached: %v, %v", ok, err)
			}
			obj.(*metav1.PartialObjectMetadata).Labels = map[string]string{"mutated": "yes"} // the bug
			clk.Step(time.Second)
			waitMutationReport(t, mutated, "cache things modified")
		})
	}
}
