package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Captured text reaches a terminal, a Markdown renderer, an XML parser or a code
// review screen through the report. What it must never carry raw is decided here,
// once, for every writer (docs/security.md):
//
//   - C0 controls and DEL (ESC starts terminal sequences, CR rewrites a line),
//     and C1 controls (U+0080-U+009F: some terminals read U+009B as CSI);
//   - format characters (Unicode category Cf): bidi embeddings, overrides,
//     isolates and marks (LRM, RLM, ALM), zero-width space, joiners and
//     non-joiner, the word joiner and invisible operators, the BOM, tag
//     characters (U+E0001, U+E0020-U+E007F: "ASCII smuggling"), the soft hyphen;
//   - the line and paragraph separators U+2028 and U+2029;
//   - the other default-ignorable code points (Hangul fillers, the combining
//     grapheme joiner, U+E0000-U+E0FFF) and variation selectors: rendered as
//     nothing, they can hide text inside a name;
//   - noncharacters (U+FFFE, U+FFFF, U+FDD0-U+FDEF, ...): XML cannot carry
//     U+FFFE and U+FFFF at all;
//   - invalid UTF-8.
//
// So a method tools/l\u200bist never prints like tools/list, in any format.

// mustEscape reports whether a character of captured text is written escaped.
func mustEscape(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point,
		unicode.Variation_Selector, unicode.Noncharacter_Code_Point)
}

// Safe escapes captured text for people (text, Markdown, Mermaid, HTML, XML and
// stderr): every character mustEscape names becomes a Go-style escape (\x1b,
// \u200b, \U000e0041), an invalid byte \xNN; tabs and newlines are escaped too,
// so that one value stays on one line. Everything else is kept as it is.
func Safe(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
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
		case !mustEscape(r):
			b.WriteString(s[i : i+size])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// SafeMessageWriter wraps a writer of messages for people (stderr) so that what
// is written to it goes through Safe line by line, its newlines kept (a message
// may list several problems, one a line): file names and captured text in error
// messages reach the terminal escaped, as they do on stdout. It expects whole
// UTF-8 sequences per Write, as fmt's print functions write one message at a time.
func SafeMessageWriter(w io.Writer) io.Writer { return safeMessageWriter{w} }

type safeMessageWriter struct{ w io.Writer }

func (s safeMessageWriter) Write(p []byte) (int, error) {
	out := p
	lines := strings.Split(string(p), "\n")
	escaped := false
	for i, l := range lines {
		if safe := Safe(l); safe != l {
			lines[i], escaped = safe, true
		}
	}
	if escaped {
		out = []byte(strings.Join(lines, "\n"))
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
