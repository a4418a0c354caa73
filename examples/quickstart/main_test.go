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
	const want = `Initial list, as the handler saw it:
  add dev/db-config (app=db)
  add dev/web-config (app=web)
  add prod/db-config (app=db)
  add prod/web-config (app=web)
Index queries on the local cache:
  app=web: [dev/web-config prod/web-config]
  namespace=prod: [prod/db-config prod/web-config]
Writes to the server reach the handler:
  update prod/web-config: app=web -> app=api (resourceVersion 4 -> 6)
  delete dev/db-config
Index queries after the writes:
  app=web: [dev/web-config]
  app=api: [prod/web-config]
  lister, list in dev: 1 ConfigMap(s)
  lister, get dev/db-config: configmaps "db-config" not found
Informer stopped: true
`
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
