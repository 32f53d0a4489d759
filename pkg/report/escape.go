package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe escapes what must never reach a terminal from captured data: C0 control
// characters (ESC, BEL, CR, ...), DEL, C1 controls (which some terminals treat as
// CSI/OSC) and invalid UTF-8. Tabs and newlines are escaped too, so that one
// value stays on one line.
func Safe(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f, r == 0x2028, r == 0x2029, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			fmt.Fprintf(&b, `\u%04x`, r) // C1 controls, line separators, bidi overrides
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
