package report_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// flagEverything reports every frame, quoting values from it in its message as a
// rule about arguments or instructions would: every frame then reaches every
// report as evidence.
var flagEverything = &rule.Rule{
	ID: "MCP9009", Name: "test-flag-everything", Severity: rule.SeverityError, Title: "Every frame", Anchor: "the frame", Hint: "none",
	Doc: rule.Doc{Sees: "every frame", Why: "tests", Fix: "none", Bad: "x", Good: "y", Spec: []rule.SpecRef{{Revision: spec.Rev20250618, Page: "basic", Says: "x"}}},
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Batch != nil {
			return
		}
		msg := rule.Sprintf("frame %s", rule.Describe(m))
		if v := gjson.GetBytes(m.Params, "arguments.invoice_id"); v.Exists() {
			msg = rule.Sprintf("%s: argument invoice_id %s rejected", msg, rule.Quote(rule.ValueData, v.String()))
		}
		if v := gjson.GetBytes(m.Result, "instructions"); v.Exists() {
			msg = rule.Sprintf("%s: instructions start %s", msg, rule.Quote(rule.ValueInstructions, v.String()))
		}
		if v := gjson.GetBytes(m.Result, "structuredContent.ssn"); v.Exists() {
			msg = rule.Sprintf("%s ssn %s seen", msg, rule.As(rule.ValueData, v.String()))
		}
		related := []rule.Related{}
		if m.Kind.IsResponse() && m.Request != nil {
			related = append(related, rule.Related{Line: m.Request.Line, Note: "request " + m.Request.Method, Raw: m.Request.Raw})
		}
		p.Report(rule.At(m), msg, related...)
	}),
}

// everyFormat renders one capture in every format, the timeline included.
func everyFormat(t *testing.T, path string, ruleset []*rule.Rule, redact bool) map[string]string {
	t.Helper()
	res, tr := analyseFile(t, path, ruleset, trace.Options{Needs: report.MarkdownRequires})
	rep := report.BuildWith("test", []*rule.InputResult{res}, report.Options{Rules: ruleset, Trace: tr})
	if redact {
		report.Redact(rep)
	}
	out := formats(t, rep)
	var coloured bytes.Buffer
	if err := report.WriteText(&coloured, rep, report.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	out["text-colour"] = coloured.String()
	out["timeline"] = renderTimeline(t, path, ruleset, redact)
	return out
}

// ownColour matches the colour sequences the palette writes (SGR only).
var ownColour = regexp.MustCompile("\x1b\\[[0-9;]*m")

// rawControl finds a control character that must never come from a capture.
func rawControl(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\n':
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
			return r, true
		}
	}
	return 0, false
}

// TestNoRawControlCharacters: a capture seeded with ESC, OSC, CSI, BEL, C1 and
// bidi characters in names, versions, messages, tool names, methods, ids, values
// and context lines reaches no output raw, in any format, redacted or not.
func TestNoRawControlCharacters(t *testing.T) {
	const capture = "testdata/captures/hostile.jsonl"
	for _, redact := range []bool{false, true} {
		for _, ruleset := range [][]*rule.Rule{rules.All(), {flagEverything}} {
			for name, out := range everyFormat(t, capture, ruleset, redact) {
				if name == "text-colour" {
					out = ownColour.ReplaceAllString(out, "")
				}
				if r, found := rawControl(out); found {
					i := strings.IndexRune(out, r)
					t.Errorf("redact=%v %s: raw U+%04X at byte %d: %q", redact, name, r, i, out[max(0, i-60):min(len(out), i+20)])
				}
			}
		}
	}
	// The characters are there, escaped.
	out := everyFormat(t, capture, rules.All(), false)
	for name, want := range map[string]string{
		"text":     `evil\x1b]0;pwned\x07client`,
		"markdown": `evil\\x1b\]0;pwned\\x07client`,
		"junit":    `Method \x1b[5m not found </details>`,
		"timeline": `tools/call \x07bell\x1bP1;2|</details>`,
		"sarif":    `\\x1b[5m not found`,
	} {
		if !strings.Contains(out[name], want) {
			t.Errorf("%s lacks %q", name, want)
		}
	}
}

// TestMarkdownSyntaxSurvivesCapture: captured backticks, pipes, </details>, HTML
// and Mermaid syntax neither break the Markdown document nor inject into it.
func TestMarkdownSyntaxSurvivesCapture(t *testing.T) {
	for _, ruleset := range [][]*rule.Rule{rules.All(), {flagEverything}} {
		md := everyFormat(t, "testdata/captures/hostile.jsonl", ruleset, false)["markdown"]
		checkMarkdownStructure(t, md)
	}
}

