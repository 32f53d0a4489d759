package rules_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// Progress on a HAR's standalone GET stream is recorded at the time the stream opened,
// before the requests that carry its tokens: MCP3006 judges only its token, against
// every request of the session, at the end.
func TestProgressOnGetStreamJudgedByTokenOnly(t *testing.T) {
	type header struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	entry := func(method, body string, status int, respType, resp string, sid bool) map[string]any {
		hs := []header{{"Content-Type", "application/json"}}
		if sid {
			hs = append(hs, header{"Mcp-Session-Id", "s1"}, header{"MCP-Protocol-Version", "2025-06-18"})
		}
		req := map[string]any{"method": method, "url": "http://127.0.0.1:3001/mcp", "headers": hs}
		if body != "" {
			req["postData"] = map[string]any{"mimeType": "application/json", "text": body}
		}
		return map[string]any{
			"startedDateTime": "2026-11-30T10:00:00.000Z", "time": 5,
			"request": req,
			"response": map[string]any{"status": status, "headers": []header{{"Content-Type", respType}, {"Mcp-Session-Id", "s1"}},
				"content": map[string]any{"mimeType": respType, "text": resp}},
		}
	}
	sse := func(msgs ...string) string {
		var b strings.Builder
		for _, m := range msgs {
			b.WriteString("event: message\ndata: " + m + "\n\n")
		}
		return b.String()
	}
	har := map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]any{"name": "test"}, "entries": []any{
		entry("POST", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`,
			200, "application/json", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`, false),
		entry("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, "text/plain", "", true),
		entry("GET", "", 200, "text/event-stream", sse(
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}`,
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"ghost","progress":1}}`), true),
		entry("POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{},"_meta":{"progressToken":7}}}`,
			200, "text/event-stream", sse(
				`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":2}}`,
				`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`), true),
	}}}
	data, err := json.Marshal(har)
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run("get-stream-progress.har", strings.NewReader(string(data)), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []rule.Finding
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if f.Rule == "MCP3006" {
				got = append(got, f)
			}
		}
	}
	if len(got) != 1 || got[0].Entry != 3 || got[0].Line != 1 || !strings.Contains(got[0].Message, `server sent progress for token "ghost" on the HTTP GET stream, but no request sent by the client during the session carried that _meta.progressToken`) {
		for _, f := range got {
			t.Logf("reported: entry %d, line %d %s %s", f.Entry, f.Line, f.Rule, f.Message)
		}
		t.Fatalf("want one MCP3006 at entry 3 (line 1: the HAR is one line) for token \"ghost\", got %d", len(got))
	}
}
