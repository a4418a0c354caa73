package main

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun checks the demo's output, which must not depend on scheduling.
func TestRun(t *testing.T) {
	const want = `add billing (team payments, initial list: true)
add checkout (team payments, initial list: true)
add frontend (team web, initial list: true)
team payments: [billing checkout]
add search (team web, initial list: false)
update checkout: team payments -> web
delete shop/billing, last known team payments
delete shop/frontend (missed; noticed by a relist), last known team web
team web: [checkout search]
`
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
