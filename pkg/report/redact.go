package report

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Redaction (--redact) makes a report fit for a ticket: the values carried in
// params and results become a placeholder with their type and length, what triage
// needs stays (methods, ids, capability objects, protocol versions, error codes and
// messages, tool and prompt names and definitions with their schemas, content
// types), and secret-looking strings are masked everywhere, kept fields included.
//
// A finding carries the captured values its message and notes quote, with what
// each is (rule.Value): redaction replaces exactly those of the kinds it hides,
// where the message shows them, and masks secret-looking strings in the rest.

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

// hides says which kinds of captured values --redact replaces in messages: the
// data a session carries, as in frames; names, ids, error messages, versions and
// definitions stay (with secret-looking strings masked), as in frames.
func hides(k rule.ValueKind) bool {
	switch k {
	case rule.ValueData, rule.ValueURI, rule.ValueInstructions, rule.ValueCredential:
		return true
	}
	return false
}

// redactValues replaces, in a finding's message or note, each value it declares
// of a kind redaction hides, exactly where the text shows it (as the value's
// Shown says, not glued to a word), with a placeholder of its kind and length.
// Occurrences are found in the original text and replaced in one pass, longest
// first where two overlap, so a placeholder is never searched again.
func redactValues(text string, values []rule.Value) string {
	type span struct {
		start, end int
		with       string
	}
	var spans []span
	for _, v := range values {
		if !hides(v.Kind) || v.Shown == "" {
			continue
		}
		with := valuePlaceholder(v)
		for from := 0; from < len(text); {
			i := strings.Index(text[from:], v.Shown)
			if i < 0 {
				break
			}
			start, end := from+i, from+i+len(v.Shown)
			if standalone(text, start, end) {
				spans = append(spans, span{start, end, with})
			}
			from = start + 1
		}
	}
	if len(spans) == 0 {
		return text
	}
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].start != spans[j].start {
			return spans[i].start < spans[j].start
		}
		return spans[i].end > spans[j].end
	})
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		if sp.start < at {
			continue // inside a longer value already replaced
		}
		b.WriteString(text[at:sp.start])
		b.WriteString(sp.with)
		at = sp.end
	}
	b.WriteString(text[at:])
	return b.String()
}

// standalone reports whether text[start:end] is not glued to a word on either
// side: a bare value "list" is not the end of "tools/list".
func standalone(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	first, _ := utf8.DecodeRuneInString(text[start:end])
	last, _ := utf8.DecodeLastRuneInString(text[start:end])
	if start > 0 && gluing(before) && gluing(first) {
		return false
	}
	return end == len(text) || !gluing(after) || !gluing(last)
}

// gluing runes join a bare value to the text around it.
func gluing(r rune) bool {
	return isWordRune(r) || r == '/' || r == '-'
}

func isWordRune(r rune) bool {
	return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r > 0x7f
}

// valuePlaceholder is what a hidden value becomes: "[redacted, 18 chars]", quoted
// when the message quoted it, "[redacted URI, ...]" for URIs and "[redacted
// secret, ...]" for credentials; the length is the captured value's, in
// characters. JSON data is redacted as in frames (redactJSONValue).
func valuePlaceholder(v rule.Value) string {
	if v.JSON && v.Kind == rule.ValueData {
		return redactJSONValue(v.Shown)
	}
	text, quoted := v.Text, strings.HasPrefix(v.Shown, `"`)
	n := ""
	switch {
	case v.JSON && strings.HasPrefix(text, `"`):
		n = strconv.Itoa(utf8.RuneCountInString(decodeString(text)))
	default:
		n = strconv.Itoa(utf8.RuneCountInString(text))
	}
	what := "redacted"
	switch v.Kind {
	case rule.ValueURI:
		what = "redacted URI"
	case rule.ValueCredential:
		what = "redacted secret"
	}
	p := "[" + what + ", " + n + " chars]"
	if quoted {
		return `"` + p + `"`
	}
	return p
}

// redactJSONValue redacts a JSON value of a frame quoted in a message (the
// offending value of a schema violation, possibly cut) as its frame is redacted:
// its shape and the members triage needs stay, strings and numbers become
// placeholders.
func redactJSONValue(shown string) string {
	body, cut := strings.CutSuffix(shown, quote.Ellipsis)
	n := parseJSON([]byte(body))
	redactValue(n, nil, false)
	var b strings.Builder
	n.compact(&b)
	if cut {
		b.WriteString(quote.Ellipsis)
	}
	return b.String()
}

// secretName matches member, header and parameter names whose value is a credential.
var secretName = regexp.MustCompile(`(?i)^[a-z0-9_.-]*(api[_-]?key|apikey|access[_-]?key|secret|password|passwd|passphrase|credentials?|private[_-]?key|token|session[_-]?id|sessionid|auth|authorization|cookie|signature|x-api-key)$`)

// notSecretNames are names secretName matches that hold no credential.
var notSecretNames = map[string]bool{"progresstoken": true, "maxtokens": true}

