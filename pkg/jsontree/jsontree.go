// Package jsontree reads JSON from captured bytes tolerantly: a frame may be cut
// short (evidence is kept up to a bound) or not JSON at all (MCP0001), so the
// reader keeps what it could read, marks what it could not, and never fails.
// Redaction rewrites frames through it and the reports pretty-print them from it.
package jsontree

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Node is a JSON value read tolerantly from captured bytes: evidence may be cut
// at rule.MaxEvidence, or not JSON at all (MCP0001), so the reader keeps what it
// could read and marks what it could not.
type Node struct {
	// Kind is 'o' object, 'a' array, 's' string, 'n' number, 'l' literal, 'x'
	// unreadable rest.
	Kind byte
	// Raw is the token as captured (strings with their quotes and escapes) for
	// scalars, the text for 'x'.
	Raw  string
	Keys []string // object member names, decoded
	Kids []*Node
	// Open marks a container or string that the bytes ended inside.
	Open bool
	// Mixed marks the array Parse makes of a value followed by trailing bytes:
	// the value, then the rest as 'x'; Compact writes them back as they were.
	Mixed bool
}

// Parse reads a value; it never fails: what cannot be read becomes an 'x' node.
func Parse(b []byte) *Node {
	p := &parser{s: b}
	p.space()
	if p.i >= len(p.s) {
		return &Node{Kind: 'x', Raw: ""}
	}
	n := p.value(0)
	p.space()
	if p.i < len(p.s) {
		// trailing bytes after a value: keep them visible as unreadable text
		return &Node{Kind: 'a', Kids: []*Node{n, {Kind: 'x', Raw: string(p.s[p.i:])}}, Mixed: true}
	}
	return n
}

type parser struct {
	s []byte
	i int
}

// MaxDepth bounds the nesting read (deeper values stay unreadable text); redaction
// reads JSON texts no deeper, so that both readers hide the same values.
const MaxDepth = 64

func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) rest() *Node {
	n := &Node{Kind: 'x', Raw: string(p.s[p.i:])}
	p.i = len(p.s)
	return n
}

func (p *parser) value(depth int) *Node {
	p.space()
	if p.i >= len(p.s) {
		return &Node{Kind: 'x', Open: true}
	}
	if depth > MaxDepth {
		return p.rest()
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		raw, open := p.str()
		return &Node{Kind: 's', Raw: raw, Open: open}
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
			p.i++
		}
		return &Node{Kind: 'n', Raw: string(p.s[start:p.i])}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.s[p.i:], []byte(lit)) {
				p.i += len(lit)
				return &Node{Kind: 'l', Raw: lit}
			}
		}
	}
	return p.rest()
}

// str reads a string token with its quotes; open reports that the bytes ended inside it.
func (p *parser) str() (string, bool) {
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

func (p *parser) object(depth int) *Node {
	n := &Node{Kind: 'o'}
	p.i++
	for {
		p.space()
		if p.i >= len(p.s) {
			n.Open = true
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
			n.Keys = append(n.Keys, "")
			n.Kids = append(n.Kids, p.rest())
			return n
		}
		rawKey, open := p.str()
		key := DecodeString(rawKey)
		if open {
			n.Keys = append(n.Keys, key)
			n.Kids = append(n.Kids, &Node{Kind: 'x', Open: true})
			n.Open = true
			return n
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			n.Keys = append(n.Keys, key)
			if p.i >= len(p.s) {
				n.Kids = append(n.Kids, &Node{Kind: 'x', Open: true})
				n.Open = true
			} else {
				n.Kids = append(n.Kids, p.rest())
			}
			return n
		}
		p.i++
		v := p.value(depth + 1)
		n.Keys = append(n.Keys, key)
		n.Kids = append(n.Kids, v)
		if v.Open || v.Kind == 'x' {
			n.Open = n.Open || v.Open
			return n
		}
	}
}

func (p *parser) array(depth int) *Node {
	n := &Node{Kind: 'a'}
	p.i++
	for {
		p.space()
		if p.i >= len(p.s) {
			n.Open = true
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
		n.Kids = append(n.Kids, v)
		if v.Open || v.Kind == 'x' {
			n.Open = n.Open || v.Open
			return n
		}
	}
}

// DecodeString decodes a string token (with quotes); a token it cannot decode
// (cut, bad escapes) is returned without its quotes, escapes kept.
func DecodeString(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && plainString(raw[1:len(raw)-1]) {
		return raw[1 : len(raw)-1]
	}
	var s string
	if err := json.Unmarshal([]byte(raw), &s); err == nil {
		return s
	}
	raw = strings.TrimPrefix(raw, `"`)
	return strings.TrimSuffix(raw, `"`)
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

// EncodeString renders s as a JSON string token: control characters escaped,
// HTML characters left readable.
func EncodeString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// Compact writes the tree back as compact JSON (the unreadable rest as it was).
func (n *Node) Compact(b *strings.Builder) {
	switch n.Kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.Keys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(EncodeString(k))
			b.WriteByte(':')
			n.Kids[i].Compact(b)
		}
		if !n.Open {
			b.WriteByte('}')
		}
	case 'a':
		if n.Mixed {
			for _, k := range n.Kids {
				k.Compact(b)
			}
			return
		}
		b.WriteByte('[')
		for i, k := range n.Kids {
			if i > 0 {
				b.WriteByte(',')
			}
			k.Compact(b)
		}
		if !n.Open {
			b.WriteByte(']')
		}
	default:
		b.WriteString(n.Raw)
	}
}
