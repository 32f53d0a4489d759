package report_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
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
		if v, ok := m.ParamsNode().Path("arguments", "invoice_id"); ok {
			msg = rule.Sprintf("%s: argument invoice_id %s rejected", msg, rule.Quote(rule.ValueData, valueText(v)))
		}
		if v, ok := m.ResultNode().Get("instructions"); ok {
			msg = rule.Sprintf("%s: instructions start %s", msg, rule.Quote(rule.ValueInstructions, valueText(v)))
		}
		if v, ok := m.ResultNode().Path("structuredContent", "ssn"); ok {
			msg = rule.Sprintf("%s ssn %s seen", msg, rule.As(rule.ValueData, valueText(v)))
		}
		related := []rule.Related{}
		if m.Kind.IsResponse() && m.Request != nil {
			related = append(related, rule.Related{Line: m.Request.Line, Note: "request " + m.Request.Method, Raw: m.Request.Raw})
		}
		p.Report(rule.At(m), msg, related...)
	}),
}

// valueText is a value as a rule quotes it, as gjson's Result.String gave it (these
// rules were written on gjson, and hostile captures put any value where a string is
// expected): a string unescaped, a number as written when it is an integer (else
// as the float64 it is nearest, in 'f' form), true and false, an object or array as
// its JSON text; "" for null and for a value that does not exist.
func valueText(v frame.Node) string {
	switch v.Kind() {
	case '"':
		s, _ := v.Str()
		return s
	case '0':
		raw := string(v.Raw())
		if strings.Trim(strings.TrimPrefix(raw, "-"), "0123456789") == "" {
			return raw
		}
		f, _ := strconv.ParseFloat(raw, 64)
		return strconv.FormatFloat(f, 'f', -1, 64)
	case 't':
		return "true"
	case 'f':
		return "false"
	case '{', '[':
		return string(v.Raw())
	}
	return ""
}

// everyFormat renders one capture in every format, the timeline included.
func everyFormat(t *testing.T, path string, ruleset []*rule.Rule, redact bool) map[string]string {
	t.Helper()
	res, tr := analyseFile(t, path, ruleset, trace.Options{Needs: report.MarkdownRequires.Union(report.HTMLRequires).Union(trace.Needs{Redaction: redact})})
	rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: ruleset, Trace: tr})
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
		"lines":    `Method \x1b[5m not found </details>`,
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
