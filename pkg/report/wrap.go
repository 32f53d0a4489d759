package report

import (
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// Text views fit a width (the terminal's, decided once by the command): lines
// are broken at spaces; a word wider than a line (a JSON object, a URI, a long
// method name) is broken after a comma, a slash or a dot that fits, else at the
// width. Widths are display columns: wide characters count two, the palette's
// ANSI sequences nothing.

// textWidth is the display width of s, colour sequences left out.
func textWidth(s string) int {
	// Most of what is measured is printable ASCII: one column a byte. Anything else
	// (a colour escape, a wide or combining character) is measured by twwidth.
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return twwidth.Width(s)
		}
	}
	return len(s)
}

// Wrap wraps every line of text to width columns at word boundaries, for the
// commands whose text is written elsewhere (audit, validate-args): the lines it
// adds start with the indent of the line they continue plus more.
func Wrap(text string, width int, more string) string { return wrapText(text, width, more) }

// wrapText wraps every line of text to width columns; the lines it adds start
// with the indent of the line they continue plus more (the hanging indent).
func wrapText(text string, width int, more string) string {
	lines := strings.Split(text, "\n")
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteString("\n")
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		b.WriteString(strings.Join(wrapLine(line, width, indent+more), "\n"))
	}
	return b.String()
}

// wrapLine breaks one line (no newline in it) into lines of at most width
// columns; every line after the first starts with indent. The spaces between
// words are kept as they are (alignment), and dropped at a break.
func wrapLine(line string, width int, indent string) []string {
	if textWidth(line) <= width {
		return []string{line}
	}
	indentWidth := textWidth(indent)
	if indentWidth >= width-10 { // no room to hang: continue at the margin
		indent, indentWidth = "", 0
	}
	// The line being filled is built in place (appending to a string each word
	// made wrapping quadratic in the length of a line).
	var out []string
	var cur strings.Builder
	lead, rest := splitSpaces(line)
	cur.WriteString(lead)
	curWidth, empty := textWidth(lead), true
	// flush ends the line being filled, without its trailing spaces when trim is
	// set, and starts the next one at the indent.
	flush := func(trim bool) {
		l := cur.String()
		if trim {
			l = strings.TrimRight(l, " ")
		}
		out = append(out, l)
		cur = strings.Builder{}
		cur.WriteString(indent)
		curWidth, empty = indentWidth, true
	}
	add := func(s string, w int) {
		cur.WriteString(s)
		curWidth, empty = curWidth+w, false
	}
	for rest != "" {
		var word, gap string
		word, rest = splitWord(rest)
		gap, rest = splitSpaces(rest)
		ww := textWidth(word)
		if curWidth+ww <= width {
			add(word, ww)
		} else if !empty && indentWidth+ww <= width {
			flush(true)
			add(word, ww)
		} else {
			// The word does not fit on a line of its own: break it, starting
			// on this line when a useful part fits there.
			if !empty && width-curWidth < 8 {
				flush(true)
			}
			for word != "" {
				head, tail := breakWord(word, width-curWidth)
				if head == "" {
					flush(true)
					head, tail = breakWord(word, width-curWidth)
				}
				add(head, textWidth(head))
				if word = tail; word != "" {
					flush(false)
				}
			}
		}
		if gap != "" && rest != "" {
			cur.WriteString(gap)
			curWidth += len(gap)
		}
	}
	if !empty || len(out) == 0 {
		out = append(out, strings.TrimRight(cur.String(), " "))
	}
	return out
}

// packParts lays parts out on lines of at most width columns, separated by sep
// on a line, whole parts to a line where they fit: a line after the first
// starts with indent, and a part wider than a line is wrapped on its own.
func packParts(parts []string, sep string, width int, indent string) []string {
	var out []string
	cur := ""
	for i, p := range parts {
		switch {
		case i == 0:
			cur = p
		case textWidth(cur+sep+p) <= width:
			cur += sep + p
		default:
			out = append(out, wrapLine(cur, width, indent)...)
			cur = indent + p
		}
	}
	return append(out, wrapLine(cur, width, indent)...)
}

// splitSpaces splits s after its leading spaces.
func splitSpaces(s string) (spaces, rest string) {
	n := len(s) - len(strings.TrimLeft(s, " "))
	return s[:n], s[n:]
}

// splitWord splits s before its first space.
func splitWord(s string) (word, rest string) {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// breakWord splits a word so that its head takes at most room columns: after
// the last comma, slash, dot, colon, ampersand, equals sign or hyphen that fits
// past the first third of the room, else at the room (at least one character,
// whatever the room). Colour sequences are never split.
func breakWord(w string, room int) (head, rest string) {
	if room <= 0 {
		return "", w
	}
	if textWidth(w) <= room {
		return w, ""
	}
	cut, soft, used := 0, 0, 0
	for i := 0; i < len(w); {
		if n := ansiLength(w[i:]); n > 0 {
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(w[i:])
		rw := textWidth(string(r))
		if used+rw > room {
			break
		}
		used += rw
		i += size
		cut = i
		if strings.ContainsRune(",/.:&=-", r) && used*3 >= room && !strings.HasPrefix(w[i:], string(r)) {
			soft = i
		}
	}
	if soft > 0 {
		cut = soft
	}
	if cut == 0 {
		_, size := utf8.DecodeRuneInString(w)
		cut = size
	}
	// Keep a colour sequence that closes the head with it.
	for n := ansiLength(w[cut:]); n > 0; n = ansiLength(w[cut:]) {
		cut += n
	}
	return w[:cut], w[cut:]
}

// ansiLength is the length of the colour (CSI) sequence s starts with, 0 when
// it starts with none.
func ansiLength(s string) int {
	if len(s) < 2 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return i + 1
		}
	}
	return 0
}
