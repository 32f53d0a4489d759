package redact

import (
	"bytes"
	"strings"
)

// Bytes that are not one JSON text (frame.Parse refuses them) are still redacted:
// evidence cut at a bound, a line that is not JSON (MCP0001), a value a message
// quotes cut short. They are read here, tolerantly: what could be read is kept,
// what could not is marked, and reading never fails. pkg/frame has no reader of
// bytes that are not JSON; this one reads them exactly as redaction always has,
// and only them (every JSON text is read with frame.Parse, see walk.go).

// tnode is a JSON value read tolerantly from bytes that are not one JSON text.
type tnode struct {
	// kind is 'o' object, 'a' array, 's' string, 'n' number, 'l' literal, 'x'
	// unreadable rest.
	kind byte
	// raw is the token as captured (strings with their quotes and escapes) for
	// scalars, the text for 'x'.
	raw  string
	keys []string // object member names, decoded
	kids []*tnode
	// open marks a container or string that the bytes ended inside.
	open bool
	// mixed marks the array readLenient makes of a value followed by trailing
	// bytes: the value, then the rest as 'x'; compact writes them back as they were.
	mixed bool
}

// readLenient reads a value; it never fails: what cannot be read becomes an 'x'
// node.
func readLenient(b []byte) *tnode {
	p := &lenient{s: b}
	p.space()
	if p.i >= len(p.s) {
		return &tnode{kind: 'x', raw: ""}
	}
	n := p.value(0)
	p.space()
	if p.i < len(p.s) {
		// trailing bytes after a value: keep them visible as unreadable text
		return &tnode{kind: 'a', kids: []*tnode{n, {kind: 'x', raw: string(p.s[p.i:])}}, mixed: true}
	}
	return n
}

type lenient struct {
	s []byte
	i int
}

// maxDepth bounds the nesting read: a value nested deeper is unreadable text, up
// to the end of the bytes (the walk of a JSON text stops there too, see walk.go).
const maxDepth = 64

func (p *lenient) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *lenient) rest() *tnode {
	n := &tnode{kind: 'x', raw: string(p.s[p.i:])}
	p.i = len(p.s)
	return n
}

func (p *lenient) value(depth int) *tnode {
	p.space()
	if p.i >= len(p.s) {
		return &tnode{kind: 'x', open: true}
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
		return &tnode{kind: 's', raw: raw, open: open}
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
			p.i++
		}
		return &tnode{kind: 'n', raw: string(p.s[start:p.i])}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.s[p.i:], []byte(lit)) {
				p.i += len(lit)
				return &tnode{kind: 'l', raw: lit}
			}
		}
	}
	return p.rest()
}