// checkMarkdownStructure checks that code fences close, that tables keep their
// columns, and that no captured HTML appears outside code.
func checkMarkdownStructure(t *testing.T, md string) {
	t.Helper()
	fence, columns := "", 0
	var details, detailsEnd int
	for n, line := range strings.Split(md, "\n") {
		switch {
		case fence != "":
			if line == fence {
				fence = ""
			}
			continue
		case strings.HasPrefix(line, "```"):
			fence = strings.TrimRight(line, "abcdefghijklmnopqrstuvwxyz")
			continue
		}
		if strings.HasPrefix(line, "|") {
			pipes := countUnescapedPipes(line)
			if columns == 0 {
				columns = pipes
			} else if pipes != columns {
				t.Errorf("line %d: a table row with %d cell borders, the table has %d:\n%s", n+1, pipes, columns, line)
			}
		} else {
			columns = 0
		}
		details += strings.Count(line, "<details>")
		detailsEnd += strings.Count(line, "</details>")
		for _, tag := range []string{"<script", "</summary><", "<img", "<a "} {
			if strings.Contains(line, tag) {
				t.Errorf("line %d: captured HTML %q outside code: %s", n+1, tag, line)
			}
		}
	}
	if fence != "" {
		t.Errorf("a code block is never closed (fence %q)", fence)
	}
	if details != detailsEnd {
		t.Errorf("%d <details> and %d </details> outside code", details, detailsEnd)
	}
}

func countUnescapedPipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// seededSecrets are values and secrets of testdata/captures/secrets.jsonl that no
// redacted output may contain.
var seededSecrets = []string{
	"SECRET-VALUE", "SECRETKEY1234567890abcd", "sk-abcdefghijklmnopqrstuvwx", "eyJhbGciOiJIUzI1", "c2lnbmF0dXJlX2hlcmU",
	"ghp_0123456789abcdefghijABCDEFGHIJ", "AKIAABCDEFGHIJKLMNOP", "918273645", "xak-", "INSTR",
}

// TestRedactLeaksNothing: with --redact, no value and no secret of a capture
// seeded with them reaches any format, while what triage needs stays.
func TestRedactLeaksNothing(t *testing.T) {
	const capture = "testdata/captures/secrets.jsonl"
	plain := everyFormat(t, capture, []*rule.Rule{flagEverything}, false)
	if !strings.Contains(plain["markdown"], "SECRET-VALUE-ARG-1") || !strings.Contains(plain["timeline"], "SECRET-VALUE-COOKIE-5") {
		t.Fatal("the seeded values do not reach the unredacted reports: the test proves nothing")
	}
	for _, ruleset := range [][]*rule.Rule{rules.All(), {flagEverything}} {
		for name, out := range everyFormat(t, capture, ruleset, true) {
			for _, secret := range seededSecrets {
				if i := strings.Index(out, secret); i >= 0 {
					t.Errorf("rules %s, %s: %q leaked: %q", ruleset[0].ID, name, secret, out[max(0, i-80):min(len(out), i+40)])
				}
			}
		}
	}
	red := everyFormat(t, capture, []*rule.Rule{flagEverything}, true)
	for name, wants := range map[string][]string{
		"markdown": {`"name": "get_invoice"`, `"invoice_id": "[redacted string, 18 chars]"`, `"amount": "[redacted number, 9 chars]"`,
			`"protocolVersion": "2025-06-18"`, `"listChanged": true`, `"code": -32602`, `"message": "bad token=[redacted secret, 34 chars]"`,
			`"type": "text"`, `"isError": false`, `"progressToken": "tok-1"`, `"name": "invoices"`, `"apiKey": "[redacted string, 22 chars]"`,
			`"text": "[redacted string, `, `argument invoice_id "\[redacted, 18 chars\]" rejected`, `instructions start "\[redacted, `},
		"timeline": {"tools/call get_invoice", "Using custom headers: {\"x-api-key\":\"[redacted secret, 25 chars]\"}", "Cookie: [redacted secret,"},
		"json":     {`"name": "client [redacted secret, 31 chars]"`},
	} {
		for _, want := range wants {
			if !strings.Contains(red[name], want) {
				t.Errorf("redacted %s lacks %q", name, want)
			}
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
		if got := report.MaskSecrets(c.in); got != c.want {
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
		if got := string(report.RedactFrame([]byte(c.in))); got != c.want {
			t.Errorf("RedactFrame(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// TestPretty: shortening says what it left out; a frame cut short stays readable.
func TestPretty(t *testing.T) {
	long := strings.Repeat("x", 200)
	items := make([]string, 30)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	got := report.Pretty([]byte(`{"a":"`+long+`","b":[`+strings.Join(items, ",")+`]}`), report.PrettyOptions{MaxString: 10, MaxItems: 3})
	for _, want := range []string{`"a": "xxxxxxxxxx… (190 more characters)"`, "    2,\n    … 27 more items\n  ]"} {
		if !strings.Contains(got, want) {
			t.Errorf("Pretty lacks %q:\n%s", want, got)
		}
	}
	cut := report.Pretty([]byte(`{"jsonrpc":"2.0","params":{"a":[1,2`), report.PrettyOptions{})
	if want := "{\n  \"jsonrpc\": \"2.0\",\n  \"params\": {\n    \"a\": [\n      1,\n      2\n      … (the frame was cut here)"; cut != want {
		t.Errorf("Pretty of a cut frame:\n%s\nwant\n%s", cut, want)
	}
	if got := report.Pretty([]byte("{\"a\":\"\\u001b[2J\u202e\"}"), report.PrettyOptions{}); strings.ContainsAny(got, "\x1b\u202e") {
		t.Errorf("Pretty let a control character through: %q", got)
	}
}
