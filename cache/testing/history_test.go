package framework

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"
)

func TestHistory(t *testing.T) {
	st := func(key string, rv uint64) *stored { return &stored{key: key, rv: rv} }
	h := history{limit: 3, compacted: 1}
	current := map[string]*stored{}
	apply := func(c change) {
		if c.typ == watch.Deleted {
			delete(current, c.key)
		} else {
			current[c.key] = c.obj
		}
		h.add(c)
	}
	a2, b3, a4 := st("a", 2), st("b", 3), st("a", 4)
	apply(change{typ: watch.Added, rv: 2, key: "a", obj: a2})
	apply(change{typ: watch.Added, rv: 3, key: "b", obj: b3})
	apply(change{typ: watch.Modified, rv: 4, key: "a", obj: a4, prev: a2})
	apply(change{typ: watch.Deleted, rv: 5, key: "b", obj: st("b", 5), prev: b3})

	state := func(rv uint64) map[string]uint64 {
		s, ok := h.stateAt(current, rv)
		if !ok {
			return nil
		}
		out := map[string]uint64{}
		for k, v := range s {
			out[k] = v.rv
		}
		return out
	}
	tests := []struct {
		rv   uint64
		want map[string]uint64
	}{
		{1, nil}, // the change at 2 was dropped by the limit
		{2, map[string]uint64{"a": 2}},
		{3, map[string]uint64{"a": 2, "b": 3}},
		{4, map[string]uint64{"a": 4, "b": 3}},
		{5, map[string]uint64{"a": 4}},
		{9, map[string]uint64{"a": 4}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, state(tc.rv)); diff != "" {
			t.Errorf("state at %d (-want +got):\n%s", tc.rv, diff)
		}
	}
	if got, ok := h.since(3); !ok || len(got) != 2 || got[0].rv != 4 {
		t.Errorf("since(3) = %v, %v", got, ok)
	}
	h.compact(4)
	if _, ok := h.since(3); ok {
		t.Error("since(3) after compact(4) succeeded")
	}
	if got, ok := h.since(4); !ok || len(got) != 1 {
		t.Errorf("since(4) = %v, %v", got, ok)
	}
	h.compact(2) // never moves back
	if h.compacted != 4 {
		t.Errorf("compacted %d after compacting to an older one, want 4", h.compacted)
	}
}

func TestContinueToken(t *testing.T) {
	token, err := encodeContinue("ns/", "ns/b\x00", 7)
	if err != nil {
		t.Fatal(err)
	}
	key, rv, err := decodeContinue(token, "ns/")
	if err != nil || key != "ns/b\x00" || rv != 7 {
		t.Errorf("decode = %q, %d, %v", key, rv, err)
	}
	for _, bad := range []string{
		"not base64!",
		"bm90IGpzb24", // not json
		"eyJ2IjoibWV0YS5rOHMuaW8vdjIiLCJydiI6MSwic3RhcnQiOiJhIn0", // version v2
		"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiJhIn0", // rv 0
		"eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIifQ",  // empty start
	} {
		if _, _, err := decodeContinue(bad, ""); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "continue") {
			t.Errorf("decode %q: %v, want a 400 about the continue token", bad, err)
		}
	}
}

func TestGeneratedSuffix(t *testing.T) {
	seen := map[string]bool{}
	for n := range uint64(1000) {
		s := generatedSuffix(n)
		if len(s) != 5 || seen[s] {
			t.Fatalf("suffix %d = %q: wrong length or repeated", n, s)
		}
		seen[s] = true
	}
}
