package redact

// The redaction of frames as it was before it read JSON texts with pkg/frame: the
// walk over pkg/jsontree's tree, the secret patterns without a pre-check, Set.Add
// with encoding/json's encoder. The tests compare the redaction with it
// (reference_compare_test.go).

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/jsontree"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
)

// refWalk redacts a frame's tree in place. It hides the values of the kinds a
// frame carries as data, masks secrets in what it keeps, and, with a Set, either
// adds what it hides and masks to the set (collecting) or replaces the set's
// values in the strings it keeps (applying).
type refWalk struct {
	set     *Set
	collect bool
	// protocol is set for what a frame keeps exactly (exact).
	protocol bool
	// arguments is set below a request's arguments.
	arguments bool
}

// exact is the refWalk for what a frame keeps exactly as triage needs it (the
// envelope, ids, enumerations, counters): secrets are still masked, the set's
// values are not replaced in it, and nothing of it is collected (protocol values
// are not what a session echoes).
func (w refWalk) exact() refWalk {
	return refWalk{collect: w.collect, protocol: true}
}

// Frame redacts one captured frame (a JSON-RPC message or batch, possibly cut or
// not JSON at all) and returns it as compact JSON. The values of set (the
// session's, nil for none) are replaced in the strings it keeps (error
// messages, names): a server that echoes a redacted argument shows no more of it
// than the request does.
func refFrame(raw []byte, set *Set) []byte {
	if len(raw) == 0 {
		return raw
	}
	n := jsontree.Parse(raw)
	refWalk{set: set}.frame(n)
	var b strings.Builder
	n.Compact(&b)
	return []byte(b.String())
}

// Collect adds to set the values Frame hides in a captured frame, and the
// secrets it masks, so that they can be replaced wherever else the session
// prints them.
func refCollect(raw []byte, set *Set) {
	if len(raw) == 0 || set == nil {
		return
	}
	refWalk{set: set, collect: true}.frame(jsontree.Parse(raw))
}

func (w refWalk) frame(n *jsontree.Node) {
	if n.Kind == 'a' && !n.Mixed {
		for _, k := range n.Kids {
			w.message(k)
		}
		return
	}
	w.message(n)
}

// message redacts a JSON-RPC message: its envelope stays, params and result are
// walked, the error keeps its code and message.
func (w refWalk) message(n *jsontree.Node) {
	if n.Kind != 'o' {
		w.value(n, nil, false)
		return
	}
	for i, k := range n.Keys {
		kid := n.Kids[i]
		switch k {
		case "jsonrpc", "id", "method":
			w.exact().keep(kid)
		case "error":
			if kid.Kind != 'o' {
				w.value(kid, nil, false)
				continue
			}
			for j, ek := range kid.Keys {
				switch ek {
				case "code", "message":
					w.keep(kid.Kids[j])
				default:
					w.value(kid.Kids[j], []string{"error", ek}, true)
				}
			}
		default:
			w.value(kid, []string{k}, false)
		}
	}
}

// value redacts the value at path; inData is set below a member that holds data
// (arguments, structuredContent, ...).
func (w refWalk) value(n *jsontree.Node, path []string, inData bool) {
	key := ""
	if len(path) > 0 {
		key = path[len(path)-1]
	}
	if !inData && isSecretName(key) && n.Kind != 'o' && n.Kind != 'a' {
		w.scalar(n)
		return
	}
	if !inData {
		switch {
		case keptKeys[key]:
			w.keep(n)
			return
		case key == "name" && len(path) == 2 && path[0] == "params":
			w.keep(n) // the tool or prompt of tools/call, prompts/get
			return
		case definitionLists[key] && len(path) == 2 && (path[0] == "result" || path[0] == "params") && n.Kind == 'a':
			w.keep(n)
			return
		case keptScalars[key] && n.Kind != 'o' && n.Kind != 'a':
			w.exact().keep(n)
			return
		case key == "_meta":
			for i, mk := range n.Keys {
				if keptKeys[mk] {
					w.keep(n.Kids[i])
				} else if mk == "progressToken" {
					w.exact().keep(n.Kids[i])
				} else {
					w.value(n.Kids[i], append(path, mk), true)
				}
			}
			return
		case dataKeys[key]:
			inData = true
			w.arguments = len(path) == 2 && path[0] == "params" && key == "arguments"
		}
	}
	switch n.Kind {
	case 'o':
		for i, k := range n.Keys {
			w.value(n.Kids[i], append(path[:len(path):len(path)], k), inData)
		}
	case 'a':
		for _, kid := range n.Kids {
			w.value(kid, append(path[:len(path):len(path)], key), inData)
		}
	default:
		w.scalar(n)
	}
}

// scalar replaces a string, number or unreadable text with its placeholder (or,
// collecting, adds its value to the set).
func (w refWalk) scalar(n *jsontree.Node) {
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
			v := jsontree.DecodeString(n.Raw)
			refAdd(w.set, v)
			if w.arguments && len(v) <= 4<<10 && strings.ContainsAny(v, " :?&\"") { // a request's short text argument: the secrets inside it
				refMaskSecrets(v, w.addSecret)
			}
		case 'n':
			refAdd(w.set, n.Raw)
		}
		return
	}
	n.Raw, n.Kind = refPlaceholder(n), 's'
	n.Open = false
}

