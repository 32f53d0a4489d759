package report

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Redaction (--redact) makes a report fit for a ticket: the values carried in
// params and results become a placeholder with their type and length, what triage
// needs stays (methods, ids, capability objects, protocol versions, error codes and
// messages, tool and prompt names and definitions with their schemas, content
// types), and secret-looking strings are masked everywhere, kept fields included.
//
// Finding messages are free text built by the rules: the values redacted from the
// frames a finding carries (its evidence and related frames) are masked in its
// message and notes too. A value quoted in a message that is in none of those
// frames, and shorter than minLedger characters, is masked only if it looks secret.

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

// minLedger is the shortest redacted value that is also masked in finding messages.
const minLedger = 5

// ledger collects the values redacted from a finding's frames.
type ledger map[string]bool

func (l ledger) add(s string) {
	if l == nil || utf8.RuneCountInString(s) < minLedger || spec.KnownMethod(s) {
		return
	}
	if _, ok := spec.ParseRevision(s); ok {
		return
	}
	l[s] = true
	// Rules also quote the path of a URI ("path /home/ana/notes.txt").
	if u, err := url.Parse(s); err == nil && u.Scheme != "" && utf8.RuneCountInString(u.Path) >= minLedger {
		l[u.Path], l[path.Clean(u.Path)] = true, true
	}
}

// uriInText matches a URI in free text (resource and file URIs are values).
var uriInText = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>)\]]+`)

// maskURIs replaces the URIs in a finding's text: under --redact, URIs are
// values wherever a rule quoted them from.
func maskURIs(text string) string {
	return uriInText.ReplaceAllStringFunc(text, func(u string) string {
		return fmt.Sprintf("[redacted URI, %d chars]", utf8.RuneCountInString(u))
	})
}

// apply masks the collected values in text: where they stand alone, and in any
// quoted string (as rules quote values, escaped and often shortened) that holds
// one of them or the beginning of one.
func (l ledger) apply(text string) string {
	if len(l) == 0 || text == "" {
		return text
	}
	text = quotedLiteral.ReplaceAllStringFunc(text, func(lit string) string {
		cutShort := !strings.HasSuffix(lit, `"`) || len(lit) == 1
		inner, err := strconv.Unquote(lit)
		if err != nil {
			inner = decodeString(strings.TrimSuffix(strings.TrimSuffix(lit, "..."), "…"))
		}
		inner = strings.TrimSuffix(strings.TrimSuffix(inner, "..."), "…")
		if utf8.RuneCountInString(inner) < 3 {
			return lit
		}
		for v := range l {
			if strings.HasPrefix(v, inner) || strings.Contains(inner, v) {
				if cutShort {
					return fmt.Sprintf(`"[redacted, %d+ chars]...`, utf8.RuneCountInString(inner))
				}
				return fmt.Sprintf(`"[redacted, %d chars]"`, utf8.RuneCountInString(inner))
			}
		}
		return lit
	})
	values := make([]string, 0, len(l))
	for v := range l {
		values = append(values, v)
	}
	sort.Slice(values, func(i, j int) bool { return len(values[i]) > len(values[j]) })
	for _, v := range values {
		text = replaceStandalone(text, v, fmt.Sprintf("[redacted, %d chars]", utf8.RuneCountInString(v)))
	}
	return text
}

// quotedLiteral matches a double-quoted string with backslash escapes, or the
// beginning of one that a rule cut with "..." (JSON shortened in a message).
var quotedLiteral = regexp.MustCompile(`"(?:[^"\\]|\\.)*?(?:"|\.\.\.|…)`)

// replaceStandalone replaces v in text where it is not glued to letters or digits.
func replaceStandalone(text, v, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, v)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		end := i + len(v)
		before, _ := utf8.DecodeLastRuneInString(text[:i])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (i > 0 && isWordRune(before) && isWordRune(firstRune(v))) || (end < len(text) && isWordRune(after) && isWordRune(lastRune(v))) {
			b.WriteString(text[:i+1])
			text = text[i+1:]
			continue
		}
		b.WriteString(text[:i])
		b.WriteString(with)
		text = text[end:]
	}
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }

func isWordRune(r rune) bool {
	return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r > 0x7f
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
// or not JSON at all) and returns it as compact JSON. Redacted values are added to
// led when it is not nil.
func RedactFrame(raw []byte, led ledger) []byte {
	if len(raw) == 0 {
		return raw
	}
	n := parseJSON(raw)
	if n.kind == 'a' && n.raw != "mixed" {
		for _, k := range n.kids {
			redactMessage(k, led)
		}
	} else {
		redactMessage(n, led)
	}
	var b strings.Builder
	n.compact(&b)
	return []byte(b.String())
}

// redactMessage redacts a JSON-RPC message: its envelope stays, params and result
// are walked, the error keeps its code and message.
func redactMessage(n *jnode, led ledger) {
	if n.kind != 'o' {
		redactValue(n, nil, false, led)
		return
	}
	for i, k := range n.keys {
		kid := n.kids[i]
		switch k {
		case "jsonrpc", "id", "method":
			keepValue(kid, led)
		case "error":
			if kid.kind != 'o' {
				redactValue(kid, nil, false, led)
				continue
			}
			for j, ek := range kid.keys {
				switch ek {
				case "code", "message":
					keepValue(kid.kids[j], led)
				default:
					redactValue(kid.kids[j], []string{"error", ek}, true, led)
				}
			}
		default:
			redactValue(kid, []string{k}, false, led)
		}
	}
}

// redactValue redacts the value at path; inData is set below a member that holds
// data (arguments, structuredContent, ...).
func redactValue(n *jnode, path []string, inData bool, led ledger) {
	key := ""
	if len(path) > 0 {
		key = path[len(path)-1]
	}
	if !inData && isSecretName(key) && n.kind != 'o' && n.kind != 'a' {
		redactScalar(n, led)
		return
	}
	if !inData {
		switch {
		case keptKeys[key]:
			keepValue(n, led)
			return
		case key == "name" && len(path) == 2 && path[0] == "params":
			keepValue(n, led) // the tool or prompt of tools/call, prompts/get
			return
		case definitionLists[key] && len(path) == 2 && (path[0] == "result" || path[0] == "params") && n.kind == 'a':
			keepValue(n, led)
			return
		case keptScalars[key] && n.kind != 'o' && n.kind != 'a':
			keepValue(n, led)
			return
		case key == "_meta":
			for i, mk := range n.keys {
				if keptKeys[mk] || mk == "progressToken" {
					keepValue(n.kids[i], led)
				} else {
					redactValue(n.kids[i], append(path, mk), true, led)
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
			redactValue(n.kids[i], append(path[:len(path):len(path)], k), inData, led)
		}
	case 'a':
		for _, kid := range n.kids {
			redactValue(kid, append(path[:len(path):len(path)], key), inData, led)
		}
	default:
		redactScalar(n, led)
	}
}

// redactScalar replaces a string, number or unreadable text with its placeholder.
func redactScalar(n *jnode, led ledger) {
	switch n.kind {
	case 's':
		led.add(decodeString(n.raw))
	case 'n':
		if len(n.raw) >= 6 {
			led.add(n.raw)
		}
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
func keepValue(n *jnode, led ledger) {
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
				redactScalar(n.kids[i], led)
				continue
			}
			keepValue(n.kids[i], led)
		}
	case 'a':
		for _, k := range n.kids {
			keepValue(k, led)
		}
	case 'x':
		redactScalar(n, led) // unreadable: cannot tell what it holds
	}
}

// redactKept masks secrets inside a kept JSON value (capability objects).
func redactKept(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return raw
	}
	n := parseJSON(raw)
	keepValue(n, nil)
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
		s.Notes[i] = maskURIs(MaskSecrets(n))
	}
	for i := range s.Findings {
		redactFinding(&s.Findings[i])
	}
	if t := s.Trace; t != nil {
		declaring := make(map[int][]byte, len(t.Declaring))
		for line, raw := range t.Declaring {
			declaring[line] = RedactFrame(raw, nil)
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
	led := ledger{}
	if len(f.Evidence) > 0 {
		f.Evidence = RedactFrame(f.Evidence, led)
	}
	related := make([]rule.Related, len(f.Related))
	for i, rel := range f.Related {
		related[i] = rule.Related{Line: rel.Line, Note: rel.Note}
		if len(rel.Raw) > 0 {
			related[i].Raw = RedactFrame(rel.Raw, led)
		}
	}
	for i := range related {
		related[i].Note = maskURIs(MaskSecrets(led.apply(related[i].Note)))
	}
	f.Related = related
	f.Message = maskURIs(MaskSecrets(led.apply(f.Message)))
	f.Input = MaskSecrets(f.Input)
	if f.Method != nil {
		m := MaskSecrets(*f.Method)
		f.Method = &m
	}
	f.ID = redactID(f.ID)
}
