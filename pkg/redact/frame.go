package redact

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/jsontree"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// keptKeys are members whose whole value stays (secret-looking strings inside are
// still masked): contract and definitions.
var keptKeys = map[string]bool{
	"capabilities": true, "clientInfo": true, "serverInfo": true, "protocolVersion": true, "supportedVersions": true,
	"inputSchema": true, "outputSchema": true, "requestedSchema": true, "annotations": true, "toolChoice": true,
	spec.MetaProtocolVersion: true, spec.MetaClientCapabilities: true,
	spec.MetaClientInfo: true, spec.MetaServerInfo: true,
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
// publishes (tools, prompts, resource templates: spec.ListResult.Definitions):
// kept whole.
var definitionLists = func() map[string]bool {
	m := map[string]bool{}
	for _, l := range spec.ListResults() {
		if l.Definitions {
			m[l.Member] = true
		}
	}
	return m
}()

// dataKeys hold the values a session carries: everything below them is redacted
// (booleans and null stay: they have no length to hide).
var dataKeys = map[string]bool{
	"arguments": true, "structuredContent": true, "data": true, "inputResponses": true, "contents": true,
	"text": true, "blob": true, "instructions": true, "cursor": true, "nextCursor": true, "uri": true,
}

// Classes of member names (keyClass): the tables above, in one lookup.
const (
	classKept = 1 << iota
	classScalar
	classDefinitions
	classData
)

// keyClass is the class of a member name: which of the tables above hold it
// (TestKeyClasses).
func keyClass(name string) uint8 {
	switch name {
	case "capabilities", "clientInfo", "serverInfo", "protocolVersion", "supportedVersions",
		"inputSchema", "outputSchema", "requestedSchema", "annotations", "toolChoice",
		spec.MetaProtocolVersion, spec.MetaClientCapabilities,
		spec.MetaClientInfo, spec.MetaServerInfo:
		return classKept
	case "jsonrpc", "id", "method", "type", "mimeType", "role", "level",
		"progressToken", "requestId", "progress", "total", "isError", "resultType",
		"ttlMs", "cacheScope", "mode", "action", "stopReason", "includeContext",
		"subscriptionId", "taskId", "elicitationId", "code":
		return classScalar
	case "tools", "prompts", "resourceTemplates":
		return classDefinitions
	case "arguments", "structuredContent", "data", "inputResponses", "contents",
		"text", "blob", "instructions", "cursor", "nextCursor", "uri":
		return classData
	}
	return 0
}

// path is where a value stands in a message, as routing reads it: the first and
// last member names on the way to it and how many there are (an array's elements
// stand at the array's path with its last name once more).
type path struct {
	first, last string
	n           int
}

func (p path) push(name string) path {
	if p.n == 0 {
		p.first = name
	}
	p.last = name
	p.n++
	return p
}

// errorPath is the path of a member of a message's error object.
func errorPath(name string) path { return path{first: "error", last: name, n: 2} }

// A route is what redaction does with a value outside data (route).
type routeKind uint8

const (
	routeWalk   routeKind = iota // walked: containers member by member, scalars hidden
	routeData                    // walked as data: everything below is hidden
	routeSecret                  // a scalar whose name says credential: hidden
	routeKeep                    // kept, secrets masked, the set's values replaced
	routeExact                   // kept exactly, secrets masked
	routeMeta                    // a _meta object (metaRoute for its members)
)

// route is what redaction does with a value at p outside data; container and
// array say what the value is.
func route(p path, container, array bool) routeKind {
	key := p.last
	if !container && isSecretName(key) {
		return routeSecret
	}
	class := keyClass(key)
	switch {
	case class&classKept != 0:
		return routeKeep
	case key == "name" && p.n == 2 && p.first == "params":
		return routeKeep // the tool or prompt of tools/call, prompts/get
	case class&classDefinitions != 0 && p.n == 2 && (p.first == "result" || p.first == "params") && array:
		return routeKeep
	case class&classScalar != 0 && !container:
		return routeExact
	case key == "_meta":
		return routeMeta
	case class&classData != 0:
		return routeData
	}
	return routeWalk
}

// metaRoute is what redaction does with a member of a _meta object: the
// contract members stay, the progress token stays exactly, the rest is data.
func metaRoute(name string) routeKind {
	switch {
	case keptKeys[name]:
		return routeKeep
	case name == "progressToken":
		return routeExact
	}
	return routeData
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
	if n, err := frame.Parse(raw); err == nil {
		w := walk{set: set, out: make([]byte, 0, len(raw))}
		if w.frame(n); !w.deep {
			return w.out
		}
	}
	t := jsontree.Parse(raw)
	treeWalk{set: set}.frame(t)
	return compact(t, len(raw))
}

// Collect adds to set the values Frame hides in a captured frame, and the
// secrets it masks, so that they can be replaced wherever else the session
// prints them. CollectFrame does the same from a frame's tokens, without reading
// its bytes again.
func Collect(raw []byte, set *Set) {
	if len(raw) == 0 || set.saturated() {
		return
	}
	if n, err := frame.Parse(raw); err == nil {
		w := walk{set: set, collect: true}
		w.frame(n)
		return
	}
	treeWalk{set: set, collect: true}.frame(jsontree.Parse(raw))
}

// CollectFrame is Collect of a frame's bytes (f.Raw), read from the tokens its
// scan recorded (f.Node).
func CollectFrame(f *frame.Frame, set *Set) { collectFrame(f, set, nil) }

// collectFrame is CollectFrame with a memo of the kept values that added nothing
// and of the wire shapes of the frames that read no value (nil for none).
//
// A frame whose walk read no value (only the envelope, members kept exactly such
// as a progress token, and the objects around them: a ping, an empty result, a
// progress notification; 42% of the frames of capturegen's healthy profile) adds
// nothing to any set, and what the walk does there depends on the frame's
// member names, types and nesting alone, which its wire shape (frame.Frame.Shape)
// keeps: a frame of a shape met so read is not walked again. Every route that
// reads a value (data, _meta, a kept string, a scalar) marks the walk (content),
// whatever the value, so a shape that leaves a payload out is never taken for
// one without it.
func collectFrame(f *frame.Frame, set *Set, memo *keptMemo) {
	if f == nil || set.saturated() {
		return
	}
	n := f.Node()
	if !n.Exists() {
		Collect(f.Raw, set) // not JSON: read tolerantly
		return
	}
	var shape uint64
	if memo != nil && f.Kind != frame.KindBatch {
		if shape = f.Shape(); shape != 0 && memo.inert(shape) {
			return
		}
	}
	w := walk{set: set, collect: true, memo: memo}
	w.frame(n)
	if shape != 0 && !w.content && !w.deep {
		memo.rememberInert(shape)
	}
}

// Kept masks secrets inside a JSON value that redaction keeps (a capability
// object), and replaces the set's values in its strings.
func Kept(raw json.RawMessage, set *Set) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return raw
	}
	if n, err := frame.Parse(raw); err == nil {
		w := walk{set: set, out: make([]byte, 0, len(raw))}
		if w.keep(n, false, 0); !w.deep {
			return w.out
		}
	}
	t := jsontree.Parse(raw)
	treeWalk{set: set}.keep(t)
	return compact(t, len(raw))
}

