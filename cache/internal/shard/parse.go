package shard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/sharding"
)

// Limits of the apiserver's CEL parser that apply to shard selectors.
const (
	// shardSelectorMaxCodePoints is the longest selector accepted.
	shardSelectorMaxCodePoints = 100_000
	// shardSelectorMaxDepth bounds the nesting of expressions.
	shardSelectorMaxDepth = 250
)

// The fields a shard selector can hash, as shardRange() names them.
const (
	KeyUID       = "object.metadata.uid"
	KeyNamespace = "object.metadata.namespace"
)

// HashSpaceEnd is the exclusive upper bound of the hash space, 2^64, as a
// selector writes it.
const HashSpaceEnd = "0x10000000000000000"

// IsKey reports whether key is a field the apiserver can shard on.
func IsKey(key string) bool {
	return key == KeyUID || key == KeyNamespace
}

// Parse parses a shard selector as kube-apiserver's CEL-based parser does
// and returns its requirements in the order written; errors carry the
// apiserver's messages (syntax errors excepted, see cache.ParseShardSelector).
func Parse(selector string) (sharding.Selector, error) {
	selector = strings.TrimSpace(selector)
	if selector == "" {
		return nil, errors.New("empty shard selector is not allowed; omit the parameter for unfiltered lists")
	}
	if !utf8.ValidString(selector) {
		// CEL reads the selector as code points: each invalid byte
		// becomes U+FFFD.
		selector = string([]rune(selector))
	}
	if n := utf8.RuneCountInString(selector); n > shardSelectorMaxCodePoints {
		return nil, fmt.Errorf("CEL parse error: expression code point size exceeds limit: size: %d, limit %d", n, shardSelectorMaxCodePoints)
	}
	root, err := parseSelectorExpr(selector)
	if err != nil {
		return nil, fmt.Errorf("CEL parse error: %w", err)
	}
	reqs, err := shardRequirements(root)
	if err != nil {
		return nil, err
	}
	for _, req := range reqs[1:] {
		if req.Key != reqs[0].Key {
			return nil, fmt.Errorf("all shard ranges must use the same field, got %q and %q", reqs[0].Key, req.Key)
		}
	}
	return sharding.NewSelector(reqs...), nil
}

// shardRequirements extracts the ranges of a parsed selector: the root is a
// shardRange() call or an || of such.
func shardRequirements(e *selectorExpr) ([]sharding.ShardRangeRequirement, error) {
	if e.kind != exprCall {
		return nil, fmt.Errorf("unexpected expression kind %d; expected shardRange() call or || operator", e.kind)
	}
	switch e.function {
	case "_||_":
		var reqs []sharding.ShardRangeRequirement
		for _, arg := range e.args {
			r, err := shardRequirements(arg)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, r...)
		}
		return reqs, nil
	case "shardRange":
		req, err := shardRangeRequirement(e.args)
		if err != nil {
			return nil, err
		}
		return []sharding.ShardRangeRequirement{req}, nil
	default:
		return nil, fmt.Errorf("unsupported function %q; only shardRange() and || are allowed", e.function)
	}
}

// shardRangeRequirement checks the arguments of one shardRange() call.
func shardRangeRequirement(args []*selectorExpr) (sharding.ShardRangeRequirement, error) {
	if len(args) != 3 {
		return sharding.ShardRangeRequirement{}, fmt.Errorf("shardRange() requires exactly 3 arguments, got %d", len(args))
	}
	key, err := fieldPath(args[0])
	if err != nil {
		return sharding.ShardRangeRequirement{}, fmt.Errorf("shardRange() first argument: %w", err)
	}
	if !IsKey(key) {
		return sharding.ShardRangeRequirement{}, fmt.Errorf("unsupported field path %q; supported: %s, %s", key, KeyUID, KeyNamespace)
	}
	start, err := hexBound(args[1], "hexStart")
	if err != nil {
		return sharding.ShardRangeRequirement{}, err
	}
	end, err := hexBound(args[2], "hexEnd")
	if err != nil {
		return sharding.ShardRangeRequirement{}, err
	}
	if !sharding.HexLess(start, end) {
		return sharding.ShardRangeRequirement{}, fmt.Errorf("shard range start %s must be less than end %s", start, end)
	}
	return sharding.ShardRangeRequirement{Key: key, Start: start, End: end}, nil
}