// str reads a string token with its quotes; open reports that the bytes ended inside it.
func (p *lenient) str() (string, bool) {
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

func (p *lenient) object(depth int) *tnode {
	n := &tnode{kind: 'o'}
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
			n.kids = append(n.kids, &tnode{kind: 'x', open: true})
			n.open = true
			return n
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			n.keys = append(n.keys, key)
			if p.i >= len(p.s) {
				n.kids = append(n.kids, &tnode{kind: 'x', open: true})
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

func (p *lenient) array(depth int) *tnode {
	n := &tnode{kind: 'a'}
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

// compact writes the tree back as compact JSON (the unreadable rest as it was).
func (n *tnode) compact(b []byte) []byte {
	switch n.kind {
	case 'o':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = n.kids[i].compact(b)
		}
		if !n.open {
			b = append(b, '}')
		}
	case 'a':
		if n.mixed {
			for _, k := range n.kids {
				b = k.compact(b)
			}
			return b
		}
		b = append(b, '[')
		for i, k := range n.kids {
			if i > 0 {
				b = append(b, ',')
			}
			b = k.compact(b)
		}
		if !n.open {
			b = append(b, ']')
		}
	default:
		b = append(b, n.raw...)
	}
	return b
}

// treeWalk redacts a tree read tolerantly, in place, as walk (walk.go) redacts a
// JSON text: the same members hidden, kept and collected. It hides the values of
// the kinds a frame carries as data, masks secrets in what it keeps, and, with a
// Set, either adds what it hides and masks to the set (collecting) or replaces
// the set's values in the strings it keeps (applying).
type treeWalk struct {
	set     *Set
	collect bool
	// protocol is set for what a frame keeps exactly (exact).
	protocol bool
}

// exact is the walk for what a frame keeps exactly (see walk.keep).
func (w treeWalk) exact() treeWalk {
	return treeWalk{collect: w.collect, protocol: true}
}

func (w treeWalk) frame(n *tnode) {
	if n.kind == 'a' && !n.mixed {
		for _, k := range n.kids {
			w.message(k)
		}
		return
	}
	w.message(n)
}

func (w treeWalk) message(n *tnode) {
	if n.kind != 'o' {
		w.value(n, path{}, false)
		return
	}
	for i, k := range n.keys {
		kid := n.kids[i]
		switch k {
		case "jsonrpc", "id", "method":
			w.exact().keep(kid)
		case "error":
			if kid.kind != 'o' {
				w.value(kid, path{}, false)
				continue
			}
			for j, ek := range kid.keys {
				switch ek {
				case "code", "message":
					w.keep(kid.kids[j])
				default:
					w.value(kid.kids[j], errorPath(ek), true)
				}
			}
		default:
			w.value(kid, path{}.push(k), false)
		}
	}
}

func (w treeWalk) value(n *tnode, p path, inData bool) {
	container := n.kind == 'o' || n.kind == 'a'
	if !inData {
		switch route(p, container, n.kind == 'a') {
		case routeSecret:
			w.scalar(n)
			return
		case routeKeep:
			w.keep(n)
			return
		case routeExact:
			w.exact().keep(n)
			return
		case routeMeta:
			for i, mk := range n.keys {
				switch metaRoute(mk) {
				case routeKeep:
					w.keep(n.kids[i])
				case routeExact:
					w.exact().keep(n.kids[i])
				default:
					w.value(n.kids[i], p.push(mk), true)
				}
			}
			return
		case routeData:
			inData = true
		}
	}
	switch n.kind {
	case 'o':
		for i, k := range n.keys {
			w.value(n.kids[i], p.push(k), inData)
		}
	case 'a':
		for _, kid := range n.kids {
			w.value(kid, p.push(p.last), inData)
		}
	default:
		w.scalar(n)
	}
}

func (w treeWalk) scalar(n *tnode) {
	switch n.kind {
	case 's', 'n':
	case 'x':
		if n.raw == "" {
			return
		}
	default:
		return
	}
	if w.collect {
		switch n.kind {
		case 's':
			w.set.Add(decodeString(n.raw))
		case 'n':
			w.set.Add(n.raw)
		}
		return
	}
	n.raw, n.kind = n.placeholder(), 's'
	n.open = false
}

func (w treeWalk) keep(n *tnode) {
	switch n.kind {
	case 's':
		if w.collect && w.protocol {
			return
		}
		s := decodeString(n.raw)
		if w.collect {
			maskSecrets(s, w.set.addSecret)
			return
		}
		if kept := w.set.Replace(MaskSecrets(s)); kept != s {
			n.raw = encodeString(kept)
			if n.open {
				n.raw = strings.TrimSuffix(n.raw, `"`)
			}
		}
	case 'o':
		for i, k := range n.keys {
			if kid := n.kids[i]; kid.kind != 'o' && kid.kind != 'a' && isSecretName(k) {
				w.scalar(kid)
				continue
			}
			w.keep(n.kids[i])
		}
	case 'a':
		for _, k := range n.kids {
			w.keep(k)
		}
	case 'x':
		w.scalar(n) // unreadable: cannot tell what it holds
	}
}

// placeholder is what a redacted value becomes: its type and size, never its content.
func (n *tnode) placeholder() string {
	switch n.kind {
	case 's':
		chars := runeCount(decodeString(n.raw))
		if n.open {
			return encodeString(cutStringPlaceholder(chars))
		}
		return encodeString(stringPlaceholder(chars))
	case 'n':
		return encodeString(numberPlaceholder(len(n.raw)))
	case 'x':
		return encodeString(unreadablePlaceholder(len(n.raw)))
	}
	return n.raw
}
