package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/jsontree"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
)

// keptKeys are members whose whole value stays (secret-looking strings inside are
// still masked): contract and definitions.
var keptKeys = map[string]bool{
	"capabilities": true, "clientInfo": true, "serverInfo": true, "protocolVersion": true, "supportedVersions": true,
	"inputSchema": true, "outputSchema": true, "requestedSchema": true, "annotations": true, "toolChoice": true,
	"io.modelcontextprotocol/protocolVersion": true, "io.modelcontextprotocol/clientCapabilities": true,
	"io.modelcontextprotocol/clientInfo": true, "io.modelcontextprotocol/serverInfo": true,
}

// keptScalars are members whose scalar value stays wherever they appear outside
// data (ids, enumerations, counters, flags the rules judge).
var keptScalars = map[string]bool{
	"jsonrpc": true, "id": true, "method": true, "type": true, "mimeType": true, "role": true, "level": true,
	"progressToken": true, "requestId": true, "progress": true, "total": true, "isError": true, "resultType": true,
	"ttlMs": true, "cacheScope": true, "mode": true, "action": true, "stopReason": true, "includeContext": true,
	"subscriptionId": true, "taskId": true, "elicitationId": true, "code": true, "message": false,
}

// definitionLists are result members whose entries are definitions the server
// publishes (tools, prompts, resource templates): kept whole.
var definitionLists = map[string]bool{"tools": true, "prompts": true, "resourceTemplates": true}

// dataKeys hold the values a session carries: everything below them is redacted
// (booleans and null stay: they have no length to hide).
var dataKeys = map[string]bool{
	"arguments": true, "structuredContent": true, "data": true, "inputResponses": true, "contents": true,
	"text": true, "blob": true, "instructions": true, "cursor": true, "nextCursor": true, "uri": true,
}

// walk redacts a frame's tree in place. It hides the values of the kinds a
// frame carries as data, masks secrets in what it keeps, and, with a Set, either
// adds what it hides and masks to the set (collecting) or replaces the set's
// values in the strings it keeps (applying).
type walk struct {
	set     *Set
	collect bool
	// protocol is set for what a frame keeps exactly (exact).
	protocol bool
}

// exact is the walk for what a frame keeps exactly as triage needs it (the
// envelope, ids, enumerations, counters): secrets are still masked, the set's
// values are not replaced in it, and nothing of it is collected (protocol values
// are not what a session echoes).
func (w walk) exact() walk {
	return walk{collect: w.collect, protocol: true}
}

// Frame redacts one captured frame (a JSON-RPC message or batch, possibly cut or
// not JSON at all) and returns it as compact JSON. The values of set (the
// session's, nil for none) are replaced in the strings it keeps (error
// messages, names): a server that echoes a redacted argument shows no more of it
// than the request does.
func Frame(raw []byte, set *Set) []byte {
	if len(raw) == 0 {
		return raw
	}
	n := jsontree.Parse(raw)
	walk{set: set}.frame(n)
	var b strings.Builder
	n.Compact(&b)
	return []byte(b.String())
}

// Collect adds to set the values Frame hides in a captured frame, and the
// secrets it masks, so that they can be replaced wherever else the session
// prints them.
func Collect(raw []byte, set *Set) {
	if len(raw) == 0 || set == nil {
		return
	}
	walk{set: set, collect: true}.frame(jsontree.Parse(raw))
}

func (w walk) frame(n *jsontree.Node) {
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
func (w walk) message(n *jsontree.Node) {
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
func (w walk) value(n *jsontree.Node, path []string, inData bool) {
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
func (w walk) scalar(n *jsontree.Node) {
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
			w.set.Add(jsontree.DecodeString(n.Raw))
		case 'n':
			w.set.Add(n.Raw)
		}
		return
	}
	n.Raw, n.Kind = placeholder(n), 's'
	n.Open = false
}

// keep keeps a value, masking secret-looking strings and the values of members
// whose names say credential, and replacing the set's values in its strings.
func (w walk) keep(n *jsontree.Node) {
	switch n.Kind {
	case 's':
		if w.collect && w.protocol {
			return
		}
		s := jsontree.DecodeString(n.Raw)
		if w.collect {
			maskSecrets(s, w.addSecret)
			return
		}
		if kept := w.set.Replace(MaskSecrets(s)); kept != s {
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
func (w walk) addSecret(secret string) {
	w.set.Add(secret)
	if fields := strings.Fields(secret); len(fields) > 1 {
		w.set.Add(fields[len(fields)-1])
	}
}

// placeholder is what a redacted value becomes: its type and size, never its content.
func placeholder(n *jsontree.Node) string {
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
func Kept(raw json.RawMessage, set *Set) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return raw
	}
	n := jsontree.Parse(raw)
	walk{set: set}.keep(n)
	var b strings.Builder
	n.Compact(&b)
	return json.RawMessage(b.String())
}

// ID masks a secret-looking string id (ids stay: triage needs them).
func ID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || id[0] != '"' {
		return id
	}
	s := jsontree.DecodeString(string(id))
	if masked := MaskSecrets(s); masked != s {
		return json.RawMessage(jsontree.EncodeString(masked))
	}
	return id
}

// jsonValue redacts a JSON value of a frame quoted in a message (the offending
// value of a schema violation, possibly cut) as its frame is redacted: its shape
// and the members triage needs stay, strings and numbers become placeholders.
func jsonValue(shown string, set *Set) string {
	body, cut := strings.CutSuffix(shown, quote.Ellipsis)
	n := jsontree.Parse([]byte(body))
	walk{set: set}.value(n, nil, false)
	var b strings.Builder
	n.Compact(&b)
	if cut {
		b.WriteString(quote.Ellipsis)
	}
	return b.String()
}