// fieldPath joins an identifier and the fields selected from it.
func fieldPath(e *selectorExpr) (string, error) {
	switch e.kind {
	case exprIdent:
		return e.name, nil
	case exprSelect:
		operand, err := fieldPath(e.operand)
		if err != nil {
			return "", err
		}
		return operand + "." + e.name, nil
	default:
		return "", fmt.Errorf("expected field path (e.g. object.metadata.uid), got expression kind %d", e.kind)
	}
}

// hexBound checks a range bound: a string literal of "0x" and 16 lowercase
// hex digits, or 2^64.
func hexBound(e *selectorExpr, name string) (string, error) {
	if e.kind != exprLiteral {
		return "", fmt.Errorf("%s must be a string literal (e.g. '0xff'), got expression kind %d", name, e.kind)
	}
	if e.literalType != "string" {
		return "", fmt.Errorf("%s must be a string literal, got %s", name, e.literalType)
	}
	s := e.text
	if !strings.HasPrefix(s, "0x") {
		return "", fmt.Errorf("%s must have '0x' prefix, got %q", name, s)
	}
	digits := s[2:]
	switch {
	case digits == "":
		return "", fmt.Errorf("%s: hex value is required after '0x'", name)
	case len(digits) > 17:
		return "", fmt.Errorf("%s: hex value too long (%d chars, max 17): %q", name, len(digits), digits)
	}
	for _, c := range digits {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return "", fmt.Errorf("%s: invalid hex character %q in %q", name, string(c), s)
		}
	}
	switch {
	case len(digits) == 17 && s != HashSpaceEnd:
		return "", fmt.Errorf("%s: 17-digit hex value must be '%s' (2^64), got %q", name, HashSpaceEnd, s)
	case len(digits) < 16:
		return "", fmt.Errorf("%s must be a 0x-prefixed 16-digit hex value, got %q (did you mean %q?)", name, s, "0x"+strings.Repeat("0", 16-len(digits))+digits)
	}
	return s, nil
}

// exprKind numbers the kinds of expression as CEL's AST does; the
// apiserver's messages print the number.
type exprKind int

const (
	exprCall    exprKind = 1
	exprIdent   exprKind = 3
	exprList    exprKind = 4
	exprLiteral exprKind = 5
	exprMap     exprKind = 6
	exprSelect  exprKind = 7
	exprStruct  exprKind = 8
)

// selectorExpr is one node of a parsed selector.
type selectorExpr struct {
	kind exprKind
	// function is the called function; operators have CEL's names
	// ("_||_", "_&&_", "!_", ...).
	function string
	// args are the arguments of a call, without the receiver of a
	// receiver-style call, which the apiserver ignores.
	args []*selectorExpr
	// name is an identifier, or the field a select picks from operand.
	name    string
	operand *selectorExpr
	// literalType is the Go type CEL gives a literal's value, as the
	// apiserver prints it; text is the value of a string literal.
	literalType string
	text        string
	// grouped marks an expression written in parentheses, which cannot
	// start the type name of a message literal.
	grouped bool
}

// parseSelectorExpr parses the CEL expression s.
func parseSelectorExpr(s string) (*selectorExpr, error) {
	toks, err := lexSelector(s)
	if err != nil {
		return nil, err
	}
	p := &selectorParser{toks: toks}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.unexpected(t, "the end of the selector")
	}
	return e, nil
}

// selectorParser is a recursive-descent parser over CEL's precedence levels:
// conditional, ||, &&, relations, sums, products, unary, member access and
// primaries.
type selectorParser struct {
	toks  []selectorToken
	pos   int
	depth int
}

