package shard

import (
	"fmt"
	"strings"
)

// celSyntaxError starts the messages of selectors that do not parse, as
// CEL's do.
const celSyntaxError = "Syntax error"

// selectorTokenKind classifies the tokens of a shard selector.
type selectorTokenKind int

const (
	tokEOF selectorTokenKind = iota
	tokIdent
	tokInt
	tokUint
	tokFloat
	tokString
	tokBytes
	tokPunct
)

// selectorToken is one token: its kind, its text (a string literal's value
// without quotes) and its byte offset in the selector.
type selectorToken struct {
	kind selectorTokenKind
	text string
	pos  int
}

// selectorPunctuation lists the operators and punctuation of CEL, longest
// first so that "||" is not read as two "|".
var selectorPunctuation = []string{
	"||", "&&", "==", "!=", "<=", ">=",
	"(", ")", "[", "]", "{", "}", ",", ".", ":", "?",
	"!", "-", "+", "*", "/", "%", "<", ">",
}

// lexSelector splits s into tokens, ending with a tokEOF. It skips CEL's
// whitespace and // comments.
func lexSelector(s string) ([]selectorToken, error) {
	var toks []selectorToken
	for i := 0; ; {
		for i < len(s) {
			if strings.IndexByte(" \t\r\n\f", s[i]) >= 0 {
				i++
				continue
			}
			if strings.HasPrefix(s[i:], "//") {
				end := strings.IndexByte(s[i:], '\n')
				if end < 0 {
					i = len(s)
					break
				}
				i += end + 1
				continue
			}
			break
		}
		if i == len(s) {
			return append(toks, selectorToken{kind: tokEOF, pos: i}), nil
		}
		t, n, err := lexToken(s, i)
		if err != nil {
			return nil, err
		}
		toks = append(toks, t)
		i += n
	}
}

// lexToken reads the token at s[i:], which is not whitespace, and returns
// it with its length in bytes.
func lexToken(s string, i int) (selectorToken, int, error) {
	rest := s[i:]
	c := rest[0]
	switch {
	case isDigit(c) || (c == '.' && len(rest) > 1 && isDigit(rest[1])):
		return lexNumber(s, i)
	case startsString(rest):
		return lexString(s, i)
	case c == '_' || isLetter(c):
		n := 1
		for n < len(rest) && (rest[n] == '_' || isLetter(rest[n]) || isDigit(rest[n])) {
			n++
		}
		return selectorToken{kind: tokIdent, text: rest[:n], pos: i}, n, nil
	}
	for _, p := range selectorPunctuation {
		if strings.HasPrefix(rest, p) {
			return selectorToken{kind: tokPunct, text: p, pos: i}, len(p), nil
		}
	}
	if c == '`' {
		return selectorToken{}, 0, fmt.Errorf("%s: backquoted field names are not supported (offset %d)", celSyntaxError, i)
	}
	r := []rune(rest)[0]
	return selectorToken{}, 0, fmt.Errorf("%s: unexpected character %q at offset %d", celSyntaxError, r, i)
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }
func isLetter(c byte) bool   { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// lexNumber reads an int (decimal or 0x hex), a uint (the same with a u
// suffix) or a double (digits with a fraction or an exponent).
func lexNumber(s string, i int) (selectorToken, int, error) {
	rest := s[i:]
	n := 0
	digitsWhile := func(ok func(byte) bool) {
		for n < len(rest) && ok(rest[n]) {
			n++
		}
	}
	if strings.HasPrefix(rest, "0x") || strings.HasPrefix(rest, "0X") {
		n = 2
		digitsWhile(isHexDigit)
		if n == 2 {
			return selectorToken{}, 0, fmt.Errorf("%s: hex number without digits at offset %d", celSyntaxError, i)
		}
		if n < len(rest) && (rest[n] == 'u' || rest[n] == 'U') {
			return selectorToken{kind: tokUint, text: rest[:n+1], pos: i}, n + 1, nil
		}
		return selectorToken{kind: tokInt, text: rest[:n], pos: i}, n, nil
	}
	digitsWhile(isDigit)
	isFloat := false
	if n+1 < len(rest) && rest[n] == '.' && isDigit(rest[n+1]) {
		isFloat = true
		n++
		digitsWhile(isDigit)
	}
	if n < len(rest) && (rest[n] == 'e' || rest[n] == 'E') {
		m := n + 1
		if m < len(rest) && (rest[m] == '+' || rest[m] == '-') {
			m++
		}
		if m < len(rest) && isDigit(rest[m]) {
			isFloat = true
			n = m
			digitsWhile(isDigit)
		}
	}
	if isFloat {
		return selectorToken{kind: tokFloat, text: rest[:n], pos: i}, n, nil
	}
	if n < len(rest) && (rest[n] == 'u' || rest[n] == 'U') {
		return selectorToken{kind: tokUint, text: rest[:n+1], pos: i}, n + 1, nil
	}
	return selectorToken{kind: tokInt, text: rest[:n], pos: i}, n, nil
}

// startsString reports a string or bytes literal at the start of rest: an
// optional b, an optional r, then a quote.
func startsString(rest string) bool {
	j := 0
	if j < len(rest) && (rest[j] == 'b' || rest[j] == 'B') {
		j++
	}
	if j < len(rest) && (rest[j] == 'r' || rest[j] == 'R') {
		j++
	}
	return j < len(rest) && (rest[j] == '\'' || rest[j] == '"')
}

// lexString reads a string or bytes literal: single, double or triple
// quotes, raw (r prefix) or not. Escape sequences are refused, since this
// lexer does not decode them; a raw string has none.
func lexString(s string, i int) (selectorToken, int, error) {
	rest := s[i:]
	kind := tokString
	j := 0
	if rest[j] == 'b' || rest[j] == 'B' {
		kind = tokBytes
		j++
	}
	raw := false
	if rest[j] == 'r' || rest[j] == 'R' {
		raw = true
		j++
	}
	quote := rest[j : j+1]
	if strings.HasPrefix(rest[j:], strings.Repeat(quote, 3)) {
		quote = strings.Repeat(quote, 3)
	}
	j += len(quote)
	start := j
	for j < len(rest) {
		switch {
		case strings.HasPrefix(rest[j:], quote):
			return selectorToken{kind: kind, text: rest[start:j], pos: i}, j + len(quote), nil
		case rest[j] == '\\' && !raw:
			return selectorToken{}, 0, fmt.Errorf("%s: escape sequences in string literals are not supported (offset %d)", celSyntaxError, i+j)
		case (rest[j] == '\n' || rest[j] == '\r') && len(quote) == 1:
			return selectorToken{}, 0, fmt.Errorf("%s: line break in a string literal at offset %d", celSyntaxError, i+j)
		}
		j++
	}
	return selectorToken{}, 0, fmt.Errorf("%s: unterminated string literal at offset %d", celSyntaxError, i)
}
