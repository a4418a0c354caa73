package synctrack

import (
	"sync"
	"testing"
)

func TestAsyncTracker(t *testing.T) {
	type step struct {
		op  byte // S=Start F=Finished U=UpstreamHasSynced
		key string
	}
	tests := []struct {
		name  string
		steps []step
		want  bool
	}{
		{name: "nothing happened", want: false},
		{name: "upstream synced, nothing pending", steps: []step{{op: 'U'}}, want: true},
		{name: "pending key", steps: []step{{'S', "a"}, {op: 'U'}}, want: false},
		{name: "key started twice finishes once", steps: []step{{'S', "a"}, {'S', "a"}, {op: 'U'}, {'F', "a"}}, want: true},
		{name: "other key pending", steps: []step{{'S', "a"}, {'S', "b"}, {op: 'U'}, {'F', "a"}}, want: false},
		{name: "finishing unknown key", steps: []step{{'S', "a"}, {op: 'U'}, {'F', "z"}}, want: false},
		{name: "done is final", steps: []step{{op: 'U'}, {'S', "a"}}, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewAsyncTracker[string]("async")
			for _, s := range tc.steps {
				switch s.op {
				case 'S':
					tr.Start(s.key)
				case 'F':
					tr.Finished(s.key)
				case 'U':
					tr.UpstreamHasSynced()
				}
			}
			if got := tr.HasSynced(); got != tc.want {
				t.Fatalf("HasSynced() = %v, want %v", got, tc.want)
			}
			if got := isClosed(tr.Done()); got != tc.want {
				t.Fatalf("Done() closed = %v, want %v", got, tc.want)
			}
			if tr.Name() != "async" {
				t.Fatalf("Name() = %q", tr.Name())
			}
		})
	}
}

func TestAsyncTrackerConcurrent(t *testing.T) {
	tr := NewAsyncTracker[int]("concurrent")
	const n = 500
	for i := range n {
		tr.Start(i)
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { tr.Finished(i) })
	}
	tr.UpstreamHasSynced()
	wg.Wait()
	<-tr.Done()
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
