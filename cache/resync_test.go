package cache

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/klog/v2"
	testingclock "k8s.io/utils/clock/testing"
)

func TestProcessorDistributesSyncsOnlyToSyncingListeners(t *testing.T) {
	clk := testingclock.NewFakeClock(time.Now())
	p := newSharedProcessor(clk)
	logger := klog.Background()
	type spec struct {
		name   string
		period time.Duration
	}
	specs := []spec{{"never", 0}, {"second", time.Second}, {"minute", time.Minute}}
	recs := map[string]*recorder{}
	for _, s := range specs {
		recs[s.name] = newRecorder()
		p.addListener(newProcessorListener(logger, recs[s.name], clk, "test"), newResyncSchedule(clk.Now(), s.period, s.period))
	}
	p.run()
	defer p.stop()

	counts := func() map[string]int {
		got := map[string]int{}
		for name, r := range recs {
			got[name] = r.count()
		}
		return got
	}
	total := 0
	distributeSync := func() {
		p.distributeUpdate(pom("a", "1"), pom("a", "1"))
		p.distribute(notification{kind: addNotification, newObj: pom("marker", "1")})
		total++
		for _, r := range recs {
			r.waitFor(t, "marker", func(e []event) bool {
				n := 0
				for _, ev := range e {
					if ev.Key == "ns/marker" {
						n++
					}
				}
				return n == total
			})
		}
	}

	// Listeners start out syncing: before the first resync check, syncs
	// reach everybody (as after a relist with resync disabled).
	distributeSync()
	if diff := cmp.Diff(map[string]int{"never": 2, "second": 2, "minute": 2}, counts()); diff != "" {
		t.Errorf("calls before any resync check (-want +got):\n%s", diff)
	}

	steps := []struct {
		advance time.Duration
		due     bool
		want    map[string]int
	}{
		{advance: 0, due: false, want: map[string]int{"never": 3, "second": 3, "minute": 3}},
		{advance: time.Second, due: true, want: map[string]int{"never": 4, "second": 5, "minute": 4}},
		{advance: 500 * time.Millisecond, due: false, want: map[string]int{"never": 5, "second": 6, "minute": 5}},
		{advance: time.Minute, due: true, want: map[string]int{"never": 6, "second": 8, "minute": 7}},
	}
	for i, step := range steps {
		clk.Step(step.advance)
		if due := p.shouldResync(); due != step.due {
			t.Errorf("step %d: shouldResync() = %v, want %v", i, due, step.due)
		}
		distributeSync()
		if diff := cmp.Diff(step.want, counts()); diff != "" {
			t.Errorf("step %d: calls (-want +got):\n%s", i, diff)
		}
	}
}