func (p *selectorParser) peek() selectorToken { return p.toks[p.pos] }

func (p *selectorParser) next() selectorToken {
	t := p.toks[p.pos]
	if t.kind != tokEOF {
		p.pos++
	}
	return t
}

// accept consumes the punctuation punct if it comes next.
func (p *selectorParser) accept(punct string) bool {
	if t := p.peek(); t.kind == tokPunct && t.text == punct {
		p.pos++
		return true
	}
	return false
}

// acceptPair consumes first and second if they come next, as in the
// "[,]" of an empty list.
func (p *selectorParser) acceptPair(first, second string) bool {
	if isPunct(p.peek(), first) && isPunct(p.toks[p.pos+1], second) {
		p.pos += 2
		return true
	}
	return false
}

func (p *selectorParser) expect(punct string) error {
	if !p.accept(punct) {
		return p.unexpected(p.peek(), "'"+punct+"'")
	}
	return nil
}

func (p *selectorParser) unexpected(t selectorToken, want string) error {
	if t.kind == tokEOF {
		return fmt.Errorf("%s: unexpected end of selector, expecting %s", celSyntaxError, want)
	}
	return fmt.Errorf("%s: unexpected %q at offset %d, expecting %s", celSyntaxError, t.text, t.pos, want)
}

// enter guards the recursion depth; leave must follow.
func (p *selectorParser) enter() error {
	p.depth++
	if p.depth > shardSelectorMaxDepth {
		return fmt.Errorf("expression recursion limit exceeded: %d", shardSelectorMaxDepth)
	}
	return nil
}

func (p *selectorParser) leave() { p.depth-- }

func callExpr(function string, args ...*selectorExpr) *selectorExpr {
	return &selectorExpr{kind: exprCall, function: function, args: args}
}

// expr: or ('?' or ':' expr)?
func (p *selectorParser) expr() (*selectorExpr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	cond, err := p.binary(0)
	if err != nil || !p.accept("?") {
		return cond, err
	}
	then, err := p.binary(0)
	if err != nil {
		return nil, err
	}
	if err := p.expect(":"); err != nil {
		return nil, err
	}
	otherwise, err := p.expr()
	if err != nil {
		return nil, err
	}
	return callExpr("_?_:_", cond, then, otherwise), nil
}

// binaryLevels are the binary operators from the loosest to the tightest
// binding, with their CEL function names.
var binaryLevels = []map[string]string{
	{"||": "_||_"},
	{"&&": "_&&_"},
	{"==": "_==_", "!=": "_!=_", "<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "in": "@in"},
	{"+": "_+_", "-": "_-_"},
	{"*": "_*_", "/": "_/_", "%": "_%_"},
}

// binary parses the operators of binaryLevels[level] and tighter, left to
// right. Chains of || become one call with every operand, in order: the
// apiserver reads them left to right whatever the tree's shape.
func (p *selectorParser) binary(level int) (*selectorExpr, error) {
	if level == len(binaryLevels) {
		return p.unary()
	}
	left, err := p.binary(level + 1)
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		op, ok := binaryLevels[level][t.text]
		if !ok || (t.kind != tokPunct && !(t.kind == tokIdent && t.text == "in")) {
			return left, nil
		}
		p.next()
		right, err := p.binary(level + 1)
		if err != nil {
			return nil, err
		}
		if op == "_||_" && left.kind == exprCall && left.function == op {
			left.args = append(left.args, right)
			continue
		}
		left = callExpr(op, left, right)
	}
}

