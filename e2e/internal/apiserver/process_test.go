package apiserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestProcessStop(t *testing.T) {
	tests := []struct {
		name string
		// script runs under sh; the harness must stop it either way.
		script string
		stop   func(p *process)
	}{
		{name: "exits on SIGTERM", script: "sleep 60", stop: (*process).stop},
		// A shell that ignores SIGTERM, with a child in its group.
		{name: "ignores SIGTERM", script: "trap '' TERM; sleep 60 & wait", stop: (*process).stop},
		{name: "killed", script: "trap '' TERM; sleep 60", stop: (*process).kill},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "log")
			p, err := startProcess("sh", "/bin/sh", []string{"-c", "echo started; " + tc.script}, logPath)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.exitError(); err != nil {
				t.Fatalf("exitError of a running process = %v, want nil", err)
			}
			p.grace = 100 * time.Millisecond
			pgid := p.cmd.Process.Pid
			tc.stop(p)
			if p.exitError() == nil {
				t.Error("exitError after stop = nil, want an error")
			}
			// Nothing is left in the process group once the orphans that
			// got SIGKILL have been reaped.
			waitForGroupGone(t, pgid)
			tc.stop(p) // a no-op now
			data, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), "started") {
				t.Errorf("log %q lacks the process's output", data)
			}
		})
	}
}

func TestWaitUntil(t *testing.T) {
	logPath := filepath.Join(t.TempDir(), "log")
	p, err := startProcess("sh", "/bin/sh", []string{"-c", "exit 3"}, logPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err = waitUntil(ctx, p, "never", func(context.Context) error { return errors.New("not yet") })
	if err == nil || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("waitUntil on an exiting process = %v, want its exit status", err)
	}

	calls := 0
	err = waitUntil(ctx, p, "third call", func(context.Context) error {
		calls++
		if calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	// The process has exited: waitUntil reports it after the first failed probe.
	if err == nil {
		t.Errorf("waitUntil after exit = nil after %d calls, want the exit", calls)
	}
}

// waitForGroupGone waits until no process is left in process group pgid:
// killed orphans linger as zombies until their new parent reaps them.
func waitForGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("signal 0 to the stopped process group: %v, want ESRCH", err)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not an assertion
	}
}
