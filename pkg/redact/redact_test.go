package redact

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// TestRedactValues: a finding's declared values of the kinds redaction hides are
// replaced exactly where the message shows them, whatever they look like (short,
// with spaces, quotes or "..." inside, bare); names stay; text that merely looks
// like a value (a protocol word, the start of a value) stays.
func TestRedactValues(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, c := range []struct {
		msg  rule.Message
		want string
	}{
		{rule.Sprintf("argument %s rejected", rule.Quote(rule.ValueData, "ab")), `argument "[redacted, 2 chars]" rejected`},
		{rule.Sprintf("argument %s rejected", rule.Quote(rule.ValueData, `say "hi"... now`)), `argument "[redacted, 15 chars]" rejected`},
		{rule.Sprintf(`capability "tools" is fine; argument %s`, rule.Quote(rule.ValueData, "tools are great")), `capability "tools" is fine; argument "[redacted, 15 chars]"`},
		{rule.Sprintf("tools/list changed: added %s", rule.As(rule.ValueURI, "list")), `tools/list changed: added [redacted URI, 4 chars]`},
		{rule.Sprintf("tool %s of %s", rule.Quote(rule.ValueName, "get_invoice"), rule.QuoteJSON(rule.ValueData, `{"q": "secret"}`)), `tool "get_invoice" of {"q":"[redacted string, 6 chars]"}`},
		{rule.Sprintf("instructions start %s", rule.Quote(rule.ValueInstructions, long)), `instructions start "[redacted, 100 chars]"`},
		{rule.Sprintf("(got %s)", rule.Shown(rule.ValueData, `{"type":"text","a":"abc...`, `{"type":"text","a":"abc...`)), `(got {"type":"text","a":"[redacted string, 3+ chars, cut]"...)`},
		{rule.Sprintf("(got %s)", rule.Shown(rule.ValueData, `{"code":-32603}`, `{"code":-32603}`)), `(got {"code":-32603})`},
		{rule.Sprintf("session %s: %s", rule.As(rule.ValueCredential, "abc123"), rule.QuoteJSON(rule.ValueID, `"p1"`)), `session [redacted secret, 6 chars]: "p1"`},
		{rule.Sprintf("uri %s and %s", rule.Quote(rule.ValueURI, "file:///a/b"), rule.Quote(rule.ValueURI, "file:///a/b/c")), `uri "[redacted URI, 11 chars]" and "[redacted URI, 13 chars]"`},
		// One character is "1 char", never "1 chars".
		{rule.Sprintf("argument %s rejected", rule.Quote(rule.ValueData, "a")), `argument "[redacted, 1 char]" rejected`},
		{rule.Sprintf("got %s", rule.QuoteJSON(rule.ValueData, `{"q":"x","n":7}`)), `got {"q":"[redacted string, 1 char]","n":"[redacted number, 1 char]"}`},
		{rule.Sprintf("session %s", rule.As(rule.ValueCredential, "k")), `session [redacted secret, 1 char]`},
	} {
		if got := Message(c.msg.Text, c.msg.Values, nil); got != c.want {
			t.Errorf("Message(%s)\n got %s\nwant %s", c.msg.Text, got, c.want)
		}
	}
}

// TestMaskSecrets: the shapes of secrets masked in free text, and text left alone.
func TestMaskSecrets(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Authorization: Bearer abc.def.ghi", "Authorization: [redacted secret, 18 chars]"},
		{`{"authorization":"Basic dXNlcjpwYXNz"}`, `{"authorization":"[redacted secret, 18 chars]"}`},
		{"Cookie: sid=abc; theme=dark", "Cookie: [redacted secret, 19 chars]"},
		{"set-cookie: id=1", "set-cookie: [redacted secret, 4 chars]"},
		{`headers {"x-api-key":"k-123456"}`, `headers {"x-api-key":"[redacted secret, 8 chars]"}`},
		{"https://host/cb?access_token=abc123&x=1", "https://host/cb?access_token=[redacted secret, 6 chars]&x=1"},
		// Issue 29 item 10: credentials under generic names, in a query only.
		{"https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=AbCdEf%2Bgh%3D", "https://a.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=[redacted secret, 14 chars]"},
		{"https://app/callback?code=SplxlOBeZQQYbYS6&state=xyz", "https://app/callback?code=[redacted secret, 16 chars]&state=xyz"},
		{"POST /token?code_verifier=dBjftJeZ4CVP", "POST /token?code_verifier=[redacted secret, 12 chars]"},
		{`{"error":{"code":-32601,"message":"x"}}`, `{"error":{"code":-32601,"message":"x"}}`},
		{"GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ", "GITHUB_TOKEN=[redacted secret, 34 chars]"},
		{"key sk-proj-abcdefghijklmnop1234", "key [redacted secret, 28 chars]"},
		{"aws AKIAABCDEFGHIJKLMNOP here", "aws [redacted secret, 20 chars] here"},
		{"jwt eyJhbGciOiJIUzI1.eyJzdWIiOiIx.c2lnbmF0dXJl", "jwt [redacted secret, 42 chars]"},
		{"postgres://admin:hunter2@db/x", "postgres://admin:[redacted secret, 7 chars]@db/x"},
		{"password = hunter2", "password = [redacted secret, 7 chars]"},
		{"progressToken: p1", "progressToken: p1"},
		{"maxTokens: 100", "maxTokens: 100"},
		{"server sent notifications/tools/list_changed", "server sent notifications/tools/list_changed"},
		{"progress for token \"p1\" after the response", "progress for token \"p1\" after the response"},
		{"the Authorization header was missing", "the Authorization header was missing"},
	} {
		if got := MaskSecrets(c.in); got != c.want {
			t.Errorf("MaskSecrets(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRedactFrame: what a redacted frame keeps and what it replaces, also for a
// frame cut short and a line that is not JSON.
func TestRedactFrame(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"q":"secret","n":12345,"all":true,"tags":["a1234"]}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"q":"[redacted string, 6 chars]","n":"[redacted number, 5 chars]","all":true,"tags":["[redacted string, 5 chars]"]}}}`},
		{`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string","pattern":"^x$"}}}}],"nextCursor":"c9"}}`,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string","pattern":"^x$"}}}}],"nextCursor":"[redacted string, 2 chars]"}}`},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"field":"since","value":"last month"}}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"field":"[redacted string, 5 chars]","value":"[redacted string, 10 chars]"}}}`},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":0.5,"total":1,"message":"50% of ACME"}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":0.5,"total":1,"message":"[redacted string, 11 chars]"}}`},
		{`[{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///home/ann/notes.txt"}}]`,
			`[{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"[redacted string, 26 chars]"}}]`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"cut he`,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"[redacted string, 6+ chars, cut]"`},
		{`not json at all: password=hunter2`, `"[redacted unreadable text, 33 bytes]"`},
	} {
		if got := string(Frame([]byte(c.in), nil)); got != c.want {
			t.Errorf("Frame(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