// keep keeps a value, masking secret-looking strings and the values of members
// whose names say credential, and replacing the set's values in its strings.
func (w refWalk) keep(n *jsontree.Node) {
	switch n.Kind {
	case 's':
		if w.collect && w.protocol {
			return
		}
		s := jsontree.DecodeString(n.Raw)
		if w.collect {
			refMaskSecrets(s, w.addSecret)
			return
		}
		hide := w.set.Hide
		if n.Open {
			// What the redaction does since 2026-12-07: decoded as far as it goes.
			s, hide = decodeCutString(n.Raw), w.set.HideCut
		}
		// What it does since the eighth session of 2026-12-07: the set's values
		// and the secrets are hidden together, where a value holds a secret
		// (Set.Hide, tested in TestSetHide); without a set, the reference's
		// secret patterns.
		kept := refMaskSecretsAll(s)
		if w.set != nil {
			kept = hide(s)
		}
		if kept != s {
			n.Raw = jsontree.EncodeString(kept)
			if n.Open {
				n.Raw = strings.TrimSuffix(n.Raw, `"`)
			}
		}
	case 'o':
		for i, k := range n.Keys {
			if isSecretName(k) && n.Kids[i].Kind != 'o' && n.Kids[i].Kind != 'a' {
				w.scalar(n.Kids[i])
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

// addSecret adds a secret masked in a kept string, and its last word on its own
// ("Bearer abc123": the token alone is what the session repeats elsewhere).
func (w refWalk) addSecret(secret string) {
	refAdd(w.set, secret)
	if fields := strings.Fields(secret); len(fields) > 1 {
		refAdd(w.set, fields[len(fields)-1])
	}
}

// placeholder is what a redacted value becomes: its type and size, never its content.
func refPlaceholder(n *jsontree.Node) string {
	switch n.Kind {
	case 's':
		s := jsontree.DecodeString(n.Raw)
		if n.Open {
			return jsontree.EncodeString(fmt.Sprintf("[redacted string, %d+ chars, cut]", utf8.RuneCountInString(s)))
		}
		return jsontree.EncodeString("[redacted string, " + quote.Count(utf8.RuneCountInString(s), "char") + "]")
	case 'n':
		return jsontree.EncodeString("[redacted number, " + quote.Count(len(n.Raw), "char") + "]")
	case 'x':
		return jsontree.EncodeString("[redacted unreadable text, " + quote.Count(len(n.Raw), "byte") + "]")
	}
	return n.Raw
}

// Kept masks secrets inside a JSON value that redaction keeps (a capability
// object), and replaces the set's values in its strings.
func refKept(raw json.RawMessage, set *Set) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return raw
	}
	n := jsontree.Parse(raw)
	refWalk{set: set}.keep(n)
	var b strings.Builder
	n.Compact(&b)
	return json.RawMessage(b.String())
}

// jsonValue redacts a JSON value of a frame quoted in a message (the offending
// value of a schema violation, possibly cut) as its frame is redacted: its shape
// and the members triage needs stay, strings and numbers become placeholders.
func refJSONValue(shown string, set *Set) string {
	body, cut := strings.CutSuffix(shown, quote.Ellipsis)
	n := jsontree.Parse([]byte(body))
	refWalk{set: set}.value(n, nil, false)
	var b strings.Builder
	n.Compact(&b)
	if cut {
		b.WriteString(quote.Ellipsis)
	}
	return b.String()
}

// MaskSecrets masks secret-looking substrings of captured text: credentials in
// header-like fields and name=value pairs, bearer tokens, API keys of well-known
// shapes, JWTs, private keys, passwords in URLs, and token-like path segments
// (/u/<32 hex digits>/mcp: a credential in a URL path).
func refMaskSecretsAll(s string) string {
	return refMaskSecrets(s, nil)
}

// maskSecrets is MaskSecrets; found, when set, receives each secret it masks.
func refMaskSecrets(s string, found func(secret string)) string {
	if len(s) < minSecretText {
		return s
	}
	for _, re := range secretPatterns {
		locs := re.FindAllStringSubmatchIndex(s, -1)
		if locs == nil {
			continue
		}
		var b strings.Builder
		prev := 0
		for _, loc := range locs {
			start, end := loc[0], loc[1]
			if len(loc) >= 8 && loc[6] >= 0 { // name, separator, secret
				if notSecretNames[strings.ToLower(s[loc[2]:loc[3]])] {
					continue
				}
				start, end = loc[6], loc[7]
			}
			if strings.HasPrefix(s[start:end], "[redacted") {
				continue
			}
			if found != nil {
				found(s[start:end])
			}
			b.WriteString(s[prev:start])
			b.WriteString(secretPlaceholder(s[start:end]))
			prev = end
		}
		b.WriteString(s[prev:])
		s = b.String()
	}
	return maskPathTokens(s, found)
}

// Add adds a captured value, and the forms a message or a frame may show it in
// (JSON- or Go-escaped inside quotes).
func refAdd(s *Set, value string) {
	if s == nil || len(value) < MinValue || strings.HasPrefix(value, "[redacted") {
		return
	}
	if len(value) > MaxValue {
		if !s.saturated() && !s.tooLong(len(value)) {
			s.Long = true     // too long to be kept: left out, where a value that long had room
			s.addHeads(value) // the starts of its forms kept (since 2026-12-07)
		}
		return
	}
	n := utf8.RuneCountInString(value)
	refAddForm(s, value, n)
	if refPrintableASCII(value) {
		return // shown as it is, quoted or not
	}
	if enc := strings.Trim(jsontree.EncodeString(value), `"`); enc != value {
		refAddForm(s, enc, n)
	}
	if q := strconv.Quote(value); q[1:len(q)-1] != value {
		refAddForm(s, q[1:len(q)-1], n)
	}
}

// refAddForm adds a form the set's own way: what the reference decides is which
// forms of a value are added, not how the set keeps them.
func refAddForm(s *Set, form string, chars int) { s.add(form, chars) }

func refPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
