package apiserver

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// stopGrace is how long a process may take to exit after SIGTERM before it
// gets SIGKILL.
const stopGrace = 5 * time.Second

// process is one running child: etcd or kube-apiserver.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	// grace is how long stop waits after SIGTERM: stopGrace, or shorter in
	// tests.
	grace time.Duration
	// exited is closed once the process has exited; err is then its exit
	// status.
	exited chan struct{}
	err    error
}

// startProcess starts binary with args in a process group of its own,
// appending its stdout and stderr to logPath. The process receives SIGKILL
// if the test binary dies first.
func startProcess(name, binary string, args []string, logPath string) (*process, error) {
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	fmt.Fprintf(logFile, "\n==== %s %s %s\n", time.Now().Format(time.RFC3339Nano), binary, strings.Join(args, " "))
	cmd := exec.Command(binary, args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, grace: stopGrace, exited: make(chan struct{})}
	go func() { // exits when the process does; stop waits on exited
		p.err = cmd.Wait()
		logFile.Close()
		close(p.exited)
	}()
	return p, nil
}

// stop sends SIGTERM to the process group, then SIGKILL after the grace period,
// and returns once the process has exited. It is a no-op on an exited
// process.
func (p *process) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	timer := time.NewTimer(p.grace)
	defer timer.Stop()
	select {
	case <-p.exited:
	case <-timer.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.exited
	}
	// Reap anything the process left in its group.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// kill sends SIGKILL to the process group and returns once the process
// has exited. It is a no-op on an exited process.
func (p *process) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// exitError returns why the process exited, or nil while it runs.
func (p *process) exitError() error {
	select {
	case <-p.exited:
		if p.err == nil {
			return fmt.Errorf("%s exited (log in %s)", p.name, p.logPath)
		}
		return fmt.Errorf("%s exited: %w (log in %s)", p.name, p.err, p.logPath)
	default:
		return nil
	}
}

// freePort returns a TCP port on 127.0.0.1 that nothing listened on a
// moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("find a free port: not a TCP address")
	}
	return addr.Port, nil
}
