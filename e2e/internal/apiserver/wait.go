package apiserver

import (
	"context"
	"fmt"
	"time"
)

// pollInterval is how often waitUntil probes.
const pollInterval = 200 * time.Millisecond

// waitUntil probes until probe returns nil, proc exits or ctx is done, and
// says which with an error naming what it waited for.
func waitUntil(ctx context.Context, proc *process, what string, probe func(context.Context) error) error {
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	for {
		probeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := probe(probeCtx)
		cancel()
		if err == nil {
			return nil
		}
		if exit := proc.exitError(); exit != nil {
			return fmt.Errorf("wait for %s: %w", what, exit)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %s: %w (last probe: %v)", what, ctx.Err(), err)
		case <-proc.exited:
			return fmt.Errorf("wait for %s: %w", what, proc.exitError())
		case <-ticker.C:
		}
	}
}
