package report_test

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

func analyse(t *testing.T, path string) *driver.InputResult {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := driver.Run(path, f, rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func split(s string) []string {
	out := strings.Fields(s)
	sort.Strings(out)
	return out
}

// TestJSONShape pins the public JSON contract of DESIGN.md section 6: the members of
// every object, and the values of one finding.
func TestJSONShape(t *testing.T) {
	const capture = "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl"
	rep := report.Build("test", []*driver.InputResult{analyse(t, capture)})
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, rep); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	check := func(what string, obj any, want string) map[string]any {
		t.Helper()
		m, ok := obj.(map[string]any)
		if !ok {
			t.Fatalf("%s is %T, not an object", what, obj)
		}
		if got := keys(m); !reflect.DeepEqual(got, split(want)) {
			t.Errorf("%s members = %v, want %v", what, got, split(want))
		}
		return m
	}
	check("report", doc, "version tool inputs errors sessions summary")
	if doc["version"] != 1.0 {
		t.Errorf("version = %v", doc["version"])
	}
	check("tool", doc["tool"], "name version")
	in := check("input", doc["inputs"].([]any)[0], "name format lines frames rejected frameLines context frameLike blank folded mixed")
	if in["format"] != "envelope-jsonl" || in["lines"] != 11.0 || in["frames"] != 11.0 || in["rejected"] != 0.0 {
		t.Errorf("input = %v", in)
	}
	// Every line read is accounted for.
	if sum := in["frameLines"].(float64) + in["context"].(float64) + in["blank"].(float64) + in["folded"].(float64); sum != in["lines"] {
		t.Errorf("input accounting: %v frame lines + context + blank + folded = %v, not lines %v", in, sum, in["lines"])
	}
	s := check("session", doc["sessions"].([]any)[0], "input index streamKey firstLine lastLine era client server protocolVersion frames findings notes")
	check("client", s["client"], "name version capabilities")
	srv := check("server", s["server"], "name version capabilities")
	if srv["name"] != "invoices" || srv["version"] != "1.9.3" {
		t.Errorf("server = %v", srv)
	}
	pv := check("protocolVersion", s["protocolVersion"], "requested answered negotiated")
	if pv["negotiated"] != "2025-06-18" {
		t.Errorf("protocolVersion = %v", pv)
	}
	findings := s["findings"].([]any)
	if len(findings) != 2 {
		t.Fatalf("%d findings, want 2: %v", len(findings), findings)
	}
	f := check("finding", findings[0], "rule name severity message input line time direction method id related fingerprint")
	want := map[string]any{
		"rule": "MCP2001", "name": "undeclared-notification", "severity": "error", "line": 8.0,
		"direction": "s2c", "method": "notifications/resources/list_changed", "id": nil, "input": capture,
		"message": "server sent notifications/resources/list_changed but its initialize result (line 2) declared resources: {} (no listChanged): the receiver may drop it",
	}
	for k, v := range want {
		if !reflect.DeepEqual(f[k], v) {
			t.Errorf("finding %s = %#v, want %#v", k, f[k], v)
		}
	}
	if ts, _ := f["time"].(string); !strings.HasSuffix(ts, "T14:22:01.007Z") {
		t.Errorf("finding time = %v", f["time"])
	}
	rel := check("related", f["related"].([]any)[0], "line note")
	if rel["line"] != 2.0 || rel["note"] != "initialize result (line 2): resources: {}" {
		t.Errorf("related = %v", rel)
	}
	sum := check("summary", doc["summary"], "sessions findings")
	if !reflect.DeepEqual(sum["findings"], map[string]any{"error": 2.0, "warning": 0.0, "info": 0.0}) {
		t.Errorf("summary findings = %v", sum["findings"])
	}
}

// TestJSONEmpty: no input still gives the full shape with empty lists.
func TestJSONEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, report.Build("test", nil)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"inputs": []`, `"sessions": []`, `"error": 0`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("empty report lacks %s:\n%s", want, buf.String())
		}
	}
}

func TestSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"caf\u00e9 \u65e5\u672c", "caf\u00e9 \u65e5\u672c"},
		{"\x1b[31mred", `\x1b[31mred`},
		{"title\x1b]0;pwned\x07", `title\x1b]0;pwned\x07`},
		{"a\nb\tc\rd", `a\nb\tc\rd`},
		{"del\x7f", `del\x7f`},
		{"c1\u009b2J", `c1\u009b2J`},
		{"bidi\u202eevil", `bidi\u202eevil`},
		{"bad\xffutf8", `bad\xffutf8`},
		// issue 11 item 11: format characters, invisible and default-ignorable ones
		{"tools/l\u200bist", `tools/l\u200bist`},
		{"\u200c\u200d\u2060\u2064\ufeff\u00ad\u180e", `\u200c\u200d\u2060\u2064\ufeff\u00ad\u180e`},
		{"lrm\u200e rlm\u200f alm\u061c", `lrm\u200e rlm\u200f alm\u061c`},
		{"tag\U000E0041\U000E007F", `tag\U000e0041\U000e007f`},
		{"\u3164\ufe0f\u034f\U000E0100", `\u3164\ufe0f\u034f\U000e0100`},
		// issue 11 item 9: noncharacters (XML cannot carry U+FFFE, U+FFFF)
		{"\ufffe\uffff\ufdd0", `\ufffe\uffff\ufdd0`},
		{"ok \ufffd ❌ ⇄", "ok \ufffd ❌ ⇄"},
	} {
		if got := report.Safe(c.in); got != c.want {
			t.Errorf("Safe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestTextEscapesCapturedData: control characters in captured names and versions
// never reach the text report raw.
func TestTextEscapesCapturedData(t *testing.T) {
	capture := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18\u001b[2J","capabilities":{},"clientInfo":{"name":"evil\u001b]0;owned\u0007","version":"1"}}}` + "\n"
	res, err := driver.Run("evil.jsonl", strings.NewReader(capture), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := report.WriteText(&buf, report.Build("test", []*driver.InputResult{res}), report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Fatalf("raw control character in the report:\n%q", out)
	}
	for _, want := range []string{`evil\x1b]0;owned\x07`, `2025-06-18\x1b[2J`, "MCP1002"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// TestTextColour: colour only when asked, per palette (never the global switch).
func TestTextColour(t *testing.T) {
	rep := report.Build("test", []*driver.InputResult{analyse(t, "../../fixtures/real/ts-client-go-server-sampling-undeclared.jsonl")})
	var plain, coloured bytes.Buffer
	if err := report.WriteText(&plain, rep, report.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteText(&coloured, rep, report.TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("colour escape in a report written without colour")
	}
	if !strings.Contains(coloured.String(), "\x1b[") {
		t.Error("no colour escape in a report written with colour")
	}
	for _, want := range []string{"lab-ts-client 0.1.0", "lab-go-sdk-server 0.1.0", "requested 2025-11-25, answered 2025-11-25, negotiated 2025-11-25 (echoed)", "11: 5 requests, 1 notification, 5 responses", "MCP2002", "1 session, 1 error, 0 warnings"} {
		if !strings.Contains(plain.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, plain.String())
		}
	}
}
