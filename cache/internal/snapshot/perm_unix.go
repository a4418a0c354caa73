//go:build unix

package snapshot

import (
	"fmt"
	"io/fs"
)

// checkDirMode returns an error when others than the owner may write to
// the directory of mode mode: whoever can write there can plant a
// snapshot.
func checkDirMode(dir string, mode fs.FileMode) error {
	if mode.Perm()&0o022 != 0 {
		return fmt.Errorf("directory %s is writable by group or others (mode %v): a snapshot directory must be writable by its owner only", dir, mode.Perm())
	}
	return nil
}
