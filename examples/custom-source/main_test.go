package main

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun checks the demo's output, which must not depend on scheduling.
func TestRun(t *testing.T) {
	const want = `add apples: 40 in north
add pears: 12 in north
add plums: 25 in south
update apples: stock 40 -> 3 (resourceVersion 1 -> 4)
delete pears
add figs: 8 in north
warehouse north: [apples figs]
warehouse south: [plums]
low stock: [apples figs]
`
	var out strings.Builder
	if err := run(context.Background(), &out); err != nil {
		t.Fatalf("run: %v", err)
	}
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// TestInventoryWatch checks that a watch delivers the changes after its
// resourceVersion, in order, and refuses streaming lists.
func TestInventoryWatch(t *testing.T) {
	inv := NewInventory()
	inv.Set("a", "north", 1) // resourceVersion 1
	inv.Set("b", "north", 2) // 2
	inv.Set("a", "south", 3) // 3
	inv.Remove("b")          // 4

	tests := []struct {
		name            string
		resourceVersion string
		want            []string
	}{
		{name: "from the start", resourceVersion: "", want: []string{"ADDED c 5"}},
		{name: "from 0", resourceVersion: "0", want: []string{"ADDED c 5"}},
		{name: "from 2", resourceVersion: "2", want: []string{"MODIFIED a 3", "DELETED b 4", "ADDED c 5"}},
		{name: "from 4", resourceVersion: "4", want: []string{"ADDED c 5"}},
	}
	ctx := context.Background()
	var watches []func() []string
	for _, tc := range tests {
		w, err := inv.Watch(ctx, metav1.ListOptions{ResourceVersion: tc.resourceVersion})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		defer w.Stop()
		watches = append(watches, func() []string {
			var got []string
			for range tc.want {
				e := <-w.ResultChan()
				item := e.Object.(*Item)
				got = append(got, fmt.Sprintf("%s %s %s", e.Type, item.Name, item.ResourceVersion))
			}
			return got
		})
	}
	inv.Set("c", "north", 5) // 5, after every watch started
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, watches[i]()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}

	if _, err := inv.Watch(ctx, metav1.ListOptions{SendInitialEvents: ptr.To(true)}); err == nil {
		t.Error("a streaming list was accepted")
	}
}