// unary: '!'* member | '-'* member, as CEL reads it: an even run of one
// operator cancels out, an odd run is one call, and the two operators do
// not mix. A single minus directly before an int or double literal is that
// literal's sign, read by primary.
func (p *selectorParser) unary() (*selectorExpr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	op := p.peek()
	if !isPunct(op, "!") && !isPunct(op, "-") {
		return p.member()
	}
	run := 0
	for isPunct(p.toks[p.pos+run], op.text) {
		run++
	}
	if op.text == "-" && run == 1 && isNumber(p.toks[p.pos+1]) {
		return p.member()
	}
	p.pos += run
	if next := p.peek(); isPunct(next, "!") || isPunct(next, "-") {
		if !isPunct(next, "-") || !isNumber(p.toks[p.pos+1]) {
			return nil, p.unexpected(next, "an operand")
		}
	}
	operand, err := p.member()
	if err != nil || run%2 == 0 {
		return operand, err
	}
	return callExpr(op.text+"_", operand), nil
}

// isPunct reports whether t is the punctuation text.
func isPunct(t selectorToken, text string) bool {
	return t.kind == tokPunct && t.text == text
}

// isNumber reports an int or double literal, which a minus may sign.
func isNumber(t selectorToken) bool {
	return t.kind == tokInt || t.kind == tokFloat
}

// member: primary ('.' ident ('(' args ')')? | '[' expr ']')*
func (p *selectorParser) member() (*selectorExpr, error) {
	e, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.accept("."):
			t := p.next()
			if t.kind != tokIdent || isCELKeyword(t.text) {
				return nil, p.unexpected(t, "a field name")
			}
			if p.accept("(") {
				args, err := p.list(")")
				if err != nil {
					return nil, err
				}
				e = callExpr(t.text, args...) // the receiver e is not an argument
				continue
			}
			if isPath(e) && isPunct(p.peek(), "{") {
				p.next()
				// A message literal of a qualified type: a.b.T{...}.
				if e, err = p.structLiteral(); err != nil {
					return nil, err
				}
				continue
			}
			e = &selectorExpr{kind: exprSelect, operand: e, name: t.text}
		case p.accept("["):
			index, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
			e = callExpr("_[_]", e, index)
		default:
			return e, nil
		}
	}
}

// primary: '.'? ident ('(' args ')')? | '(' expr ')' | '[' list ']' |
// '{' map '}' | literal
func (p *selectorParser) primary() (*selectorExpr, error) {
	t := p.next()
	switch t.kind {
	case tokInt, tokUint, tokFloat, tokString, tokBytes:
		return literalOf(t)
	case tokIdent:
		switch t.text {
		case "true", "false":
			return &selectorExpr{kind: exprLiteral, literalType: "bool"}, nil
		case "null":
			return &selectorExpr{kind: exprLiteral, literalType: "structpb.NullValue"}, nil
		case "in":
			return nil, p.unexpected(t, "an expression")
		}
		return p.identOrCall(t.text)
	case tokPunct:
		switch t.text {
		case ".":
			id := p.next()
			if id.kind != tokIdent || isCELKeyword(id.text) {
				return nil, p.unexpected(id, "an identifier")
			}
			return p.identOrCall("." + id.text)
		case "-":
			if num := p.peek(); isNumber(num) {
				p.next()
				return literalOf(selectorToken{kind: num.kind, text: "-" + num.text, pos: num.pos})
			}
		case "(":
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			e.grouped = true
			return e, p.expect(")")
		case "[":
			items, err := p.list("]")
			if err != nil {
				return nil, err
			}
			return &selectorExpr{kind: exprList, args: items}, nil
		case "{":
			return p.mapLiteral()
		}
	}
	return nil, p.unexpected(t, "an expression")
}

// identOrCall finishes an identifier or a global call named name.
func (p *selectorParser) identOrCall(name string) (*selectorExpr, error) {
	if celReservedWords[strings.TrimPrefix(name, ".")] {
		return nil, fmt.Errorf("reserved identifier: %s", strings.TrimPrefix(name, "."))
	}
	if p.accept("{") {
		return p.structLiteral()
	}
	if !p.accept("(") {
		return &selectorExpr{kind: exprIdent, name: name}, nil
	}
	args, err := p.list(")")
	if err != nil {
		return nil, err
	}
	return callExpr(name, args...), nil
}

