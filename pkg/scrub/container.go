package scrub

import (
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
)

// containerState is what the container scan carries from line to line: a
// pretty-printed HAR gives a header's name and its value on lines of their own.
type containerState struct {
	// key is the member name the next string answers ("" when the next string
	// is no member's value).
	key string
	// credential is set after {"name": "Authorization"} until the object ends:
	// its "value" is a credential.
	credential bool
	session    bool
	// named is set after {"name": "Mcp-Name"}.
	named bool
}

// containerScan replaces the credentials the container of the frames names: a
// JSON member whose name says credential or session ("Mcp-Session-Id": ...,
// "session_id": ..., "Authorization": ...), and the value of a name/value pair
// whose name does ({"name": "Cookie", "value": ...}, as HAR headers, cookies
// and query strings are). Strings are read at the line's top level, not inside
// other strings: a frame's own members were replaced by its walk.
func (c *copier) containerScan(line []byte) []byte {
	var spans []span
	st := &c.header
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '}':
			st.credential, st.session, st.named, st.key = false, false, false, ""
		case ',', '{', '[':
			st.key = ""
		case '"':
			end := stringEnd(line, i)
			if end < 0 {
				return c.replaced(line, spans)
			}
			body := line[i+1 : end]
			j := end + 1
			for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r' || line[j] == '\n') {
				j++
			}
			if j < len(line) && line[j] == ':' {
				st.key = string(body)
				i = j
				continue
			}
			key := st.key
			st.key = ""
			i = end
			if len(body) == 0 {
				continue
			}
			kind, ok := Kind(""), false
			if !isPlainWord(body) {
				c.shapeSecrets(unescapedBody(body)) // a URL's token, a header's bearer
			}
			switch {
			case strings.EqualFold(key, "name"):
				name := string(body)
				st.session = isSessionName(name)
				st.named = strings.EqualFold(name, "mcp-name")
				st.credential = !st.session && redact.IsSecretName(name)
				continue
			case strings.EqualFold(key, "value") && st.named, strings.EqualFold(key, "mcp-name"):
				// Mcp-Name repeats a request's params.name or params.uri:
				// replaced where the frame's value was, so they still agree.
				if with := c.names.of(unescapedBody(body)); c.opt.Values && c.seen[with] {
					spans = append(spans, span{end - len(body), end, with})
					c.sum.Replaced[KindValue]++
				}
				continue
			case strings.EqualFold(key, "value") && st.session:
				kind, ok = KindSessionID, true
			case strings.EqualFold(key, "value") && st.credential:
				kind, ok = KindHeader, true
			case isSessionName(key):
				kind, ok = KindSessionID, true
			case redact.IsSecretName(key):
				kind, ok = KindHeader, true
			}
			if !ok {
				continue
			}
			v := unescapedBody(body)
			if isPseudonym(v) {
				continue
			}
			if token := credentialOf(v); kind == KindHeader && token != v && isPlain(body) {
				// "Bearer abc": the scheme stays, the token goes.
				at := end - len(token)
				with := c.names.of(token)
				spans = append(spans, span{at, end, with})
				c.counted(kind, token, with)
				continue
			}
			with := c.names.of(v)
			spans = append(spans, span{end - len(body), end, with})
			c.counted(kind, v, with)
		}
	}
	return c.replaced(line, spans)
}

// counted counts a replaced value and looks for it in the lines after.
func (c *copier) counted(kind Kind, v, with string) {
	c.sum.Replaced[kind]++
	c.see(with)
	c.global.add(v, with)
}

func (c *copier) replaced(line []byte, spans []span) []byte {
	out, _ := replaceSpans(line, spans)
	return out
}

// isSessionName reports whether a header or member names an HTTP session
// (Mcp-Session-Id, a recording's session_id).
func isSessionName(name string) bool {
	return strings.EqualFold(name, "mcp-session-id") || strings.EqualFold(name, "session_id") || strings.EqualFold(name, "sessionId")
}

// isPlainWord reports whether a string's body is one word of letters, digits,
// '-', '_', '.' and '/': no secret shape fits in it but a path token (which
// needs 16 bytes) or a key without its name (which needs its prefix).
func isPlainWord(body []byte) bool {
	if len(body) >= 16 {
		return false
	}
	for _, c := range body {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '/') {
			return false
		}
	}
	return true
}

// isPlain reports whether a string's body has no escapes.
func isPlain(body []byte) bool {
	for _, c := range body {
		if c == '\\' {
			return false
		}
	}
	return true
}
