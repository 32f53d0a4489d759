// Package quote renders captured values for the text of findings, notes and
// reports: one place decides how a value is quoted and where it is cut, so that a
// cut never splits a UTF-8 sequence or an escape, and the rest of the program can
// find a value in a message exactly as it was written there.
package quote

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Ellipsis marks a value cut short.
const Ellipsis = "..."

// Default bounds for values in messages: a string, and a compacted JSON value.
const (
	MaxString = 80
	MaxJSON   = 120
)

// String quotes a captured string as a Go/JSON-style literal, cut to at most max
// bytes of the string (on a character boundary, before quoting, so no escape is
// split) with Ellipsis inside the quotes when it was cut: "get_invoice", "a long
// value...".
func String(s string, max int) string {
	if len(s) > max {
		s = s[:runeStart(s, max)] + Ellipsis
	}
	return strconv.Quote(s)
}

// JSON renders a captured JSON value compacted (whitespace outside strings
// removed) and cut to at most max bytes, Ellipsis included. The cut never splits
// a UTF-8 sequence or an escape such as \" or \u00e9.
func JSON(raw string, max int) string {
	return Clip(compact(raw), max)
}

// Clip cuts JSON-like text (strings quoted and escaped) to at most max bytes,
// Ellipsis included, backing off to the start of a character and out of any
// backslash escape inside a string.
func Clip(s string, max int) string {
	if len(s) <= max || max <= len(Ellipsis) {
		return s
	}
	cut := runeStart(s, max-len(Ellipsis))
	if start, ok := escapeAround(s, cut); ok {
		cut = start
	}
	return s[:cut] + Ellipsis
}

// runeStart backs n off to the start of a UTF-8 sequence of s (n < len(s)).
func runeStart(s string, n int) int {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// escapeAround reports the start of the string escape that cut falls inside (a
// cut just after the backslash, or inside the hex digits of \uXXXX).
func escapeAround(s string, cut int) (int, bool) {
	inString := false
	for i := 0; i < cut; i++ {
		switch c := s[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString:
			size := 2
			if i+1 < len(s) && s[i+1] == 'u' {
				size = 6
			}
			if cut < i+size {
				return i, true
			}
			i += size - 1
		}
	}
	return 0, false
}

// compact removes the whitespace outside strings of JSON text.
func compact(raw string) string {
	if !strings.ContainsAny(raw, " \n\t\r") {
		return raw
	}
	var b strings.Builder
	b.Grow(len(raw))
	inString, escaped := false, false
	for i := 0; i < len(raw); i++ {
		ch := raw[i]
		switch {
		case escaped:
			escaped = false
		case ch == '\\' && inString:
			escaped = true
		case ch == '"':
			inString = !inString
		case !inString && (ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r'):
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// Count writes a count of things for people: "1 message", "3 messages".
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
