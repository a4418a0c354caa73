package snapshot

import (
	"io"
	"os"
)

// fileSystem is what a [Writer] does to files, so that tests can make any
// step fail (a full disk, a failed sync or rename) through newWriter.
type fileSystem interface {
	createTemp(dir, pattern string) (tempFile, error)
	rename(oldPath, newPath string) error
	remove(path string) error
	syncDir(dir string) error
}

// tempFile is the temporary file a snapshot is written to.
type tempFile interface {
	io.Writer
	Sync() error
	Close() error
	Name() string
}

// osFS is the real file system.
type osFS struct{}

func (osFS) createTemp(dir, pattern string) (tempFile, error) {
	// CreateTemp creates the file 0600.
	return os.CreateTemp(dir, pattern)
}

func (osFS) rename(oldPath, newPath string) error { return os.Rename(oldPath, newPath) }

func (osFS) remove(path string) error { return os.Remove(path) }

func (osFS) syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
