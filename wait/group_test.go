package wait

import (
	"context"
	"testing"
	"testing/synctest"
)

type groupKey struct{}

func TestGroup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Group
		release := make(chan struct{})
		ctx := context.WithValue(t.Context(), groupKey{}, "v")
		got := make(chan string, 3)
		g.Start(func() { <-release; got <- "start" })
		g.StartWithChannel(release, func(stopCh <-chan struct{}) { <-stopCh; got <- "channel" })
		g.StartWithContext(ctx, func(ctx context.Context) { <-release; got <- ctx.Value(groupKey{}).(string) })
		g.Start(nil)
		g.StartWithChannel(release, nil)
		g.StartWithContext(ctx, nil)

		waited := make(chan struct{})
		go func() { g.Wait(); close(waited) }()
		synctest.Wait()
		select {
		case <-waited:
			t.Fatal("Wait returned while started functions were blocked")
		default:
		}
		close(release)
		<-waited
		close(got)
		seen := map[string]bool{}
		for s := range got {
			seen[s] = true
		}
		for _, want := range []string{"start", "channel", "v"} {
			if !seen[want] {
				t.Errorf("function %q did not run before Wait returned", want)
			}
		}
	})
}

func TestGroupEmptyWait(t *testing.T) {
	var g Group
	g.Wait() // nothing started: returns at once
}