// secretPatterns find credentials in free text. Each has the secret in its last
// group (or is the secret as a whole when it has no group).
var secretPatterns = []*regexp.Regexp{
	// Header-like fields: Authorization: Bearer x, "cookie":"a=b", Set-Cookie: ...
	regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|set-cookie|cookie)(\\?["']?\s*[:=]\s*\\?["']?)([^"'\\\r\n]+)`),
	// name=value and "name": "value" pairs whose name says credential.
	regexp.MustCompile(`(?i)\b([a-z0-9_.-]*(?:api[_-]?key|apikey|access[_-]?key|secret|password|passwd|passphrase|credentials?|private[_-]?key|token|session[_-]?id|sessionid|signature|x-api-key))(\\?["']?\s*[:=]\s*\\?["']?)([A-Za-z0-9._~+/=%:-][^"'\\\s,;&}\]]*)`),
	// Scheme credentials and well-known token shapes.
	regexp.MustCompile(`(?i)\b(bearer)(\s+)([A-Za-z0-9._~+/=-]{8,})`),
	regexp.MustCompile(`\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}`),
	regexp.MustCompile(`\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{10,}`),
	regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}`),
	regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`),
	regexp.MustCompile(`\bglpat-[A-Za-z0-9_-]{20,}`),
	regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9-]{10,}`),
	regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`),
	regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{30,}`),
	regexp.MustCompile(`\bnpm_[A-Za-z0-9]{30,}`),
	regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}`),
	regexp.MustCompile(`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`),
	// Passwords in URLs: scheme://user:password@host
	regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.-]*://[^/\s:@"']+)(:)([^@\s/"']+)@`),
}

// MaskSecrets masks secret-looking substrings of captured text: credentials in
// header-like fields and name=value pairs, bearer tokens, API keys of well-known
// shapes, JWTs, private keys, passwords in URLs.
func MaskSecrets(s string) string {
	if s == "" {
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
			b.WriteString(s[prev:start])
			fmt.Fprintf(&b, "[redacted secret, %d chars]", utf8.RuneCountInString(s[start:end]))
			prev = end
		}
		b.WriteString(s[prev:])
		s = b.String()
	}
	return s
}

func isSecretName(name string) bool {
	return secretName.MatchString(name) && !notSecretNames[strings.ToLower(name)]
}

// RedactFrame redacts one captured frame (a JSON-RPC message or batch, possibly cut
// or not JSON at all) and returns it as compact JSON.
func RedactFrame(raw []byte) []byte {
	if len(raw) == 0 {
		return raw
	}
	n := parseJSON(raw)
	if n.kind == 'a' && n.raw != "mixed" {
		for _, k := range n.kids {
			redactMessage(k)
		}
	} else {
		redactMessage(n)
	}
	var b strings.Builder
	n.compact(&b)
	return []byte(b.String())
}

// redactMessage redacts a JSON-RPC message: its envelope stays, params and result
// are walked, the error keeps its code and message.
func redactMessage(n *jnode) {
	if n.kind != 'o' {
		redactValue(n, nil, false)
		return
	}
	for i, k := range n.keys {
		kid := n.kids[i]
		switch k {
		case "jsonrpc", "id", "method":
			keepValue(kid)
		case "error":
			if kid.kind != 'o' {
				redactValue(kid, nil, false)
				continue
			}
			for j, ek := range kid.keys {
				switch ek {
				case "code", "message":
					keepValue(kid.kids[j])
				default:
					redactValue(kid.kids[j], []string{"error", ek}, true)
				}
			}
		default:
			redactValue(kid, []string{k}, false)
		}
	}
}

// redactValue redacts the value at path; inData is set below a member that holds
// data (arguments, structuredContent, ...).
func redactValue(n *jnode, path []string, inData bool) {
	key := ""
	if len(path) > 0 {
		key = path[len(path)-1]
	}
	if !inData && isSecretName(key) && n.kind != 'o' && n.kind != 'a' {
		redactScalar(n)
		return
	}
	if !inData {
		switch {
		case keptKeys[key]:
			keepValue(n)
			return
		case key == "name" && len(path) == 2 && path[0] == "params":
			keepValue(n) // the tool or prompt of tools/call, prompts/get
			return
		case definitionLists[key] && len(path) == 2 && (path[0] == "result" || path[0] == "params") && n.kind == 'a':
			keepValue(n)
			return
		case keptScalars[key] && n.kind != 'o' && n.kind != 'a':
			keepValue(n)
			return
		case key == "_meta":
			for i, mk := range n.keys {
				if keptKeys[mk] || mk == "progressToken" {
					keepValue(n.kids[i])
				} else {
					redactValue(n.kids[i], append(path, mk), true)
				}
			}
			return
		case dataKeys[key]:
			inData = true
		}
	}
	switch n.kind {
	case 'o':
		for i, k := range n.keys {
			redactValue(n.kids[i], append(path[:len(path):len(path)], k), inData)
		}
	case 'a':
		for _, kid := range n.kids {
			redactValue(kid, append(path[:len(path):len(path)], key), inData)
		}
	default:
		redactScalar(n)
	}
}

