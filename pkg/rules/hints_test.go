package rules_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
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
	res, err := rule.Run("hints.jsonl", strings.NewReader(capture), rules.All(), rule.RunOptions{})
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
