package report_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
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

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// The golden reports are rendered with three rules defined here, so that they pin
// what the reporters do, not the wording of the catalogue (other tests run the
// real catalogue).
var (
	goldenListChanged = &rule.Rule{
		ID: "MCP9001", Name: "test-list-changed-undeclared", Severity: rule.SeverityError, CapabilityScaled: true,
		Title:  "A list_changed notification the server did not declare",
		Anchor: "the notification",
		Hint:   "declare listChanged in the capability, or stop sending the notification",
		Doc: rule.Doc{
			Sees: "notifications/*/list_changed sent by a server whose capability lacks `listChanged: true`.",
			Why:  "The client may drop the notification and keep a stale list.",
			Fix:  "Declare `\"resources\": {\"listChanged\": true}` in the initialize result.",
			Bad:  `s->c {"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`,
			Good: `s->c {"jsonrpc":"2.0","id":0,"result":{"capabilities":{"resources":{"listChanged":true}}}}`,
			Spec: []rule.SpecRef{{Revision: spec.Rev20250618, Page: "server/resources#list-changed-notification", Says: "servers that declared listChanged SHOULD send it"}},
		},
		New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
			kind, ok := strings.CutSuffix(strings.TrimPrefix(m.Method, "notifications/"), "/list_changed")
			if m.Kind != frame.KindNotification || !ok || m.Dir != spec.S2C || m.Contract == nil {
				return
			}
			if declared, known := m.Contract.Declares(spec.Server, kind+".listChanged", true); known && !declared {
				p.Report(rule.At(m), rule.Sprintf("server sent %s without %s.listChanged", m.Method, kind),
					rule.Related{Line: m.Contract.ServerCapsLine, Note: "initialize result: " + m.Contract.CapabilitySummary(spec.Server, kind)})
			}
		}),
	}
	goldenUnanswered = &rule.Rule{
		ID: "MCP9002", Name: "test-unanswered", Severity: rule.SeverityWarning,
		Title: "A request never answered", Anchor: "the request", Hint: "answer every request",
		Doc: rule.Doc{Sees: "requests without a response.", Why: "The sender waits forever.", Fix: "Answer it.",
			Bad: `c->s {"jsonrpc":"2.0","id":1,"method":"ping"}`, Good: `s->c {"jsonrpc":"2.0","id":1,"result":{}}`,
			Spec: []rule.SpecRef{{Revision: spec.Rev20250618, Page: "basic#responses", Says: "responses MUST be sent"}}},
		New: func() rule.Checker {
			return rule.Funcs{OnEnd: func(p *rule.Pass) {
				for _, r := range p.Session.Outstanding() {
					p.Reportf(rule.AtRequest(r), "%s id=%s was never answered", r.Method, r.ID)
				}
			}}
		},
	}
	goldenErrors = &rule.Rule{
		ID: "MCP9003", Name: "test-error-response", Severity: rule.SeverityInfo,
		Title: "An error response", Anchor: "the response", Hint: "look at the error",
		Doc: rule.Doc{Sees: "error responses.", Why: "Something failed.", Fix: "Read the message.",
			Bad: `s->c {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`, Good: `s->c {"jsonrpc":"2.0","id":1,"result":{}}`,
			Spec: []rule.SpecRef{{Revision: spec.Rev20250618, Page: "basic#errors", Says: "errors carry a code and a message"}}},
		New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
			if m.Kind == frame.KindError {
				p.Reportf(rule.At(m), "error %d %s", m.ErrorCode, rule.Quote(rule.ValueErrorMessage, m.ErrorMessage))
			}
		}),
	}
	goldenRules = []*rule.Rule{goldenListChanged, goldenUnanswered, goldenErrors}
)

// analyseFile runs rules over a file with a tracer, as check --format markdown does.
func analyseFile(t *testing.T, path string, rules []*rule.Rule, opt trace.Options) (*driver.InputResult, *trace.Tracer) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := trace.New(opt)
	ropt := driver.RunOptions{}
	tr.Apply(&ropt)
	res, err := driver.Run(path, f, rules, ropt)
	if err != nil {
		t.Fatal(err)
	}
	return res, tr
}

// goldenReport builds the report of one input with the golden rules.
func goldenReport(t *testing.T, path string) *report.Report {
	t.Helper()
	res, tr := analyseFile(t, path, goldenRules, trace.Options{Needs: report.MarkdownRequires.Union(report.HTMLRequires)})
	return report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: goldenRules, Trace: tr})
}

// renderTimeline writes the timeline of a file as the timeline command does.
func renderTimeline(t *testing.T, path string, rules []*rule.Rule, redact bool) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	tr := trace.New(trace.Options{Needs: report.TimelineRequires.Union(trace.Needs{Redaction: redact})})
	var werr error
	opt := driver.RunOptions{Discard: true,
		OnSession: func(sr *rule.SessionResult) {
			s := report.SessionOf(sr, tr.Of(sr))
			if redact {
				report.RedactSession(&s)
			}
			if werr == nil {
				werr = report.WriteTimelineSession(&b, s, report.TimelineOptions{})
			}
		}}
	tr.Apply(&opt)
	_, err = driver.Run(path, f, rules, opt)
	if err != nil || werr != nil {
		t.Fatal(err, werr)
	}
	return b.String()
}

