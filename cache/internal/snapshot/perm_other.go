//go:build !unix

package snapshot

import "io/fs"

// checkDirMode accepts every directory: outside Unix, Go's permission bits
// do not describe who may write (Windows access control lists decide).
func checkDirMode(string, fs.FileMode) error { return nil }
