package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jnode is a JSON value read tolerantly from captured bytes: evidence may be cut
// at rule.MaxEvidence, or not JSON at all (MCP0001), so the reader keeps what it
// could read and marks what it could not.
type jnode struct {
	kind byte // 'o' object, 'a' array, 's' string, 'n' number, 'l' literal, 'x' unreadable rest
	// raw is the token as captured (strings with their quotes and escapes) for
	// scalars, the text for 'x'.
	raw  string
	keys []string // object member names, decoded
	kids []*jnode
	// open marks a container or string that the bytes ended inside.
	open bool
}

// parseJSON reads a value; it never fails: what cannot be read becomes an 'x' node.
func parseJSON(b []byte) *jnode {
	p := &jparser{s: b}
	p.space()
	if p.i >= len(p.s) {
		return &jnode{kind: 'x', raw: ""}
	}
	n := p.value(0)
	p.space()
	if p.i < len(p.s) {
		// trailing bytes after a value: keep them visible as unreadable text
		return &jnode{kind: 'a', kids: []*jnode{n, {kind: 'x', raw: string(p.s[p.i:])}}, raw: "mixed"}
	}
	return n
}

type jparser struct {
	s []byte
	i int
}

// maxDepth bounds the nesting read (deeper values stay unreadable text).
const maxDepth = 64

func (p *jparser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) rest() *jnode {
	n := &jnode{kind: 'x', raw: string(p.s[p.i:])}
	p.i = len(p.s)
	return n
}

func (p *jparser) value(depth int) *jnode {
	p.space()
	if p.i >= len(p.s) {
		return &jnode{kind: 'x', open: true}
	}
	if depth > maxDepth {
		return p.rest()
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		raw, open := p.str()
		return &jnode{kind: 's', raw: raw, open: open}
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
			p.i++
		}
		return &jnode{kind: 'n', raw: string(p.s[start:p.i])}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.s[p.i:], []byte(lit)) {
				p.i += len(lit)
				return &jnode{kind: 'l', raw: lit}
			}
		}
	}
	return p.rest()
}

// str reads a string token with its quotes; open reports that the bytes ended inside it.
func (p *jparser) str() (string, bool) {
	start := p.i
	p.i++
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			return string(p.s[start:p.i]), false
		}
		p.i++
	}
	p.i = len(p.s)
	return string(p.s[start:]), true
}

func (p *jparser) object(depth int) *jnode {
	n := &jnode{kind: 'o'}
	p.i++
	for {
		p.space()
		if p.i >= len(p.s) {
			n.open = true
			return n
		}
		switch p.s[p.i] {
		case '}':
			p.i++
			return n
		case ',':
			p.i++
			continue
		case '"':
		default:
			n.keys = append(n.keys, "")
			n.kids = append(n.kids, p.rest())
			return n
		}
		rawKey, open := p.str()
		key := decodeString(rawKey)
		if open {
			n.keys = append(n.keys, key)
			n.kids = append(n.kids, &jnode{kind: 'x', open: true})
			n.open = true
			return n
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			n.keys = append(n.keys, key)
			if p.i >= len(p.s) {
				n.kids = append(n.kids, &jnode{kind: 'x', open: true})
				n.open = true
			} else {
				n.kids = append(n.kids, p.rest())
			}
			return n
		}
		p.i++
		v := p.value(depth + 1)
		n.keys = append(n.keys, key)
		n.kids = append(n.kids, v)
		if v.open || v.kind == 'x' {
			n.open = n.open || v.open
			return n
		}
	}
}

func (p *jparser) array(depth int) *jnode {
	n := &jnode{kind: 'a'}
	p.i++
	for {
		p.space()
		if p.i >= len(p.s) {
			n.open = true
			return n
		}
		switch p.s[p.i] {
		case ']':
			p.i++
			return n
		case ',':
			p.i++
			continue
		}
		v := p.value(depth + 1)
		n.kids = append(n.kids, v)
		if v.open || v.kind == 'x' {
			n.open = n.open || v.open
			return n
		}
	}
}

// decodeString decodes a string token (with quotes); a token it cannot decode
// (cut, bad escapes) is returned without its quotes, escapes kept.
func decodeString(raw string) string {
	var s string
	if err := json.Unmarshal([]byte(raw), &s); err == nil {
		return s
	}
	raw = strings.TrimPrefix(raw, `"`)
	return strings.TrimSuffix(raw, `"`)
}

