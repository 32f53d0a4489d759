package frame

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// IDKey is the key under which a raw JSON id token (a request id, a requestId, a
// progress token) is compared: ids equal in value have the same key, whatever the
// spelling (1, 1.0, 1e0 and 10e-1; -0 and 0; "7" and "\u0037"), and a string never
// has the key of a number ("1" and 1 differ, as JSON-RPC says). Other tokens (null,
// true, an object) are their own key.
//
// Ids are compared on the hot path: a token that is already canonical (an integer
// written without sign of zero, leading zeros, fraction or exponent; a string
// without escapes) is its own key, returned without allocating. A key may alias raw:
// whoever keeps it must copy it, as with raw.
func IDKey(raw string) string {
	if raw == "" {
		return raw
	}
	switch c := raw[0]; {
	case c == '"':
		if strings.IndexByte(raw, '\\') < 0 {
			return raw
		}
		return stringKey(raw)
	case c == '-' || (c >= '0' && c <= '9'):
		if canonicalInteger(raw) {
			return raw
		}
		return numberKey(raw)
	}
	return raw
}

// maxIntegerKey is the most digits a number's key spells out as an integer; a
// larger integer (and every number with a fraction) is keyed as digits and an
// exponent, so that a huge exponent never expands into as many zeros.
const maxIntegerKey = 64

// canonicalInteger reports whether raw is an integer as its key spells it:
// an optional minus, then 0 alone (never -0) or digits without a leading zero.
func canonicalInteger(raw string) bool {
	s := raw
	if s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > maxIntegerKey || (s[0] == '0' && (len(s) > 1 || len(raw) > 1)) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// numberKey is the key of a JSON number that is not a canonical integer: the
// integer it equals, or its significant digits and decimal exponent ("15e-1" for
// 1.5, 150e-2 and 0.15e1). It is computed from the decimal text, never through a
// float, so that distinct large ids stay distinct. A token that is not a JSON
// number is its own key.
func numberKey(raw string) string {
	s := raw
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	mant, exp := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) {
		return raw
	}
	e := 0
	if exp != "" {
		n, err := strconv.Atoi(exp)
		// An exponent beyond what any integer id can have is compared as written.
		if err != nil || n > 1<<30 || n < -(1<<30) {
			return raw
		}
		e = n
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	e -= len(frac)
	if digits == "" {
		return "0" // 0, -0, 0.0, 0e5
	}
	trimmed := strings.TrimRight(digits, "0")
	e += len(digits) - len(trimmed)
	digits = trimmed
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(digits)
	switch {
	case e >= 0 && len(digits)+e <= maxIntegerKey:
		for range e {
			b.WriteByte('0')
		}
	case e != 0:
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(e))
	}
	return b.String()
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// stringKey is the key of a JSON string token with escapes: the string it decodes
// to, quoted with only the escapes a string needs (\" \\ and control characters as
// \u00XX), which spells a string without escapes as its token spells it. Bytes that
// are not valid UTF-8 are kept as they are, as in a token without escapes; a lone
// surrogate decodes to U+FFFD, as encoding/json decodes it. A malformed token is its
// own key.
func stringKey(raw string) string {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return raw
	}
	s := raw[1 : len(raw)-1]
	b := make([]byte, 0, len(raw))
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			b = appendKeyByte(b, c)
			i++
			continue
		}
		if i+1 >= len(s) {
			return raw
		}
		e := s[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			b = appendKeyByte(b, e)
		case 'b':
			b = appendKeyByte(b, '\b')
		case 'f':
			b = appendKeyByte(b, '\f')
		case 'n':
			b = appendKeyByte(b, '\n')
		case 'r':
			b = appendKeyByte(b, '\r')
		case 't':
			b = appendKeyByte(b, '\t')
		case 'u':
			r, ok := hex4(s[i:])
			if !ok {
				return raw
			}
			i += 4
			if utf16.IsSurrogate(r) {
				low, ok := rune(0), false
				if i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
					low, ok = hex4(s[i+2:])
				}
				if pair := utf16.DecodeRune(r, low); ok && pair != utf8.RuneError {
					r = pair
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			if r < 0x80 {
				b = appendKeyByte(b, byte(r))
			} else {
				b = utf8.AppendRune(b, r)
			}
		default:
			return raw
		}
	}
	return string(append(b, '"'))
}

// appendKeyByte appends one byte of a decoded string to its key, escaped if a JSON
// string must escape it.
func appendKeyByte(b []byte, c byte) []byte {
	switch {
	case c == '"' || c == '\\':
		return append(b, '\\', c)
	case c < 0x20:
		const hex = "0123456789abcdef"
		return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
	}
	return append(b, c)
}

func hex4(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(s[:4], 16, 32)
	if err != nil {
		return 0, false
	}
	return rune(n), true
}
