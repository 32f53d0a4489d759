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

// TestStatsDocument: the Markdown and HTML reports show the figures of
// TestStatsFigures' capture: the table, and in HTML a bar per definition and for
// the instructions, as long as their tokens, and the latencies by range (10 and
// 20 ms in 10-100 ms, 5 ms in 1-10 ms, 40 ms in 10-100 ms); a tool name from the
// capture is escaped in both.
func TestStatsDocument(t *testing.T) {
	hostile := strings.ReplaceAll(strings.ReplaceAll(statsCapture, `"name":"div"`, `"name":"<script>div</script>|x"`), `"name":"div",`, `"name":"<script>div</script>|x",`)
	table, accounting := report.NewStats(), trace.NewAccounting()
	if _, err := driver.Run("stats.jsonl", strings.NewReader(hostile), nil, driver.RunOptions{Analyses: []*rule.Analysis{accounting}, Discard: true,
		OnSession: func(sr *rule.SessionResult) { table.Add(sr.ResultOf(accounting).(*trace.Account)) }}); err != nil {
		t.Fatal(err)
	}
	var md, html bytes.Buffer
	if err := report.WriteStatsMarkdown(&md, table); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteStatsHTML(&html, table, "test"); err != nil {
		t.Fatal(err)
	}
	addTokens, _ := tokens.Count(addDef, tokens.O200k)
	for _, want := range []string{"## calc 1.0", "| tool | tokens | calls | errors | isError | cancelled | no reply | p50 | p95 | max | args B | results B | largest B |",
		"| add | " + itoa(addTokens) + " | 3 | 0 | 1 | 0 | 0 | 20ms | 40ms | 40ms | " + itoa(len(`{"a":1,"b":2}`)+len(`{"a":2,"b":2}`)+len(`{"a":"x"}`)) + " |",
		`| &lt;script&gt;div&lt;/script&gt;\|x | `} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	h := html.String()
	if strings.Contains(h, "<script>div") || !strings.Contains(h, "&lt;script&gt;div&lt;/script&gt;|x") {
		t.Errorf("the tool name is not escaped in the HTML")
	}
	if n := strings.Count(h, `<g class="bar">`); n != 3 {
		t.Errorf("%d bars in the cost chart, want 3 (instructions, add, div)", n)
	}
	if !strings.Contains(h, ">instructions</text>") || !strings.Contains(h, ">"+itoa(addTokens)+"</text></g>") {
		t.Errorf("the cost chart lacks the instructions or add's tokens")
	}
	// 5 ms (div) in 1-10 ms; 10, 20 and 40 ms (add) in 10-100 ms.
	for bucket, count := range map[string]int{"1-10 ms": 1, "10-100 ms": 3, "&lt; 1 ms": 0} {
		want := `>` + itoa(count) + `</text><text x="`
		i := strings.Index(h, ">"+bucket+"</text></g>")
		if i < 0 || !strings.Contains(h[max(0, i-200):i], want) {
			t.Errorf("the latency chart: bucket %s should count %d", bucket, count)
		}
	}
	if !strings.Contains(h, "Latency of 4 answered calls, by range") {
		t.Errorf("the latency chart's caption")
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// A session whose prompts, base64 contents and replaced tool list are known:
// prompts/list lists "greet", prompts/get gets it (8 ms); a tools/call of
// "shot" answers an image of 8 base64 bytes and an embedded blob of 4; after
// list_changed the tool list is asked again and holds "shot" and "zoom", not
// "old".
const statsMoreCapture = `{"ts":"2026-12-01T10:00:00.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"ts":"2026-12-01T10:00:00.010Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"prompts":{}},"serverInfo":{"name":"cam","version":"2"}}}}
{"ts":"2026-12-01T10:00:00.020Z","dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"ts":"2026-12-01T10:00:00.030Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}
{"ts":"2026-12-01T10:00:00.040Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"shot","inputSchema":{"type":"object"}},{"name":"old","inputSchema":{"type":"object"}}]}}}
{"ts":"2026-12-01T10:00:00.050Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":2,"method":"prompts/list"}}
{"ts":"2026-12-01T10:00:00.060Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":2,"result":{"prompts":[{"name":"greet","description":"Say hello."}]}}}
{"ts":"2026-12-01T10:00:01.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"greet","arguments":{"who":"ana"}}}}
{"ts":"2026-12-01T10:00:01.008Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":3,"result":{"messages":[{"role":"user","content":{"type":"text","text":"hello ana"}}]}}}
{"ts":"2026-12-01T10:00:02.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"shot","arguments":{}}}}
{"ts":"2026-12-01T10:00:02.100Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"image","data":"iVBORw0K","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///a","blob":"AAAA"}}]}}}
{"ts":"2026-12-01T10:00:03.000Z","dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}
{"ts":"2026-12-01T10:00:03.010Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":5,"method":"tools/list"}}
{"ts":"2026-12-01T10:00:03.020Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"shot","inputSchema":{"type":"object"}},{"name":"zoom","inputSchema":{"type":"object","properties":{"factor":{"type":"number"}}}}]}}}
`

// TestStatsPromptsBase64Lists: prompts are accounted as tools are; base64
// bytes of results are counted; a tool list that replaces another says what
// it changed.
func TestStatsPromptsBase64Lists(t *testing.T) {
	table, accounting := report.NewStats(), trace.NewAccounting()
	if _, err := driver.Run("more.jsonl", strings.NewReader(statsMoreCapture), nil, driver.RunOptions{Analyses: []*rule.Analysis{accounting}, Discard: true,
		OnSession: func(sr *rule.SessionResult) { table.Add(sr.ResultOf(accounting).(*trace.Account)) }}); err != nil {
		t.Fatal(err)
	}
	servers := table.Servers()
	if len(servers) != 1 {
		t.Fatalf("%d servers", len(servers))
	}
	sv := servers[0]
	count := func(s string) int {
		n, err := tokens.Count(s, tokens.O200k)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	shot, old, zoom := `{"name":"shot","inputSchema":{"type":"object"}}`, `{"name":"old","inputSchema":{"type":"object"}}`,
		`{"name":"zoom","inputSchema":{"type":"object","properties":{"factor":{"type":"number"}}}}`
	if sv.ListsReplaced != 1 || sv.ToolsAdded != 1 || sv.ToolsRemoved != 1 || sv.FirstDefinitionTokens != count(shot)+count(old) ||
		sv.DefinitionTokens != count(shot)+count(zoom) || sv.LongestSessionMs != 3020 || sv.WaitingMs != 108 {
		t.Errorf("server: %+v", sv)
	}
	if len(sv.Prompts) != 1 || sv.Prompts[0].Name != "greet" || sv.Prompts[0].Calls != 1 || *sv.Prompts[0].Max != 8 ||
		sv.Prompts[0].DefinitionTokens != count(`{"name":"greet","description":"Say hello."}`) || sv.Prompts[0].ArgBytes != int64(len(`{"who":"ana"}`)) {
		t.Errorf("prompts: %+v", sv.Prompts)
	}
	var shotRow *report.StatsTool
	for _, tl := range sv.Tools {
		if tl.Name == "shot" {
			shotRow = tl
		}
	}
	if shotRow == nil || shotRow.Base64Bytes != int64(len("iVBORw0K")+len("AAAA")) || shotRow.Calls != 1 {
		t.Errorf("shot: %+v", shotRow)
	}
	var b bytes.Buffer
	if err := report.WriteStatsText(&b, table, 80); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"the tool list was replaced 1 time (+1, -1 tools; " + itoa(count(shot)+count(old)) + " tokens before, " + itoa(count(shot)+count(zoom)) + " after)",
		"longest session 3.02s; waiting on tools and prompts 108ms in all", "│ PROMPT │", "│ greet  │"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := report.WriteStatsJSONL(&b, "more.jsonl", table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"kind":"prompt","tool":"greet","calls":1`) || !strings.Contains(b.String(), `"kind":"tool","tool":"shot"`) {
		t.Errorf("jsonl:\n%s", b.String())
	}
}
