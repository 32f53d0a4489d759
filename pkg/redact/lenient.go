package redact

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/jsontree"
	"strings"
)

// Bytes that are not one JSON text (frame.Parse refuses them) are still redacted:
// evidence cut at a bound, a line that is not JSON (MCP0001), a value a message
// quotes cut short. They are read tolerantly by jsontree.Parse (what could be read
// is kept, what could not is marked, and reading never fails), as the report's
// JSON view reads them, and only them: every JSON text is read with frame.Parse
// (walk.go).

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
	// arguments is set below a request's arguments (walk.arguments).
	arguments bool
}

// exact is the walk for what a frame keeps exactly (see walk.keep).
func (w treeWalk) exact() treeWalk {
	return treeWalk{collect: w.collect, protocol: true}
}

func (w treeWalk) frame(n *jsontree.Node) {
	if n.Kind == 'a' && !n.Mixed {
		for _, k := range n.Kids {
			w.message(k)
		}
		return
	}
	w.message(n)
}

func (w treeWalk) message(n *jsontree.Node) {
	if n.Kind != 'o' {
		w.value(n, path{}, false)
		return
	}
	for i, k := range n.Keys {
		kid := n.Kids[i]
		switch k {
		case "jsonrpc", "id", "method":
			w.exact().keep(kid)
		case "error":
			if kid.Kind != 'o' {
				w.value(kid, path{}, false)
				continue
			}
			for j, ek := range kid.Keys {
				switch ek {
				case "code", "message":
					w.keep(kid.Kids[j])
				default:
					w.value(kid.Kids[j], errorPath(ek), true)
				}
			}
		default:
			w.value(kid, path{}.push(k), false)
		}
	}
}

func (w treeWalk) value(n *jsontree.Node, p path, inData bool) {
	container := n.Kind == 'o' || n.Kind == 'a'
	if !inData {
		switch route(p, container, n.Kind == 'a') {
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
			for i, mk := range n.Keys {
				switch metaRoute(mk) {
				case routeKeep:
					w.keep(n.Kids[i])
				case routeExact:
					w.exact().keep(n.Kids[i])
				default:
					w.value(n.Kids[i], p.push(mk), true)
				}
			}
			return
		case routeData:
			inData = true
			w.arguments = isArguments(p)
		}
	}
	switch n.Kind {
	case 'o':
		for i, k := range n.Keys {
			w.value(n.Kids[i], p.push(k), inData)
		}
	case 'a':
		for _, kid := range n.Kids {
			w.value(kid, p.push(p.last), inData)
		}
	default:
		w.scalar(n)
	}
}

func (w treeWalk) scalar(n *jsontree.Node) {
	switch n.Kind {
	case 's', 'n':
	case 'x':
		if n.Raw == "" {
			return
		}
	default:
		return
	}
	if w.collect {
		switch n.Kind {
		case 's':
			v := decodeString(n.Raw)
			w.set.Add(v)
			if w.arguments {
				w.set.addInnerSecrets(v)
			}
		case 'n':
			w.set.Add(n.Raw)
		}
		return
	}
	n.Raw, n.Kind = placeholder(n), 's'
	n.Open = false
}

func (w treeWalk) keep(n *jsontree.Node) {
	switch n.Kind {
	case 's':
		if w.collect && w.protocol {
			return
		}
		s := decodeString(n.Raw)
		if w.collect {
			maskSecrets(s, w.set.addSecret)
			return
		}
		hide := w.set.Hide
		if n.Open {
			// Cut short: decoded as far as it goes, and it may end with the
			// start of a value (ReplaceCut).
			s, hide = decodeCutString(n.Raw), w.set.HideCut
		}
		if kept := hide(s); kept != s {
			n.Raw = encodeString(kept)
			if n.Open {
				n.Raw = strings.TrimSuffix(n.Raw, `"`)
			}
		}
	case 'o':
		for i, k := range n.Keys {
			if kid := n.Kids[i]; kid.Kind != 'o' && kid.Kind != 'a' && isSecretName(k) {
				w.scalar(kid)
				continue
			}
			w.keep(n.Kids[i])
		}
	case 'a':
		for _, k := range n.Kids {
			w.keep(k)
		}
	case 'x':
		w.scalar(n) // unreadable: cannot tell what it holds
	}
}

// placeholder is what a redacted value becomes: its type and size, never its content.
func placeholder(n *jsontree.Node) string {
	switch n.Kind {
	case 's':
		chars := runeCount(decodeString(n.Raw))
		if n.Open {
			return encodeString(cutStringPlaceholder(chars))
		}
		return encodeString(stringPlaceholder(chars))
	case 'n':
		return encodeString(numberPlaceholder(len(n.Raw)))
	case 'x':
		return encodeString(unreadablePlaceholder(len(n.Raw)))
	}
	return n.Raw
}

// compact writes a tree read tolerantly back as compact JSON (the unreadable rest
// as it was), into a new slice of capacity size.
func compact(n *jsontree.Node, size int) []byte {
	var b strings.Builder
	b.Grow(size)
	n.Compact(&b)
	return []byte(b.String())
}
