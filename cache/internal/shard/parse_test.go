package shard

import (
	"strings"
	"testing"
)

// TestParse checks selectors against the answers of kube-apiserver's own
// parser (k8s.io/apiserver/pkg/sharding, CEL-based) for the same input:
// the requirements of accepted selectors, and the message of refused ones.
// CEL's syntax error texts are not reproduced: those cases only check the
// prefix.
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		selector      string
		want          string // String() of the parsed selector
		wantErr       string // the apiserver's message
		wantErrPrefix string // the start of a syntax error's message
	}{
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')"},
		{selector: "  shardRange( object . metadata . uid ,\"0x0000000000000000\",'0x8000000000000000' ) ", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "(shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000'))", want: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "shardRange(object.metadata.uid, '0x0', '0x8000000000000000')", wantErr: "hexStart must be a 0x-prefixed 16-digit hex value, got \"0x0\" (did you mean \"0x0000000000000000\"?)"},
		{selector: "shardRange(object.metadata.uid, '0x8000000000000000', '0x0000000000000000')", wantErr: "shard range start 0x8000000000000000 must be less than end 0x0000000000000000"},
		{selector: "shardRange(object.metadata.uid, '0x8000000000000000', '0x8000000000000000')", wantErr: "shard range start 0x8000000000000000 must be less than end 0x8000000000000000"},
		{selector: "shardRange(object.metadata.name, '0x0000000000000000', '0x8000000000000000')", wantErr: "unsupported field path \"object.metadata.name\"; supported: object.metadata.uid, object.metadata.namespace"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000')", wantErr: "shardRange() requires exactly 3 arguments, got 2"},
		{selector: "shardRange(object.metadata.uid, 0, '0x8000000000000000')", wantErr: "hexStart must be a string literal, got int64"},
		{selector: "shardRange(object.metadata.uid, 0u, '0x8000000000000000')", wantErr: "hexStart must be a string literal, got uint64"},
		{selector: "shardRange(object.metadata.uid, 1.5, '0x8000000000000000')", wantErr: "hexStart must be a string literal, got float64"},
		{selector: "shardRange(object.metadata.uid, true, '0x8000000000000000')", wantErr: "hexStart must be a string literal, got bool"},
		{selector: "shardRange(object.metadata.uid, null, '0x8000000000000000')", wantErr: "hexStart must be a string literal, got structpb.NullValue"},
		{selector: "shardRange(object.metadata.uid, b'0x0000000000000000', '0x8000000000000000')", wantErr: "hexStart must be a string literal, got []uint8"},
		{selector: "shardRange(object.metadata.uid, x, '0x8000000000000000')", wantErr: "hexStart must be a string literal (e.g. '0xff'), got expression kind 3"},
		{selector: "shardRange(object.metadata.uid, [1], '0x8000000000000000')", wantErr: "hexStart must be a string literal (e.g. '0xff'), got expression kind 4"},
		{selector: "shardRange(object.metadata.uid, {1:2}, '0x8000000000000000')", wantErr: "hexStart must be a string literal (e.g. '0xff'), got expression kind 6"},
		{selector: "shardRange('a', '0x0000000000000000', '0x8000000000000000')", wantErr: "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 5"},
		{selector: "shardRange(object.metadata['uid'], '0x0000000000000000', '0x8000000000000000')", wantErr: "shardRange() first argument: expected field path (e.g. object.metadata.uid), got expression kind 1"},
		{selector: "shardRange(object.metadata.uid, 'ff', '0x8000000000000000')", wantErr: "hexStart must have '0x' prefix, got \"ff\""},
		{selector: "shardRange(object.metadata.uid, '0x', '0x8000000000000000')", wantErr: "hexStart: hex value is required after '0x'"},
		{selector: "shardRange(object.metadata.uid, '0x000000000000000000', '0x8000000000000000')", wantErr: "hexStart: hex value too long (18 chars, max 17): \"000000000000000000\""},
		{selector: "shardRange(object.metadata.uid, '0x000000000000000G', '0x8000000000000000')", wantErr: "hexStart: invalid hex character \"G\" in \"0x000000000000000G\""},
		{selector: "shardRange(object.metadata.uid, '0x000000000000000A', '0x8000000000000000')", wantErr: "hexStart: invalid hex character \"A\" in \"0x000000000000000A\""},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x20000000000000000')", wantErr: "hexEnd: 17-digit hex value must be '0x10000000000000000' (2^64), got \"0x20000000000000000\""},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') && shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", wantErr: "unsupported function \"_&&_\"; only shardRange() and || are allowed"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')", wantErr: "all shard ranges must use the same field, got \"object.metadata.uid\" and \"object.metadata.namespace\""},
		{selector: "!shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", wantErr: "unsupported function \"!_\"; only shardRange() and || are allowed"},
		{selector: "object.metadata.uid", wantErr: "unexpected expression kind 7; expected shardRange() call or || operator"},
		{selector: "object", wantErr: "unexpected expression kind 3; expected shardRange() call or || operator"},
		{selector: "'x'", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "[1]", wantErr: "unexpected expression kind 4; expected shardRange() call or || operator"},
		{selector: "{}", wantErr: "unexpected expression kind 6; expected shardRange() call or || operator"},
		{selector: "foo(1)", wantErr: "unsupported function \"foo\"; only shardRange() and || are allowed"},
		{selector: ".shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", wantErr: "unsupported function \".shardRange\"; only shardRange() and || are allowed"},
		{selector: "x.shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "shardRange(.object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", wantErr: "unsupported field path \".object.metadata.uid\"; supported: object.metadata.uid, object.metadata.namespace"},
		{selector: "shardRange(object.metadata.uid, r'0x0000000000000000', R\"0x8000000000000000\")", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "shardRange(object.metadata.uid, '''0x0000000000000000''', '0x8000000000000000')", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') // comment", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000' ||", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "shardRange(", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "||", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "a ? b : c", wantErr: "unsupported function \"_?_:_\"; only shardRange() and || are allowed"},
		{selector: "a == b", wantErr: "unsupported function \"_==_\"; only shardRange() and || are allowed"},
		{selector: "a in b", wantErr: "unsupported function \"@in\"; only shardRange() and || are allowed"},
		{selector: "a + b", wantErr: "unsupported function \"_+_\"; only shardRange() and || are allowed"},
		{selector: "-a", wantErr: "unsupported function \"-_\"; only shardRange() and || are allowed"},
		{selector: "-1", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "if", wantErr: "CEL parse error: reserved identifier: if"},
		{selector: "if(1)", wantErr: "CEL parse error: reserved identifier: if"},
		{selector: "shardRange(if, '0x0000000000000000', '0x8000000000000000')", wantErr: "CEL parse error: reserved identifier: if"},
		{selector: "shardRange(object.if, '0x0000000000000000', '0x8000000000000000')", wantErr: "unsupported field path \"object.if\"; supported: object.metadata.uid, object.metadata.namespace"},
		{selector: "9223372036854775808", wantErr: "CEL parse error: invalid int literal"},
		{selector: "-9223372036854775808", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "18446744073709551616u", wantErr: "CEL parse error: invalid uint literal"},
		{selector: "1e999", wantErr: "CEL parse error: invalid double literal"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000',)", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "[1,]", wantErr: "unexpected expression kind 4; expected shardRange() call or || operator"},
		{selector: "{1:2,}", wantErr: "unexpected expression kind 6; expected shardRange() call or || operator"},
		{selector: "a.b(c)", wantErr: "unsupported function \"b\"; only shardRange() and || are allowed"},
		{selector: "a[b]", wantErr: "unsupported function \"_[_]\"; only shardRange() and || are allowed"},
		{selector: "(a)", wantErr: "unexpected expression kind 3; expected shardRange() call or || operator"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "shardRange(object.metadata.uid, '0xffffffffffffffff', '0x10000000000000000')", want: "shardRange(object.metadata.uid, '0xffffffffffffffff', '0x10000000000000000')"},
		{selector: "shardRange(object.metadata.uid, '0x10000000000000000', '0x10000000000000000')", wantErr: "shard range start 0x10000000000000000 must be less than end 0x10000000000000000"},
		{selector: " ", wantErr: "empty shard selector is not allowed; omit the parameter for unfiltered lists"},
		{selector: "", wantErr: "empty shard selector is not allowed; omit the parameter for unfiltered lists"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') ? 1 : 2", wantErr: "unsupported function \"_?_:_\"; only shardRange() and || are allowed"},
		{selector: "a.true", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "a . b", wantErr: "unexpected expression kind 7; expected shardRange() call or || operator"},
		{selector: "shardRange\n(object.metadata.uid,\t'0x0000000000000000',\r'0x8000000000000000')", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "shardRange(object.metadata.uid, \"0x0000000000000000\", '0x8000000000000000')", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"},
		{selector: "(((shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000'))) || (shardRange(object.metadata.uid, '0x8000000000000000', '0x9000000000000000') || shardRange(object.metadata.uid, '0xa000000000000000', '0xb000000000000000')))", want: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x9000000000000000') || shardRange(object.metadata.uid, '0xa000000000000000', '0xb000000000000000')"},
		{selector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000') || 1", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "1 || shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "a.b.c.d.e(1,2,3)", wantErr: "unsupported function \"e\"; only shardRange() and || are allowed"},
		{selector: "_x", wantErr: "unexpected expression kind 3; expected shardRange() call or || operator"},
		{selector: "has(a.b)", wantErr: "unsupported function \"has\"; only shardRange() and || are allowed"},
		{selector: "--0", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "!-0", wantErr: "unsupported function \"!_\"; only shardRange() and || are allowed"},
		{selector: "!!-1", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "!--0", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "-!0", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "!-a", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "-1.foo", wantErr: "unexpected expression kind 7; expected shardRange() call or || operator"},
		{selector: "!-1u", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "---1", wantErr: "unsupported function \"-_\"; only shardRange() and || are allowed"},
		{selector: "- -1", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "!-(1)", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "{,}", wantErr: "unexpected expression kind 6; expected shardRange() call or || operator"},
		{selector: "[,]", wantErr: "unexpected expression kind 4; expected shardRange() call or || operator"},
		{selector: "a.B{,}", wantErr: "unexpected expression kind 8; expected shardRange() call or || operator"},
		{selector: "a.B{x: 1, y: 2,}.c", wantErr: "unexpected expression kind 7; expected shardRange() call or || operator"},
		{selector: "(a).B{}", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "!-0", wantErr: `unsupported function "!_"; only shardRange() and || are allowed`},
		{selector: "--0", wantErr: "unexpected expression kind 5; expected shardRange() call or || operator"},
		{selector: "-!0", wantErrPrefix: "CEL parse error: Syntax error: "},
		{selector: "shardRange(object.metadata.uid, '0x00000000000000\\x30', '0x8000000000000000')", wantErrPrefix: "CEL parse error: Syntax error: escape sequences in string literals are not supported"},
		{selector: "shardRange(object.`metadata`.uid, '0x0000000000000000', '0x8000000000000000')", wantErrPrefix: "CEL parse error: Syntax error: backquoted field names are not supported"},
		{selector: strings.Repeat("(", 300) + "a" + strings.Repeat(")", 300), wantErr: "CEL parse error: expression recursion limit exceeded: 250"},
		{selector: "'" + strings.Repeat("a", 100_000) + "'", wantErr: "CEL parse error: expression code point size exceeds limit: size: 100002, limit 100000"},
	} {
		t.Run(tc.selector, func(t *testing.T) {
			sel, err := Parse(tc.selector)
			if tc.wantErr == "" && tc.wantErrPrefix == "" {
				if err != nil {
					t.Fatalf("Parse: %v, want %q", err, tc.want)
				}
				if sel.String() != tc.want {
					t.Fatalf("Parse = %q, want %q", sel.String(), tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Parse accepted it as %q, want an error", sel.String())
			}
			if tc.wantErr != "" && err.Error() != tc.wantErr {
				t.Fatalf("Parse error:\n got  %q\n want %q", err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), tc.wantErrPrefix) {
				t.Fatalf("Parse error %q, want it to start with %q", err, tc.wantErrPrefix)
			}
		})
	}
}