// encodeString renders s as a JSON string token: control characters escaped,
// HTML characters left readable.
func encodeString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// compact writes the tree back as compact JSON (the unreadable rest as it was).
func (n *jnode) compact(b *strings.Builder) {
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(encodeString(k))
			b.WriteByte(':')
			n.kids[i].compact(b)
		}
		if !n.open {
			b.WriteByte('}')
		}
	case 'a':
		if n.raw == "mixed" {
			for _, k := range n.kids {
				k.compact(b)
			}
			return
		}
		b.WriteByte('[')
		for i, k := range n.kids {
			if i > 0 {
				b.WriteByte(',')
			}
			k.compact(b)
		}
		if !n.open {
			b.WriteByte(']')
		}
	default:
		b.WriteString(n.raw)
	}
}

// PrettyOptions bound a pretty-printed frame.
type PrettyOptions struct {
	// MaxString cuts string values longer than this many characters (0 = 160).
	MaxString int
	// MaxItems shows at most this many members of an array or object (0 = 12).
	MaxItems int
	// MaxLines cuts the whole rendering (0 = 60).
	MaxLines int
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
	if opt.MaxLines <= 0 {
		opt.MaxLines = 60
	}
	var b strings.Builder
	parseJSON(raw).pretty(&b, "", opt)
	lines := strings.Split(strings.TrimRight(b.String(), " \n"), "\n")
	if len(lines) > opt.MaxLines {
		omitted := len(lines) - opt.MaxLines + 1
		lines = append(lines[:opt.MaxLines-1], fmt.Sprintf("… %d more lines", omitted))
	}
	for i, l := range lines {
		lines[i] = Safe(l)
	}
	return strings.Join(lines, "\n")
}

func (n *jnode) pretty(b *strings.Builder, indent string, opt PrettyOptions) {
	inner := indent + "  "
	switch n.kind {
	case 'o', 'a':
		if n.raw == "mixed" {
			for _, k := range n.kids {
				k.pretty(b, indent, opt)
				b.WriteString("\n")
			}
			return
		}
		open, close := "{", "}"
		if n.kind == 'a' {
			open, close = "[", "]"
		}
		if len(n.kids) == 0 && !n.open {
			b.WriteString(open + close)
			return
		}
		b.WriteString(open + "\n")
		for i, k := range n.kids {
			if i == opt.MaxItems && len(n.kids) > opt.MaxItems+1 {
				what := "items"
				if n.kind == 'o' {
					what = "members"
				}
				fmt.Fprintf(b, "%s… %d more %s\n", inner, len(n.kids)-i, what)
				break
			}
			b.WriteString(inner)
			if n.kind == 'o' {
				b.WriteString(encodeString(n.keys[i]) + ": ")
			}
			k.pretty(b, inner, opt)
			if i < len(n.kids)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		if n.open {
			if len(n.kids) == 0 || !(n.kids[len(n.kids)-1].open || n.kids[len(n.kids)-1].kind == 'x') {
				b.WriteString(inner + "… (the frame was cut here)\n")
			}
			b.WriteString(indent)
			return
		}
		b.WriteString(indent + close)
	case 's':
		s := decodeString(n.raw)
		if utf8.RuneCountInString(s) > opt.MaxString {
			r := []rune(s)
			s = string(r[:opt.MaxString]) + fmt.Sprintf("… (%d more characters)", len(r)-opt.MaxString)
		}
		b.WriteString(encodeString(s))
		if n.open {
			b.WriteString(" … (the frame was cut here)")
		}
	case 'x':
		text := n.raw
		if len(text) > opt.MaxString*2 {
			text = cut(text, opt.MaxString*2) + fmt.Sprintf(" (%d bytes in all)", len(n.raw))
		}
		if text == "" && n.open {
			b.WriteString("… (the frame was cut here)")
			return
		}
		b.WriteString(strings.ReplaceAll(text, "\n", " "))
	default:
		b.WriteString(n.raw)
	}
}

// placeholder is what a redacted value becomes: its type and size, never its content.
func placeholder(n *jnode) string {
	switch n.kind {
	case 's':
		s := decodeString(n.raw)
		if n.open {
			return encodeString(fmt.Sprintf("[redacted string, %d+ chars, cut]", utf8.RuneCountInString(s)))
		}
		return encodeString(fmt.Sprintf("[redacted string, %d chars]", utf8.RuneCountInString(s)))
	case 'n':
		return encodeString("[redacted number, " + strconv.Itoa(len(n.raw)) + " chars]")
	case 'x':
		return encodeString(fmt.Sprintf("[redacted unreadable text, %d bytes]", len(n.raw)))
	}
	return n.raw
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