// Readable reports whether Kept reads raw as it is: text that is valid UTF-8
// and nested no deeper than jsontree.MaxDepth. Kept rewrites other bytes (an
// invalid byte becomes U+FFFD, what is nested deeper the unreadable placeholder),
// so a caller that must keep a message without secrets exactly as it is masks
// those by their text instead (MaskSecrets).
func Readable(raw []byte) bool {
	if !utf8.Valid(raw) {
		return false
	}
	depth, inString, escaped := 0, false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth >= jsontree.MaxDepth { // with a margin: Kept counts a scalar's depth too
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// ID masks a secret-looking string id (ids stay: triage needs them).
func ID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || id[0] != '"' {
		return id
	}
	s := decodeString(string(id))
	if masked := MaskSecrets(s); masked != s {
		return json.RawMessage(encodeString(masked))
	}
	return id
}

// jsonValue redacts a JSON value of a frame quoted in a message (the offending
// value of a schema violation, possibly cut) as its frame is redacted: its shape
// and the members triage needs stay, strings and numbers become placeholders.
func jsonValue(shown string, set *Set) string {
	body, cut := strings.CutSuffix(shown, quote.Ellipsis)
	var out []byte
	if n, err := frame.Parse([]byte(body)); err == nil {
		w := walk{set: set, out: make([]byte, 0, len(body)+len(quote.Ellipsis))}
		if w.value(n, path{}, false, 0); !w.deep {
			out = w.out
		}
	}
	if out == nil {
		t := jsontree.Parse([]byte(body))
		treeWalk{set: set}.value(t, path{}, false)
		out = compact(t, len(body)+len(quote.Ellipsis))
	}
	if cut {
		out = append(out, quote.Ellipsis...)
	}
	return string(out)
}

// addSecret adds a secret masked in a kept string, and its last word on its own
// ("Bearer abc123": the token alone is what the session repeats elsewhere).
func (s *Set) addSecret(secret string) {
	s.Add(secret)
	if fields := strings.Fields(secret); len(fields) > 1 {
		s.Add(fields[len(fields)-1])
	}
}

// addInnerSecrets adds the secrets inside an argument the set hides whole (an
// api_key= in a URL, an "apiKey" member of JSON in a string): a server echoes
// such a secret alone, where the whole value is not there to replace (issue
// 29). Only the arguments of a request are searched (what a client passes a
// tool or prompt; a result's output is not, its search would cost the redaction
// several times its time), only text (a space, ':', '?', '&' or '"' in it: not
// an encoding such as base64, where token shapes occur by chance), and only a
// value of at most maxInnerSearch bytes.
func (s *Set) addInnerSecrets(value string) {
	if s != nil && len(value) <= maxInnerSearch && strings.ContainsAny(value, " :?&\"") {
		maskSecrets(value, s.addSecret)
	}
}

// maxInnerSearch bounds the arguments searched for secrets inside them.
const maxInnerSearch = 4 << 10

// isArguments reports whether p is a request's arguments (tools/call,
// prompts/get), the values addInnerSecrets searches.
func isArguments(p path) bool { return p.n == 2 && p.first == "params" && p.last == "arguments" }

// Placeholders: what a redacted value becomes, its type and size, never its
// content.

func stringPlaceholder(chars int) string {
	return "[redacted string, " + quote.Count(chars, "char") + "]"
}

func cutStringPlaceholder(chars int) string {
	return "[redacted string, " + strconv.Itoa(chars) + "+ chars, cut]"
}

func numberPlaceholder(size int) string {
	return "[redacted number, " + quote.Count(size, "char") + "]"
}

func unreadablePlaceholder(size int) string {
	return "[redacted unreadable text, " + quote.Count(size, "byte") + "]"
}

func runeCount(s string) int { return utf8.RuneCountInString(s) }
