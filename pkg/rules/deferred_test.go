package rules_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// Findings reported after their frame has gone (at notifications/initialized, at the
// end of the session) must keep the frame's method and id: a frame's strings alias
// the reader's buffer, which later lines overwrite.
func TestDeferredFindingsKeepTheirFrame(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"ts":"2026-11-30T02:30:00Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}` + "\n")
	b.WriteString(`{"ts":"2026-11-30T02:30:00.1Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}}` + "\n")
	b.WriteString(`{"ts":"2026-11-30T02:30:00.2Z","dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}` + "\n")
	b.WriteString(`{"ts":"2026-11-30T02:30:00.3Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":"orphan-77","result":{}}}` + "\n")
	for range 200 {
		fmt.Fprintf(&b, `{"ts":"2026-11-30T02:30:01Z","dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}}}`+"\n", strings.Repeat("x", 3000))
	}
	b.WriteString(`{"ts":"2026-11-30T02:30:02Z","dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
	res, err := driver.Run("deferred.jsonl", strings.NewReader(b.String()), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ method, id string }{
		"MCP1006": {"notifications/tools/list_changed", ""},
		"MCP3002": {"", `"orphan-77"`},
	}
	seen := map[string]bool{}
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			w, ok := want[f.Rule]
			if !ok {
				continue
			}
			seen[f.Rule] = true
			if f.Line != 3 && f.Line != 4 || f.Method != w.method || f.ID != w.id {
				t.Errorf("%s at line %d: method %q id %q, want method %q id %q", f.Rule, f.Line, f.Method, f.ID, w.method, w.id)
			}
		}
	}
	for id := range want {
		if !seen[id] {
			t.Errorf("no %s finding", id)
		}
	}
}

// Findings reported at their own frame must not alias the reader's buffer either:
// the JSON report is written after the whole input was read, when later lines have
// overwritten the bytes the frame's method was read from.
func TestImmediateFindingsKeepTheirMethod(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"ts":"2026-11-30T02:30:00Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}` + "\n")
	b.WriteString(`{"ts":"2026-11-30T02:30:00.1Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"logging":{}},"serverInfo":{"name":"s","version":"1"}}}}` + "\n")
	b.WriteString(`{"ts":"2026-11-30T02:30:00.2Z","dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}` + "\n")
	b.WriteString(`{"ts":"2026-11-30T02:30:00.3Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}` + "\n")
	b.WriteString(`{"ts":"2026-11-30T02:30:00.4Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}}` + "\n")
	// More than the reader's buffers hold, with methods of the same length as
	// tools/list in the same place of the line.
	for i := range 400 {
		fmt.Fprintf(&b, `{"ts":"2026-11-30T02:30:01Z","dir":"s->c","msg":{"jsonrpc":"2.0","method":"xxxxx/xxxx","params":{"level":"info","data":%q}}}`+"\n", strings.Repeat("y", 3000+i))
	}
	res, err := driver.Run("immediate.jsonl", strings.NewReader(b.String()), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if f.Rule != "MCP2002" {
				continue
			}
			found = true
			if f.Line != 4 || f.Method != "tools/list" || f.ID != "1" {
				t.Errorf("MCP2002 at line %d: method %q id %q, want line 4, method tools/list, id 1", f.Line, f.Method, f.ID)
			}
		}
	}
	if !found {
		t.Error("no MCP2002 finding for tools/list sent to a server without tools")
	}
}
