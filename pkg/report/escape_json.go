package report

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// escapeJSONControls rewrites, inside encoded JSON, the characters that
// encoding/json leaves raw but a terminal may act on (C1 controls such as U+009B
// CSI, bidi overrides and isolates) as \uXXXX escapes: the same JSON value, with
// no raw control character in the bytes. They can only occur inside strings.
func escapeJSONControls(b []byte) []byte {
	clean := true
	for _, c := range b {
		if c >= 0x80 {
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
		if (r >= 0x80 && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// SafeJSONWriter wraps a writer of encoded JSON so that no raw control character
// of captured data reaches it (see escapeJSONControls). It expects whole UTF-8
// sequences per Write, as json.Encoder writes one document at a time.
func SafeJSONWriter(w io.Writer) io.Writer { return safeJSONWriter{w} }

type safeJSONWriter struct{ w io.Writer }

func (s safeJSONWriter) Write(p []byte) (int, error) {
	if _, err := s.w.Write(escapeJSONControls(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}
