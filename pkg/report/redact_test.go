package report_test

import (
	"encoding/json"
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

// quoteArguments reports each tools/call response, quoting the arguments of its
// request (a frame that is not the finding's evidence: it keeps a copy of the
// latest call's) and a protocol word that begins like one of them.
var quoteArguments = &rule.Rule{
	ID: "MCP9010", Name: "test-quote-arguments", Severity: rule.SeverityError, Title: "Arguments quoted", Anchor: "the response", Hint: "none",
	Doc: rule.Doc{Sees: "tools/call responses", Why: "tests", Fix: "none", Bad: "x", Good: "y", Spec: []rule.SpecRef{{Revision: spec.Rev20250618, Page: "server/tools", Says: "x"}}},
	New: func() rule.Checker {
		var name, arguments string
		return rule.Funcs{OnMessage: func(p *rule.Pass, m *session.Message) {
			switch {
			case !m.Kind.IsResponse() && m.Method == "tools/call":
				n, _ := m.ParamsNode().Get("name")
				a, _ := m.ParamsNode().Get("arguments")
				name, arguments = strings.Clone(valueText(n)), string(a.Raw())
			case m.Kind.IsResponse() && m.Request != nil && m.Request.Method == "tools/call":
				args, _ := frame.Parse([]byte(arguments))
				arg := func(name string) string {
					v, _ := args.Get(name)
					return valueText(v)
				}
				p.Reportf(rule.At(m), `tools/call %s (capability "tools"): code %s, note %s, path %s`,
					rule.Quote(rule.ValueName, name),
					rule.Quote(rule.ValueData, arg("code")),
					rule.Quote(rule.ValueData, arg("note")),
					rule.As(rule.ValueData, arg("path")))
			}
		}}
	},
}

// TestRedactDeclaredValues: under --redact, the values a finding declares are
// replaced wherever its message shows them, however short, whatever they hold
// (quotes, "..."), and whichever frame they came from; the rest of the message
// (the tool name, the protocol word "tools") stays. The old redaction scraped
// the message for the values of the finding's own frames (its evidence) of 5
// characters or more: it left all three arguments here (they come from the
// request, not the evidence; "ab" is short; /srv/x is no scheme URI), and it
// left the start of MCP1007's non-ASCII instructions, whose byte-wise cut broke
// the match.
func TestRedactDeclaredValues(t *testing.T) {
	instructions := "# Server – Instructions\n\n" + strings.Repeat("Use the tools wisely, politely and often. ", 40)
	capture := strings.Join([]string{
		`{"ts":"2026-11-30T10:00:00.000Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}`,
		`{"ts":"2026-11-30T10:00:00.010Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"},"instructions":` + jsonString(instructions) + `}}}`,
		`{"ts":"2026-11-30T10:00:00.020Z","dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
		`{"ts":"2026-11-30T10:00:00.030Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_invoice","arguments":{"code":"ab","note":"tools... and \"more\" words","path":"/srv/x"}}}}`,
		`{"ts":"2026-11-30T10:00:00.040Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[]}}}`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "values.jsonl")
	if err := os.WriteFile(path, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	ruleset := append([]*rule.Rule{quoteArguments}, rules.All()...)
	res, tr := analyseFile(t, path, ruleset, trace.Options{})
	rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: ruleset, Trace: tr})
	message := func(id string) string {
		for _, f := range rep.Sessions[0].Findings {
			if f.Rule == id {
				return f.Message
			}
		}
		t.Fatalf("no %s finding", id)
		return ""
	}
	if got, want := message("MCP9010"), `tools/call "get_invoice" (capability "tools"): code "ab", note "tools... and \"more\" words", path /srv/x`; got != want {
		t.Fatalf("unredacted message %s, want %s", got, want)
	}
	report.Redact(rep)
	if got, want := message("MCP9010"), `tools/call "get_invoice" (capability "tools"): code "[redacted, 2 chars]", note "[redacted, 25 chars]", path [redacted, 6 chars]`; got != want {
		t.Errorf("redacted message\n got %s\nwant %s", got, want)
	}
	if got := message("MCP1007"); strings.Contains(got, "Instructions") || !strings.Contains(got, `starts "[redacted, `) {
		t.Errorf("MCP1007 redacted: %s", got)
	}
	for _, f := range rep.Sessions[0].Findings {
		if f.Values != nil {
			t.Errorf("%s keeps its captured values after redaction", f.Rule)
		}
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
