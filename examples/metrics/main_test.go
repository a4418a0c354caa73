package main

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun checks the program's output, which must not depend on scheduling.
func TestRun(t *testing.T) {
	const want = `While the informer runs:
  informer_events_total{event_type="DELETED",informer="demo",resource="configmaps",type="*v1.PartialObjectMetadata"} 1
  informer_handler_panics_total{handler="cache.ResourceEventHandlerFuncs",informer="demo",resource="configmaps",type="*v1.PartialObjectMetadata"} 0
  informer_lists_total{informer="demo",method="streaming",resource="configmaps",result="success",type="*v1.PartialObjectMetadata"} 1
  informer_store_objects{informer="demo",resource="configmaps",type="*v1.PartialObjectMetadata"} 2
After it stopped: 0 informer series
`
	var out strings.Builder
	if err := run(context.Background(), &out, ""); err != nil {
		t.Fatalf("run: %v", err)
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
