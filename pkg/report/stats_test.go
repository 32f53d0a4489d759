package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/tokens"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// A capture whose figures are known: two tools listed, add called three times
// (10, 20 and 40 ms; one answered isError), div twice (an error after 5 ms, and
// one never answered), instructions of three words.
const statsCapture = `{"ts":"2026-12-01T10:00:00.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"ts":"2026-12-01T10:00:00.010Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"calc","version":"1.0"},"instructions":"Use add first."}}}
{"ts":"2026-12-01T10:00:00.020Z","dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"ts":"2026-12-01T10:00:00.030Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"ts":"2026-12-01T10:00:00.040Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[` + addDef + `,` + divDef + `]}}}
{"ts":"2026-12-01T10:00:01.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}}
{"ts":"2026-12-01T10:00:01.010Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"3"}]}}}
{"ts":"2026-12-01T10:00:02.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":2}}}}
{"ts":"2026-12-01T10:00:02.020Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"4"}]}}}
{"ts":"2026-12-01T10:00:03.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add","arguments":{"a":"x"}}}}
{"ts":"2026-12-01T10:00:03.040Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"a must be a number"}],"isError":true}}}
{"ts":"2026-12-01T10:00:04.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"div","arguments":{"a":1,"b":0}}}}
{"ts":"2026-12-01T10:00:04.005Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"division by zero"}}}
{"ts":"2026-12-01T10:00:05.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"div","arguments":{"a":1,"b":1}}}}
`

const (
	addDef = `{"name":"add","description":"Add two numbers.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}}`
	divDef = `{"name":"div","description":"Divide a by b.","inputSchema":{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}}`
)

// TestStatsFigures: the table's figures are those of the capture, counted here by
// hand (the tokens with the tokenizer tokens_test checks).
func TestStatsFigures(t *testing.T) {
	table, accounting := report.NewStats(), trace.NewAccounting()
	_, err := driver.Run("stats.jsonl", strings.NewReader(statsCapture), nil, driver.RunOptions{Analyses: []*rule.Analysis{accounting}, Discard: true,
		OnSession: func(sr *rule.SessionResult) { table.Add(sr.ResultOf(accounting).(*trace.Account)) }})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.WriteStatsJSON(&b, table); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Timed   bool
		Servers []struct {
			Server, Version                                        string
			Sessions, Frames, InstructionsTokens, DefinitionTokens int
			Tools                                                  []struct {
				Tool                                                        string
				Calls, RPCErrors, IsErrors, Cancelled, Unanswered           int
				ArgumentBytes, ResultBytes, LargestResult, DefinitionTokens int
				P50ms, P95ms, Maxms                                         *float64
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, b.String())
	}
	count := func(s string) int {
		n, err := tokens.Count(s, tokens.O200k)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if !doc.Timed || len(doc.Servers) != 1 {
		t.Fatalf("%s", b.String())
	}
	sv := doc.Servers[0]
	if sv.Server != "calc" || sv.Version != "1.0" || sv.Sessions != 1 || sv.Frames != 14 || sv.InstructionsTokens != count("Use add first.") ||
		sv.DefinitionTokens != count(addDef)+count(divDef) || len(sv.Tools) != 2 {
		t.Fatalf("server %+v\n%s", sv, b.String())
	}
	ms := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	for _, tool := range sv.Tools {
		switch tool.Tool {
		case "add":
			if tool.Calls != 3 || tool.IsErrors != 1 || tool.RPCErrors != 0 || tool.Unanswered != 0 || ms(tool.P50ms) != 20 || ms(tool.P95ms) != 40 || ms(tool.Maxms) != 40 ||
				tool.ArgumentBytes != len(`{"a":1,"b":2}`)+len(`{"a":2,"b":2}`)+len(`{"a":"x"}`) || tool.DefinitionTokens != count(addDef) {
				t.Errorf("add: %+v", tool)
			}
		case "div":
			if tool.Calls != 2 || tool.RPCErrors != 1 || tool.Unanswered != 1 || ms(tool.P50ms) != 5 || ms(tool.Maxms) != 5 || tool.ResultBytes != 0 || tool.DefinitionTokens != count(divDef) {
				t.Errorf("div: %+v", tool)
			}
		default:
			t.Errorf("tool %q", tool.Tool)
		}
	}
	b.Reset()
	if err := report.WriteStatsText(&b, table, 80); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"calc 1.0: 1 session, 14 frames", "│ add  │", "│ 3     │ 1      │ 0", "20ms │ 40ms │ 40ms"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, b.String())
		}
	}
}