// redactScalar replaces a string, number or unreadable text with its placeholder.
func redactScalar(n *jnode) {
	switch n.kind {
	case 's', 'n':
	case 'x':
		if n.raw == "" {
			return
		}
	default:
		return
	}
	n.raw, n.kind = placeholder(n), 's'
	n.open = false
}

// keepValue keeps a value, masking secret-looking strings and the values of
// members whose names say credential.
func keepValue(n *jnode) {
	switch n.kind {
	case 's':
		s := decodeString(n.raw)
		if masked := MaskSecrets(s); masked != s {
			n.raw = encodeString(masked)
			if n.open {
				n.raw = strings.TrimSuffix(n.raw, `"`)
			}
		}
	case 'o':
		for i, k := range n.keys {
			if isSecretName(k) && n.kids[i].kind != 'o' && n.kids[i].kind != 'a' {
				redactScalar(n.kids[i])
				continue
			}
			keepValue(n.kids[i])
		}
	case 'a':
		for _, k := range n.kids {
			keepValue(k)
		}
	case 'x':
		redactScalar(n) // unreadable: cannot tell what it holds
	}
}

// redactKept masks secrets inside a kept JSON value (capability objects).
func redactKept(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return raw
	}
	n := parseJSON(raw)
	keepValue(n)
	var b strings.Builder
	n.compact(&b)
	return json.RawMessage(b.String())
}

// redactID masks a secret-looking string id (ids stay: triage needs them).
func redactID(id json.RawMessage) json.RawMessage {
	if len(id) == 0 || id[0] != '"' {
		return id
	}
	s := decodeString(string(id))
	if masked := MaskSecrets(s); masked != s {
		return json.RawMessage(encodeString(masked))
	}
	return id
}

// tokenLike matches stream keys that look like session identifiers (HTTP
// Mcp-Session-Id values are bearer-like): long runs of token characters.
var tokenLike = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{20,}$`)

// Redact applies --redact to a whole report, in place; every format then renders
// the redacted model. It is idempotent.
func Redact(r *Report) {
	if r.Redacted {
		return
	}
	r.Redacted = true
	for i := range r.Inputs {
		r.Inputs[i].Name = MaskSecrets(r.Inputs[i].Name)
	}
	for i := range r.Sessions {
		RedactSession(&r.Sessions[i])
	}
}

// RedactSession applies --redact to one session (the timeline redacts session by session).
func RedactSession(s *Session) {
	s.Input = MaskSecrets(s.Input)
	if tokenLike.MatchString(s.StreamKey) {
		s.StreamKey = fmt.Sprintf("[redacted stream key, %d chars]", len(s.StreamKey))
	} else {
		s.StreamKey = MaskSecrets(s.StreamKey)
	}
	for _, p := range []*Peer{&s.Client, &s.Server} {
		p.Name, p.Version = MaskSecrets(p.Name), MaskSecrets(p.Version)
		p.Capabilities = redactKept(p.Capabilities)
	}
	v := &s.ProtocolVersion
	v.Requested, v.Answered, v.Negotiated = MaskSecrets(v.Requested), MaskSecrets(v.Answered), MaskSecrets(v.Negotiated)
	for i, n := range s.Notes {
		s.Notes[i] = MaskSecrets(n)
	}
	for i := range s.Findings {
		redactFinding(&s.Findings[i])
	}
	if t := s.Trace; t != nil {
		declaring := make(map[int][]byte, len(t.Declaring))
		for line, raw := range t.Declaring {
			declaring[line] = RedactFrame(raw)
		}
		t.Declaring = declaring
		for i := range t.Frames {
			fs := &t.Frames[i]
			fs.Method, fs.ID, fs.Subject, fs.Text = MaskSecrets(fs.Method), MaskSecrets(fs.ID), MaskSecrets(fs.Subject), MaskSecrets(fs.Text)
		}
		for i := range t.Uses {
			t.Uses[i].Method = MaskSecrets(t.Uses[i].Method)
		}
		for i := range t.Contract {
			for j := range t.Contract[i].Uses {
				t.Contract[i].Uses[j].Method = MaskSecrets(t.Contract[i].Uses[j].Method)
			}
		}
	}
}

func redactFinding(f *Finding) {
	if len(f.Evidence) > 0 {
		f.Evidence = RedactFrame(f.Evidence)
	}
	related := make([]rule.Related, len(f.Related))
	for i, rel := range f.Related {
		related[i] = rule.Related{Line: rel.Line, Note: MaskSecrets(redactValues(rel.Note, rel.Values))}
		if len(rel.Raw) > 0 {
			related[i].Raw = RedactFrame(rel.Raw)
		}
	}
	f.Related = related
	f.Message, f.Values = MaskSecrets(redactValues(f.Message, f.Values)), nil
	f.Input = MaskSecrets(f.Input)
	if f.Method != nil {
		m := MaskSecrets(*f.Method)
		f.Method = &m
	}
	f.ID = redactID(f.ID)
}
