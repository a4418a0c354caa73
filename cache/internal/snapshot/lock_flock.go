//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd || illumos

package snapshot

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockPath takes an exclusive flock(2) on path, creating it 0600 when
// missing, without waiting: it returns an error wrapping [ErrLocked] when
// another open file (of this process or another) holds it. The kernel
// drops the lock when the returned file is closed or the process dies;
// the file stays.
func lockPath(path string) (unlock func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock file: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w: %s is held by another writer", ErrLocked, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f.Close, nil
}
