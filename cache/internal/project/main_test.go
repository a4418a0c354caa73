package project

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests if a goroutine a test started is
// still running at the end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
