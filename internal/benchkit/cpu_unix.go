//go:build unix

package benchkit

import (
	"syscall"
	"time"
)

// processCPUTime returns the user and system CPU time of the process.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
