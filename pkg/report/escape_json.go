package report

import (
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// escapeJSONText rewrites encoded JSON so that it is valid UTF-8 and carries no
// character mustEscape names raw, with the same values: encoding/json escapes C0
// controls but leaves DEL, C1 controls, bidi and zero-width characters, tag
// characters and noncharacters raw; those become \uXXXX escapes (a surrogate
// pair above U+FFFF), which decode to the very same string. Invalid UTF-8, which
// raw tokens copied from a capture may hold (ids, capability objects), becomes
// \ufffd, as encoding/json writes it for every other string: a valid id is kept
// byte for byte, an id with invalid bytes is written as the replacement
// character. All of these can only occur inside strings.
func escapeJSONText(b []byte) []byte {
	clean := true
	for _, c := range b {
		if c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = append(out, `\ufffd`...)
		case r < 0x7f || !mustEscape(r): // below DEL: whitespace between tokens, or escaped already
			out = append(out, b[i:i+size]...)
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
	}
	return out
}

// safeJSONWriter wraps a writer of encoded JSON so that what reaches it is valid
// UTF-8 with no raw control, format or invisible character (escapeJSONText). It
// expects whole UTF-8 sequences per Write, as json.Encoder writes one document at
// a time. Every JSON writer of the package writes through it.
func safeJSONWriter(w io.Writer) io.Writer { return jsonTextWriter{w} }

// SafeJSONWriter is safeJSONWriter, for the JSON views of other packages
// (audit's): captured names reach the reader escaped as in every report.
func SafeJSONWriter(w io.Writer) io.Writer { return safeJSONWriter(w) }

type jsonTextWriter struct{ w io.Writer }

func (s jsonTextWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(escapeJSONText(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