// formats renders a report in every format.
func formats(t *testing.T, rep *report.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	render := func(name string, write func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = b.String()
	}
	render("text", func(b *bytes.Buffer) error { return report.WriteText(b, rep, report.TextOptions{}) })
	render("json", func(b *bytes.Buffer) error { return report.WriteJSON(b, rep) })
	render("jsonl", func(b *bytes.Buffer) error { return report.WriteJSONL(b, rep) })
	render("lines", func(b *bytes.Buffer) error { return report.WriteLines(b, rep) })
	render("markdown", func(b *bytes.Buffer) error { return report.WriteMarkdown(b, rep) })
	render("html", func(b *bytes.Buffer) error { return report.WriteHTML(b, rep) })
	render("sarif", func(b *bytes.Buffer) error { return report.WriteSARIF(b, rep) })
	render("codequality", func(b *bytes.Buffer) error { return report.WriteCodeQuality(b, rep, "") })
	render("junit", func(b *bytes.Buffer) error {
		return report.WriteJUnit(b, rep, report.JUnitOptions{FailOn: rule.SeverityWarning})
	})
	return out
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./pkg/report -run TestGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (go test ./pkg/report -run TestGolden -update rewrites it):\n%s", name, path, firstDiff(string(want), got))
	}
}

// firstDiff shows the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %q\ngot  %q", i+1, wl, gl)
		}
	}
	return "(same lines)"
}

// TestGolden renders one input and the empty input in every format and compares
// each with its golden file.
func TestGolden(t *testing.T) {
	const input = "testdata/golden/session.jsonl"
	rep := goldenReport(t, input)
	for name, got := range formats(t, rep) {
		checkGolden(t, name, got)
	}
	redacted := goldenReport(t, input)
	report.Redact(redacted)
	checkGolden(t, "markdown-redacted", formats(t, redacted)["markdown"])
	checkGolden(t, "timeline", renderTimeline(t, input, goldenRules, false))
	// An 80-column terminal: the rule heads its finding's cell.
	var narrow bytes.Buffer
	if err := report.WriteText(&narrow, rep, report.TextOptions{Width: 80}); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "text-80", narrow.String())

	empty := goldenReport(t, "testdata/golden/empty.jsonl")
	for name, got := range formats(t, empty) {
		checkGolden(t, name+"-empty", got)
	}
	checkGolden(t, "timeline-empty", renderTimeline(t, "testdata/golden/empty.jsonl", goldenRules, false))
}

// TestGoldenErrors renders a report whose run met inputs it could not read or
// judge, beside one it judged: every artifact names them (the JSON "errors",
// jsonl error lines, a line each in the lines format, SARIF notifications with
// executionSuccessful false, JUnit errors, the Markdown list), and the judged
// input's findings are still there.
func TestGoldenErrors(t *testing.T) {
	rep := goldenReport(t, "testdata/golden/session.jsonl")
	rep.Errors = []report.InputError{
		{Input: "missing.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: no such file or directory"},
		{Input: "empty.jsonl", Kind: report.ErrorEmpty, Message: "cannot judge: this log holds no frames: the input is empty"},
		{Input: "archive/none", Kind: report.ErrorNoCaptures, Message: "no captures found (no file ending in .jsonl, .ndjson, .log, .txt, .json or .har)"},
		{Input: "archive/pipe.jsonl", Kind: report.ErrorSkipped, Message: "skipped: a named pipe (FIFO): only regular files are read from a directory"},
		{Input: "bad\x1b[31m.log", Kind: report.ErrorReadInPart, Message: "read in part: line 3: gzip: unexpected EOF"},
	}
	all := formats(t, rep)
	for _, name := range []string{"json", "jsonl", "lines", "markdown", "sarif", "junit", "html"} {
		checkGolden(t, name+"-errors", all[name])
	}
}

// TestGoldenExchange: a finding about an HTTP exchange that carried no message
// (MCP0005 on a GET refused with 400, entry 3 on line 134) is drawn at its
// place: in the timeline under the exchange's record, in the Markdown diagram
// as a note inside the flagged rect.
func TestGoldenExchange(t *testing.T) {
	const input = "../../fixtures/rules/MCP0005-fires-get-refused.har"
	only, ok := rules.Lookup(rules.All(), "MCP0005")
	if !ok {
		t.Fatal("no MCP0005")
	}
	checkGolden(t, "timeline-exchange", renderTimeline(t, input, []*rule.Rule{only}, false))
	res, tr := analyseFile(t, input, []*rule.Rule{only}, trace.Options{Needs: report.MarkdownRequires})
	rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: []*rule.Rule{only}, Trace: tr})
	var b bytes.Buffer
	if err := report.WriteMarkdown(&b, rep); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "markdown-exchange", b.String())

	// A finding that names the side at fault carries it as "party" in JSON and
	// SARIF (MCP1011: the client sends the headers).
	header, ok := rules.Lookup(rules.All(), "MCP1011")
	if !ok {
		t.Fatal("no MCP1011")
	}
	res, _ = analyseFile(t, "../../fixtures/rules/MCP1011-fires.har", []*rule.Rule{header}, trace.Options{})
	rep = report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: []*rule.Rule{header}})
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer, *report.Report) error
	}{
		{"json-exchange", func(b *bytes.Buffer, r *report.Report) error { return report.WriteJSON(b, r) }},
		{"sarif-exchange", func(b *bytes.Buffer, r *report.Report) error { return report.WriteSARIF(b, r) }},
	} {
		b.Reset()
		if err := f.write(&b, rep); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), `"party": "client"`) {
			t.Errorf("%s names no party:\n%s", f.name, b.String())
		}
		checkGolden(t, f.name, b.String())
	}
}
