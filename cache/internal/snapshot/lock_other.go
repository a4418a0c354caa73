//go:build !(linux || darwin || dragonfly || freebsd || netbsd || openbsd || illumos)

package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// lockPath creates path exclusively (0600): it returns an error wrapping
// [ErrLocked] when the file exists, whether a live writer holds it or one
// that died left it behind (then remove it by hand). unlock removes it.
func lockPath(path string) (unlock func() error, err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%w: %s exists (another writer holds it, or one that died left it: remove it if no writer runs)", ErrLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("create lock file: %w", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("create lock file: %w", err)
	}
	return func() error { return os.Remove(path) }, nil
}
