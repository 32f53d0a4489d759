package ruletest

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

func TestParse(t *testing.T) {
	exps, err := Parse("x.want", strings.NewReader("# comment\n\n6 MCP0001 \"(?i)json\"\n?  7 MCP3001 \"tools/call\"  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(exps) != 2 {
		t.Fatalf("got %d expectations, want 2", len(exps))
	}
	if e := exps[0]; e.Line != 6 || e.Rule != "MCP0001" || e.Message.String() != "(?i)json" || e.Optional || e.Pos != "x.want:3" {
		t.Errorf("first: %+v", e)
	}
	if e := exps[1]; e.Line != 7 || e.Rule != "MCP3001" || !e.Optional || e.Pos != "x.want:4" {
		t.Errorf("second: %+v", e)
	}
	for text, want := range map[string]string{
		"# c\n6 MCP0001 json\n":   `x.want:2: malformed expectation "6 MCP0001 json"`,
		"6 MCP0001 \"(\"\n":       "x.want:1: error parsing regexp",
		"\n\nsix MCP0001 \"x\"\n": "x.want:3: malformed",
	} {
		if _, err := Parse("x.want", strings.NewReader(text)); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error starting %q", text, err, want)
		}
	}
}

func TestCheck(t *testing.T) {
	exps, err := Parse("x.want", strings.NewReader(`
6 MCP0001 "json"
6 MCP0001 "json"
?9 MCP3001 ".*"
`))
	if err != nil {
		t.Fatal(err)
	}
	f := func(line int, id string, sev rule.Severity, msg string) rule.Finding {
		return rule.Finding{Line: line, Rule: id, Severity: sev, Message: msg}
	}
	for _, tc := range []struct {
		name     string
		findings []rule.Finding
		strict   []string
		want     []string
	}{
		{"all met", []rule.Finding{f(6, "MCP0001", rule.SeverityError, "json a"), f(6, "MCP0001", rule.SeverityError, "json b")}, nil, nil},
		{"one finding meets one expectation", []rule.Finding{f(6, "MCP0001", rule.SeverityError, "json")}, nil,
			[]string{`x.want:3: expected 6 MCP0001 "json", not reported`}},
		{"unexpected warning, free info", []rule.Finding{
			f(6, "MCP0001", rule.SeverityError, "json"), f(6, "MCP0001", rule.SeverityError, "json"),
			f(2, "MCP1004", rule.SeverityInfo, "downgraded"), f(3, "MCP2001", rule.SeverityWarning, "undeclared"),
		}, nil, []string{"unexpected warning MCP2001  at line 3: undeclared"}},
		{"strict info", []rule.Finding{
			f(6, "MCP0001", rule.SeverityError, "json"), f(6, "MCP0001", rule.SeverityError, "json"),
			f(2, "MCP1004", rule.SeverityInfo, "downgraded"),
		}, []string{"MCP1004"}, []string{"unexpected info MCP1004  at line 2: downgraded"}},
		{"wrong line", []rule.Finding{f(6, "MCP0001", rule.SeverityError, "json"), f(7, "MCP0001", rule.SeverityError, "json")}, nil,
			[]string{`x.want:3: expected 6 MCP0001 "json", not reported`, "unexpected error MCP0001  at line 7: json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Check(exps, tc.findings, tc.strict...)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Check:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
	if got := Check(nil, []rule.Finding{f(1, "MCP0004", rule.SeverityInfo, "no handshake")}); got != nil {
		t.Errorf("a .want without expectations must let info findings pass: %q", got)
	}
}

func TestSilentRule(t *testing.T) {
	for capture, want := range map[string]string{
		"../../fixtures/rules/MCP1003-silent.jsonl":       "MCP1003",
		"fixtures/schema/MCP4001-silent-2026-07-28.jsonl": "MCP4001",
		"fixtures/rules/MCP1003-fires.jsonl":              "",
		"fixtures/seeds/server-capabilities-silent.jsonl": "",
		"fixtures/rules/MCP0005-silent.har":               "MCP0005",
	} {
		if got := silentRule(capture); got != want {
			t.Errorf("silentRule(%s) = %q, want %q", capture, got, want)
		}
	}
}

func TestForms(t *testing.T) {
	capture := `{"ts":"2026-11-30T10:00:00Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}
not json at all
{"ts":"2026-11-30T10:00:01Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":1,"res
`
	got, ok := Bare.Rewrite([]byte(capture))
	if want := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json at all\n{\"jsonrpc\":\"2.0\",\"id\":1,\"res\n"; !ok || string(got) != want {
		t.Errorf("bare: %v %q, want %q", ok, got, want)
	}
	got, ok = GoSDKLog.Rewrite([]byte(capture))
	if want := "read: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json at all\nwrite: {\"jsonrpc\":\"2.0\",\"id\":1,\"res\n"; !ok || string(got) != want {
		t.Errorf("gosdk-log: %v %q, want %q", ok, got, want)
	}
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,                                   // bare already
		`{"time":"2026-11-30T10:00:00Z","level":"INFO","msg":"starting MCP client"}`, // slog record
		`{"dir":"c->s","session_id":"a","msg":{"jsonrpc":"2.0","method":"ping","id":1}}`,
	} {
		if _, ok := Bare.Rewrite([]byte(in + "\n")); ok {
			t.Errorf("bare rewrote %s", in)
		}
	}
	if f := GoSDKLog.Ignoring("MCP1006"); len(f.Unjudged) != 1 || len(GoSDKLog.Unjudged) != 0 {
		t.Errorf("Ignoring: %v, GoSDKLog %v", f.Unjudged, GoSDKLog.Unjudged)
	}
}
