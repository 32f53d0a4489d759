package redact

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// JSON string tokens as redaction reads and writes them: decoded as
// encoding/json decodes them (bytes that are not UTF-8 become U+FFFD, one for
// each), written as encoding/json writes them with HTML characters left readable.

// appendString appends s as a JSON string token, as a json.Encoder with
// SetEscapeHTML(false) writes it: control characters escaped (\b \f \n \r \t or
// \u00XX), quotes and backslashes escaped, each byte that is not UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029, everything else as it is.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// encodeString is s as a JSON string token (appendString).
func encodeString(s string) string {
	if plainText(s) {
		return `"` + s + `"`
	}
	b := appendString(make([]byte, 0, len(s)+8), s)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// plainText reports whether s is printable ASCII without quotes or backslashes:
// a JSON string token of it is s between quotes.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// validUTF8 is s with each byte that is not part of a UTF-8 sequence replaced by
// U+FFFD, as encoding/json decodes a string; s itself when it is valid.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// str is a string value of a Node as encoding/json decodes it (validUTF8 of
// Node.Str). It aliases the Node's text when the string has neither escapes nor
// bytes that are not UTF-8.
func str(n frame.Node) string {
	s, _ := n.Str()
	return validUTF8(s)
}

// decodeString decodes a string token (with quotes) read from captured bytes,
// possibly cut or with bad escapes: as encoding/json decodes it when it is one
// valid JSON string, else the token without its quotes, escapes kept.
func decodeString(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && plainString(raw[1:len(raw)-1]) {
		return raw[1 : len(raw)-1]
	}
	if n, err := frame.Parse([]byte(raw)); err == nil {
		switch n.Kind() {
		case '"':
			return str(n)
		case 'n':
			return "" // what json.Unmarshal leaves in a string for null
		}
	}
	if len(raw) > 0 && raw[0] == '"' {
		raw = raw[1:]
	}
	if len(raw) > 0 && raw[len(raw)-1] == '"' {
		raw = raw[:len(raw)-1]
	}
	return raw
}

// plainString reports whether a string token's body decodes to itself: no
// escape, no quote, no control character, valid UTF-8.
func plainString(body string) bool {
	for i := 0; i < len(body); i++ {
		if c := body[i]; c == '\\' || c == '"' || c < 0x20 {
			return false
		}
	}
	return utf8.ValidString(body)
}

// view is b as a string, without copying: b must not change while it is used.
func view(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// decodeCutString decodes a string token that the bytes ended inside (no
// closing quote): its escapes are decoded but for one the cut broke (a last
// backslash, or \u with fewer than four digits after it), which is dropped.
// decodeString cannot decode such a token and returns it with its escapes: a
// value echoed in it, escaped differently from how the set keeps it (\u00fc for
// ü), would not be found.
func decodeCutString(raw string) string {
	body := strings.TrimPrefix(raw, `"`)
	if i := strings.LastIndexByte(body, '\\'); i >= 0 && len(body)-i < 6 {
		j := i
		for j > 0 && body[j-1] == '\\' {
			j--
		}
		// An odd run of backslashes ends at i: body[i] starts an escape.
		if (i-j)%2 == 0 && (i+1 == len(body) || body[i+1] == 'u') {
			body = body[:i]
		}
	}
	return decodeString(`"` + body + `"`)
}
