package apiserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSetExtraArgs: the extra flags are replaced, the harness's kept, and
// the slice given at creation is not written to.
func TestSetExtraArgs(t *testing.T) {
	extra := []string{"--a=1", "--b=2"}
	k := &kubeAPIServer{args: append([]string{"--own=1"}, extra...), extraArgs: len(extra)}
	k.setExtraArgs([]string{"--c=3"})
	if diff := cmp.Diff([]string{"--own=1", "--c=3"}, k.args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	k.setExtraArgs(nil)
	if diff := cmp.Diff([]string{"--own=1"}, k.args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	k.setExtraArgs(extra)
	if diff := cmp.Diff([]string{"--own=1", "--a=1", "--b=2"}, k.args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
}
