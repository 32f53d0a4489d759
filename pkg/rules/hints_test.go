package rules_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// TestHintsNameWhatTheFindingLacks: "what to do" is per finding, not per rule: an
// undeclared notifications/message is fixed by declaring logging, not by the
// rule's list_changed example (issue 12 item 10).
func TestHintsNameWhatTheFindingLacks(t *testing.T) {
	capture := `{"ts":"2026-11-30T10:00:00.001Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"ts":"2026-11-30T10:00:00.002Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"ts":"2026-11-30T10:00:00.003Z","dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"ts":"2026-11-30T10:00:00.004Z","dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}}
{"ts":"2026-11-30T10:00:00.005Z","dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}}
{"ts":"2026-11-30T10:00:00.006Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"?","requestedSchema":{"type":"object","properties":{}}}}}
{"ts":"2026-11-30T10:00:00.007Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"result":{"action":"decline"}}}
`
	res, err := driver.Run("hints.jsonl", strings.NewReader(capture), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]struct{ rule, hint string }{
		4: {"MCP2001", `declare logging: {} in the server's capabilities, or stop sending notifications/message`},
		5: {"MCP2001", `declare resources: {"listChanged": true} in the server's capabilities, or stop sending notifications/resources/list_changed`},
		6: {"MCP2002", `branch on the client's declared capabilities before sending elicitation/create (it needs elicitation: {})`},
	}
	for _, f := range res.Sessions[0].Findings {
		w, ok := want[f.Line]
		if !ok || f.Rule != w.rule {
			continue
		}
		if !strings.HasPrefix(f.Hint, w.hint) {
			t.Errorf("line %d %s: hint %q, want it to start %q", f.Line, f.Rule, f.Hint, w.hint)
		}
		delete(want, f.Line)
	}
	for line, w := range want {
		t.Errorf("line %d: no %s finding", line, w.rule)
	}
}

// A declared method answered -32601 for a name the server does not have: the hint
// names the code an unknown tool, prompt or resource gets in that revision, and
// leaves the rule's hint for methods that name nothing (logging/setLevel).
func TestDeclaredNotImplementedHintsTheUnknownNameCode(t *testing.T) {
	capture := `{"dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"prompts":{},"resources":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"subtract","arguments":{}}}}
{"dir":"s->c","msg":{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Unknown tool: subtract"}}}
{"dir":"c->s","msg":{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///x"}}}
{"dir":"s->c","msg":{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no such resource"}}}
{"dir":"c->s","msg":{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"info"}}}
{"dir":"s->c","msg":{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}}
`
	res, err := driver.Run("unknown.jsonl", strings.NewReader(capture), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{
		5: "if tools/call is implemented and only this tool is unknown, answer -32602 (an unknown tool), not -32601",
		7: "if resources/read is implemented and only this resource is unknown, answer -32002 (an unknown resource)",
		9: "",
	}
	for _, f := range res.Sessions[0].Findings {
		w, ok := want[f.Line]
		if !ok || f.Rule != "MCP2004" {
			continue
		}
		if w == "" && strings.Contains(f.Hint, "is unknown") || !strings.HasPrefix(f.Hint, w) {
			t.Errorf("line %d: hint %q, want it to start %q", f.Line, f.Hint, w)
		}
		delete(want, f.Line)
	}
	for line := range want {
		t.Errorf("line %d: no MCP2004 finding", line)
	}
}
