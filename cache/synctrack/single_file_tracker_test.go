package synctrack

import (
	"sync"
	"testing"
)

func TestSingleFileTracker(t *testing.T) {
	tests := []struct {
		name  string
		steps string // S=Start F=Finished U=UpstreamHasSynced
		want  bool
	}{
		{name: "nothing happened", steps: "", want: false},
		{name: "upstream synced, nothing pending", steps: "U", want: true},
		{name: "pending item", steps: "SU", want: false},
		{name: "pending item finished after upstream", steps: "SUF", want: true},
		{name: "pending items finished before upstream", steps: "SSFFU", want: true},
		{name: "one of two finished", steps: "SSUF", want: false},
		{name: "done is final", steps: "USF", want: true},
		{name: "extra finish is ignored", steps: "FSU", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewSingleFileTracker("handler")
			for _, s := range tc.steps {
				switch s {
				case 'S':
					tr.Start()
				case 'F':
					tr.Finished()
				case 'U':
					tr.UpstreamHasSynced()
				}
			}
			if got := tr.HasSynced(); got != tc.want {
				t.Fatalf("HasSynced() = %v, want %v", got, tc.want)
			}
			select {
			case <-tr.Done():
				if !tc.want {
					t.Fatal("Done() closed, want open")
				}
			default:
				if tc.want {
					t.Fatal("Done() open, want closed")
				}
			}
			if tr.Name() != "handler" {
				t.Fatalf("Name() = %q", tr.Name())
			}
		})
	}
}

func TestSingleFileTrackerConcurrent(t *testing.T) {
	tr := NewSingleFileTracker("concurrent")
	const n = 1000
	for range n {
		tr.Start()
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(tr.Finished)
	}
	tr.UpstreamHasSynced()
	wg.Wait()
	<-tr.Done()
	if !tr.HasSynced() {
		t.Fatal("not synced after every item finished")
	}
}