// list parses comma-separated expressions up to the closing punctuation,
// which it consumes; a trailing comma is allowed in lists, not in calls.
func (p *selectorParser) list(closing string) ([]*selectorExpr, error) {
	var items []*selectorExpr
	if p.accept(closing) || (closing == "]" && p.acceptPair(",", closing)) {
		return items, nil
	}
	for {
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		items = append(items, e)
		if p.accept(closing) {
			return items, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
		if closing == "]" && p.accept(closing) {
			return items, nil
		}
	}
}

// mapLiteral parses the entries of a map literal after its '{'.
func (p *selectorParser) mapLiteral() (*selectorExpr, error) {
	m := &selectorExpr{kind: exprMap}
	if p.accept("}") || p.acceptPair(",", "}") {
		return m, nil
	}
	for {
		key, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		value, err := p.expr()
		if err != nil {
			return nil, err
		}
		m.args = append(m.args, key, value)
		if p.accept("}") {
			return m, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
		if p.accept("}") {
			return m, nil
		}
	}
}

// structLiteral parses the fields of a message literal after its '{':
// name ':' expr, separated by commas, a trailing one allowed.
func (p *selectorParser) structLiteral() (*selectorExpr, error) {
	m := &selectorExpr{kind: exprStruct}
	if p.acceptPair(",", "}") {
		return m, nil
	}
	for !p.accept("}") {
		if field := p.next(); field.kind != tokIdent || isCELKeyword(field.text) {
			return nil, p.unexpected(field, "a field name")
		}
		if err := p.expect(":"); err != nil {
			return nil, err
		}
		value, err := p.expr()
		if err != nil {
			return nil, err
		}
		m.args = append(m.args, value)
		if p.accept("}") {
			return m, nil
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// isPath reports an identifier or a chain of fields selected from one.
func isPath(e *selectorExpr) bool {
	for e.kind == exprSelect && !e.grouped {
		e = e.operand
	}
	return e.kind == exprIdent && !e.grouped
}

// literalOf turns a literal token into an expression, checking that
// numbers are in range as CEL does.
func literalOf(t selectorToken) (*selectorExpr, error) {
	switch t.kind {
	case tokString:
		return &selectorExpr{kind: exprLiteral, literalType: "string", text: t.text}, nil
	case tokBytes:
		return &selectorExpr{kind: exprLiteral, literalType: "[]uint8"}, nil
	case tokInt:
		if _, err := parseCELInt(t.text); err != nil {
			return nil, errors.New("invalid int literal")
		}
		return &selectorExpr{kind: exprLiteral, literalType: "int64"}, nil
	case tokUint:
		digits := strings.TrimRight(t.text, "uU")
		base := 10
		if strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X") {
			digits, base = digits[2:], 16
		}
		if _, err := strconv.ParseUint(digits, base, 64); err != nil {
			return nil, errors.New("invalid uint literal")
		}
		return &selectorExpr{kind: exprLiteral, literalType: "uint64"}, nil
	default: // tokFloat
		if _, err := strconv.ParseFloat(t.text, 64); err != nil {
			return nil, errors.New("invalid double literal")
		}
		return &selectorExpr{kind: exprLiteral, literalType: "float64"}, nil
	}
}

// parseCELInt parses a decimal or 0x-prefixed int literal with an optional
// leading minus.
func parseCELInt(text string) (int64, error) {
	sign := ""
	if strings.HasPrefix(text, "-") {
		sign, text = "-", text[1:]
	}
	if strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X") {
		return strconv.ParseInt(sign+text[2:], 16, 64)
	}
	return strconv.ParseInt(sign+text, 10, 64)
}

// isCELKeyword reports the words CEL lexes as keywords, not identifiers.
func isCELKeyword(word string) bool {
	return word == "true" || word == "false" || word == "null" || word == "in"
}

// celReservedWords may not name variables or functions in CEL.
var celReservedWords = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true,
	"var": true, "void": true, "while": true,
}
