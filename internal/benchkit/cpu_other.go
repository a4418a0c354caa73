//go:build !unix

package benchkit

import "time"

// processCPUTime is not measured on this platform; CPU metrics read 0.
func processCPUTime() time.Duration { return 0 }
