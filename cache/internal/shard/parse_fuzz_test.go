package shard

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/sharding"
)

// FuzzParse checks that Parse never panics and that what it accepts is a
// selector kube-apiserver would apply as written: every range on the same
// supported field with canonical bounds, start below end, and a String
// that parses back to itself.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')",
		"shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000') || (shardRange(object.metadata.namespace, '0x0000000000000000', '0x0000000000000001'))",
		"shardRange(object.metadata.uid, \"0x0\", r'0x10000000000000000') // comment",
		"a ? b : c || d && !e[f].g(h, [1, 2.5e3], {'k': -1u}) in x",
		"--1 !- b'x' '''y''' null true",
		"shardRange(",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := Parse(s)
		if err != nil {
			if sel != nil {
				t.Fatalf("Parse(%q) returned both %v and %v", s, sel, err)
			}
			return
		}
		reqs := sel.Requirements()
		if len(reqs) == 0 {
			t.Fatalf("Parse(%q) accepted a selector without ranges", s)
		}
		for _, req := range reqs {
			if req.Key != reqs[0].Key || !IsKey(req.Key) {
				t.Fatalf("Parse(%q): range on %q, first on %q", s, req.Key, reqs[0].Key)
			}
			if !canonicalBound(req.Start) || !(canonicalBound(req.End) || req.End == HashSpaceEnd) {
				t.Fatalf("Parse(%q): bounds %q, %q are not canonical", s, req.Start, req.End)
			}
			if !sharding.HexLess(req.Start, req.End) {
				t.Fatalf("Parse(%q): empty range [%s, %s)", s, req.Start, req.End)
			}
		}
		again, err := Parse(sel.String())
		if err != nil || again.String() != sel.String() {
			t.Fatalf("Parse(%q) = %q, which parses to %v, %v", s, sel.String(), again, err)
		}
	})
}

// canonicalBound reports "0x" and 16 lowercase hex digits.
func canonicalBound(s string) bool {
	return len(s) == 18 && strings.HasPrefix(s, "0x") && strings.Trim(s[2:], "0123456789abcdef") == ""
}
