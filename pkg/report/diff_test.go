package report_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// diffOf compares the first sessions of two captures as the diff command does.
func diffOf(t *testing.T, a, b string) *trace.Diff {
	t.Helper()
	side := func(path string) (trace.Compared, trace.DiffSide) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		tr := trace.New(trace.Options{Needs: trace.DiffNeeds})
		opt := driver.RunOptions{}
		tr.Apply(&opt)
		res, err := driver.Run(path, f, rules.All(), opt)
		if err != nil {
			t.Fatal(err)
		}
		c := trace.Compared{Trace: tr.Of(res.Sessions[0]), Findings: res.Sessions[0].Findings}
		return c, trace.SideOf(c, len(res.Sessions))
	}
	ca, sa := side(a)
	cb, sb := side(b)
	return trace.DiffSessions(ca, cb, sa, sb)
}

// TestDiffFormatsEscapeCapture: a diff against a capture full of markup and
// control characters writes it as text in every format: the HTML page holds no
// element from the capture and no script at all, Markdown escapes its syntax,
// and no format carries a raw control character.
func TestDiffFormatsEscapeCapture(t *testing.T) {
	d := diffOf(t, "../../fixtures/real/ts-client-mcpgo-server-tools-change-undeclared.jsonl", "../../fixtures/hostile/html-injection.jsonl")
	out := map[string]string{}
	for _, format := range report.DiffFormats {
		var b bytes.Buffer
		if err := report.WriteDiff(&b, format, d, report.DiffOptions{Version: "test", Width: 80}); err != nil {
			t.Fatal(err)
		}
		out[format] = b.String()
		if r, found := rawControl(b.String()); found {
			t.Errorf("%s: raw U+%04X", format, r)
		}
	}
	if !strings.Contains(out["text"], `client: A lab-ts-client 0.1.0, B <script>window.__pwned=1</script><img src=x`) {
		t.Errorf("text does not show the hostile client name as it is:\n%s", out["text"])
	}
	html := strings.ToLower(out["html"])
	for _, tag := range []string{"<script", "<img", "<iframe", "<svg", "<b "} {
		if strings.Contains(html, tag) {
			t.Errorf("the HTML diff holds %q", tag)
		}
	}
	if !strings.Contains(out["html"], "&lt;script&gt;window.__pwned=1&lt;/script&gt;") {
		t.Error("the HTML diff does not show the hostile client name escaped")
	}
	// Markdown shows it in a code span, where GFM renders no markup.
	if !strings.Contains(out["markdown"], "| client | `lab-ts-client 0.1.0` | `<script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\"> 1.0\\u202e<u>` |") {
		t.Errorf("the Markdown diff does not show the hostile client name in a code span:\n%s", out["markdown"])
	}
	for _, line := range strings.Split(out["text"], "\n") {
		if n := len([]rune(line)); n > 80 && !strings.Contains(line, " ") {
			continue // one word longer than the terminal
		} else if n > 80 {
			t.Errorf("text line of %d characters (width 80): %q", n, line)
		}
	}
}

// TestRedactDiff: every string a diff prints goes through redaction: a key of a
// known shape is masked wherever it is, and a value the session carried (in the
// set) is replaced where it is echoed; in every format; applying it twice
// changes nothing more.
func TestRedactDiff(t *testing.T) {
	const key, echoed = "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "correct-horse-battery"
	set := redact.NewSet()
	set.Add(echoed)
	d := &trace.Diff{
		A:            trace.DiffSide{Input: "a.jsonl", Session: 1, Client: "client " + key, Server: "server"},
		B:            trace.DiffSide{Input: "b.jsonl", Session: 1, Client: "client", Server: "server " + echoed},
		Contract:     []trace.FieldChange{{Field: "client", A: "client " + key, B: "client"}},
		Capabilities: []trace.CapabilityChange{{Side: "server", Path: "experimental." + key, A: "declared", B: "not declared"}},
		Lists:        []trace.ListChange{{Kind: "tools/list", Name: "search", Change: "changed", Details: []string{`inputSchema property "mode" enum ["` + key + `"] changed`}}},
		Behaviour:    []trace.CountChange{{Aspect: "method", What: "tools/call " + echoed, A: 1, B: 0}},
		OnlyA:        []trace.DiffFinding{},
		OnlyB:        []trace.DiffFinding{{Rule: "MCP9999", Name: "test", Severity: "error", Message: "the server said " + echoed + " with api_key=" + key, Line: 3}},
		Notes:        []string{"note " + key},
	}
	report.RedactDiff(d, nil, set)
	notes := len(d.Notes)
	report.RedactDiff(d, nil, set)
	if len(d.Notes) != notes {
		t.Errorf("a second RedactDiff added notes: %q", d.Notes)
	}
	for _, format := range report.DiffFormats {
		var b bytes.Buffer
		if err := report.WriteDiff(&b, format, d, report.DiffOptions{Version: "test"}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, secret := range []string{key, echoed} {
			if strings.Contains(out, secret) {
				t.Errorf("%s: %q printed after --redact:\n%s", format, secret, out)
			}
		}
		if !strings.Contains(out, "redacted (--redact)") {
			t.Errorf("%s: the diff does not say it is redacted:\n%s", format, out)
		}
		if !strings.Contains(out, "search") || !strings.Contains(out, "MCP9999") {
			t.Errorf("%s: redaction lost the tool name or the rule:\n%s", format, out)
		}
	}
}

// TestDiffVerdictBadge: the diff page marks its verdict with the badge the
// report's style draws, as the check report does, never an emoji (an empty box
// in a browser without an emoji font); Markdown keeps the emoji GitHub draws.
func TestDiffVerdictBadge(t *testing.T) {
	for _, c := range []struct {
		a, b, kind, emoji string
	}{
		{"../../fixtures/seeds/invoices-declared-list-changed.jsonl", "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl", "error", "❌"},
		{"../../fixtures/seeds/invoices-declared-list-changed.jsonl", "../../fixtures/seeds/invoices-declared-list-changed.jsonl", "ok", "✅"},
	} {
		d := diffOf(t, c.a, c.b)
		var html, md bytes.Buffer
		if err := report.WriteDiff(&html, "html", d, report.DiffOptions{Version: "test"}); err != nil {
			t.Fatal(err)
		}
		if err := report.WriteDiff(&md, "markdown", d, report.DiffOptions{Version: "test"}); err != nil {
			t.Fatal(err)
		}
		if want := `<p class="verdict v-` + c.kind + `"><span class="icon icon-` + c.kind + `"></span> `; !strings.Contains(html.String(), want) {
			t.Errorf("%s: the HTML verdict is not %q:\n%s", c.b, want, html.String())
		}
		if i := strings.IndexAny(html.String(), "❌✅⚠ℹ⛔\uFE0F"); i >= 0 {
			t.Errorf("%s: the HTML diff shows an emoji: %q", c.b, html.String()[i:min(i+40, html.Len())])
		}
		if !strings.Contains(md.String(), c.emoji+" **") {
			t.Errorf("%s: the Markdown verdict has no %s:\n%s", c.b, c.emoji, md.String())
		}
	}
}
