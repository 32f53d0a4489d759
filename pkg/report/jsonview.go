package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/jsontree"
)

// PrettyOptions bound a pretty-printed frame.
type PrettyOptions struct {
	// MaxString cuts string values longer than this many characters (0 = 160).
	MaxString int
	// MaxItems shows at most this many members of an array or object (0 = 12).
	MaxItems int
	// maxLines cuts the whole rendering (0 = 60).
	maxLines int
}

// Pretty renders captured JSON for people: indented, long strings and long lists
// shortened with the count of what was left out, what could not be read shown as
// text, and every line passed through Safe. It never fails.
func Pretty(raw []byte, opt PrettyOptions) string {
	if opt.MaxString <= 0 {
		opt.MaxString = 160
	}
	if opt.MaxItems <= 0 {
		opt.MaxItems = 12
	}
	if opt.maxLines <= 0 {
		opt.maxLines = 60
	}
	var b strings.Builder
	pretty(&b, jsontree.Parse(raw), "", opt)
	lines := strings.Split(strings.TrimRight(b.String(), " \n"), "\n")
	if len(lines) > opt.maxLines {
		omitted := len(lines) - opt.maxLines + 1
		lines = append(lines[:opt.maxLines-1], fmt.Sprintf("… %d more lines", omitted))
	}
	for i, l := range lines {
		lines[i] = Safe(l)
	}
	return strings.Join(lines, "\n")
}

func pretty(b *strings.Builder, n *jsontree.Node, indent string, opt PrettyOptions) {
	inner := indent + "  "
	switch n.Kind {
	case 'o', 'a':
		if n.Mixed {
			for _, k := range n.Kids {
				pretty(b, k, indent, opt)
				b.WriteString("\n")
			}
			return
		}
		open, close := "{", "}"
		if n.Kind == 'a' {
			open, close = "[", "]"
		}
		if len(n.Kids) == 0 && !n.Open {
			b.WriteString(open + close)
			return
		}
		b.WriteString(open + "\n")
		for i, k := range n.Kids {
			if i == opt.MaxItems && len(n.Kids) > opt.MaxItems+1 {
				what := "items"
				if n.Kind == 'o' {
					what = "members"
				}
				fmt.Fprintf(b, "%s… %d more %s\n", inner, len(n.Kids)-i, what)
				break
			}
			b.WriteString(inner)
			if n.Kind == 'o' {
				b.WriteString(jsontree.EncodeString(n.Keys[i]) + ": ")
			}
			pretty(b, k, inner, opt)
			if i < len(n.Kids)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		if n.Open {
			if len(n.Kids) == 0 || !(n.Kids[len(n.Kids)-1].Open || n.Kids[len(n.Kids)-1].Kind == 'x') {
				b.WriteString(inner + "… (the frame was cut here)\n")
			}
			b.WriteString(indent)
			return
		}
		b.WriteString(indent + close)
	case 's':
		s := jsontree.DecodeString(n.Raw)
		if utf8.RuneCountInString(s) > opt.MaxString {
			r := []rune(s)
			s = string(r[:opt.MaxString]) + fmt.Sprintf("… (%d more characters)", len(r)-opt.MaxString)
		}
		b.WriteString(jsontree.EncodeString(s))
		if n.Open {
			b.WriteString(" … (the frame was cut here)")
		}
	case 'x':
		text := n.Raw
		if len(text) > opt.MaxString*2 {
			text = cut(text, opt.MaxString*2) + fmt.Sprintf(" (%d bytes in all)", len(n.Raw))
		}
		if text == "" && n.Open {
			b.WriteString("… (the frame was cut here)")
			return
		}
		b.WriteString(strings.ReplaceAll(text, "\n", " "))
	default:
		b.WriteString(n.Raw)
	}
}

// cut shortens captured text to at most n bytes on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
