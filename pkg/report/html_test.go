package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// htmlReport renders the HTML report of a capture with every rule.
func htmlReport(t *testing.T, path string, redact bool) (string, *report.Report) {
	t.Helper()
	all := rules.All()
	res, tr := analyseFile(t, path, all, trace.Options{Needs: report.HTMLRequires.Union(trace.Needs{Redaction: redact})})
	rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: all, Trace: tr})
	if redact {
		report.Redact(rep)
	}
	var b bytes.Buffer
	if err := report.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	return b.String(), rep
}

var dataBlock = regexp.MustCompile(`<script type="application/json" class="frames-data">(.*?)</script>`)

// TestHTMLMarkupOnlyOurs: in the report of a capture full of markup, every
// element the page holds is the report's own (checked here without a browser,
// by counting what a capture would have to open): one SVG per session and one
// per chart of what the sessions cost, one data block per session and one script; the data blocks decode to the captured text.
func TestHTMLMarkupOnlyOurs(t *testing.T) {
	for _, redact := range []bool{false, true} {
		out, rep := htmlReport(t, "../../fixtures/hostile/html-injection.jsonl", redact)
		sessions := len(rep.Sessions)
		// The sequence diagrams, and the charts of what the sessions cost.
		svgs := sessions + strings.Count(out, `<svg class="cost" role="img"`) + strings.Count(out, `<svg class="latency" role="img"`)
		for tag, want := range map[string]int{"<script": sessions + 1, "</script": sessions + 1, "<svg": svgs, "</svg": svgs,
			"<img": 0, "<iframe": 0, "<b ": 0, "<u>": 0, "<style": 1, "</style": 1} {
			if got := strings.Count(strings.ToLower(out), tag); got != want {
				t.Errorf("redact=%v: %d %q, want %d", redact, got, tag, want)
			}
		}
		blocks := dataBlock.FindAllStringSubmatch(out, -1)
		if len(blocks) != sessions {
			t.Fatalf("redact=%v: %d data blocks, want %d", redact, len(blocks), sessions)
		}
		var rows []struct {
			Label string `json:"x"`
			JSON  string `json:"j"`
		}
		if err := json.Unmarshal([]byte(blocks[0][1]), &rows); err != nil {
			t.Fatalf("redact=%v: the data block is not JSON: %v", redact, err)
		}
		var all strings.Builder
		for _, r := range rows {
			all.WriteString(r.Label + "\n" + r.JSON + "\n")
		}
		if !redact && !strings.Contains(all.String(), `</script><script>window.__pwned=7</script><!--`) {
			t.Errorf("the data block lost the captured error message: %s", all.String())
		}
	}
}

// largeCapture writes a session of 1002 frames: the handshake, then 500
// tools/call requests, all answered but the 250th (line 502).
func largeCapture(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{}}}`+"\n", i)
		if i != 250 {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`+"\n", i)
		}
	}
	path := filepath.Join(t.TempDir(), "large.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHTMLLargeSession: a session of a thousand frames keeps a small diagram
// (the handshake and the flagged frame's neighbours, the rest counted as
// omitted) and carries every frame in the timeline's data.
func TestHTMLLargeSession(t *testing.T) {
	path := largeCapture(t)
	out, rep := htmlReport(t, path, false)
	frames := rep.Sessions[0].Frames
	if frames != 1002 {
		t.Fatalf("%d frames", frames)
	}
	if arrows := strings.Count(out, `<g class="arrow `); arrows > 40 {
		t.Errorf("the diagram draws %d arrows of %d frames", arrows, frames)
	}
	if !regexp.MustCompile(`… \d+ frames omitted \(lines \d+–\d+\) …`).MatchString(out) {
		t.Error("the diagram does not say which frames it omitted")
	}
	if !strings.Contains(out, `data-line="502" data-findings="MCP3001"`) || !strings.Contains(out, "(no response)") {
		t.Error("the unanswered request (line 502) is not drawn flagged with its (no response) mark")
	}
	var rows []json.RawMessage
	if err := json.Unmarshal([]byte(dataBlock.FindStringSubmatch(out)[1]), &rows); err != nil || len(rows) != frames {
		t.Errorf("the timeline carries %d rows (%v), want %d", len(rows), err, frames)
	}
}

// TestHTMLRunCap: past the frames an HTML report keeps over a run, a session's
// timeline carries the frames kept before it and says how many were not kept,
// from which line, and why; its findings stay.
func TestHTMLRunCap(t *testing.T) {
	path := largeCapture(t)
	all := rules.All()
	res, tr := analyseFile(t, path, all, trace.Options{Needs: report.HTMLRequires, MaxRunFrames: 500})
	rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: all, Trace: tr})
	var b bytes.Buffer
	if err := report.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	var rows []json.RawMessage
	if err := json.Unmarshal([]byte(dataBlock.FindStringSubmatch(out)[1]), &rows); err != nil || len(rows) != 500 {
		t.Errorf("the timeline carries %d rows (%v), want the 500 kept", len(rows), err)
	}
	if want := "502 frames of the session, from line 501 on, were not kept by the analysis (an HTML report keeps at most 500 frames over the whole run)"; !strings.Contains(out, want) {
		t.Errorf("the page does not say %q", want)
	}
	if len(rep.Sessions[0].Findings) == 0 || !strings.Contains(out, "MCP3001") {
		t.Error("the findings of the frames not kept are gone")
	}
}

// TestHTMLPolicyHashesTheInlineCode: the CSP allows exactly the page's inline
// style and script, and forbids every load.
func TestHTMLPolicyHashesTheInlineCode(t *testing.T) {
	out, _ := htmlReport(t, "testdata/golden/session.jsonl", false)
	policy := report.HTMLPolicy()
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "img-src 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(policy, want) {
			t.Errorf("the policy lacks %s: %s", want, policy)
		}
	}
	if strings.Contains(policy, "unsafe") || strings.Count(policy, "'sha256-") != 2 {
		t.Errorf("the policy should allow two hashes and nothing unsafe: %s", policy)
	}
	if !strings.Contains(out, strings.ReplaceAll(policy, "'", "&#39;")) {
		t.Error("the page does not carry the policy")
	}
}

// TestHTMLErrorsFailTheVerdict: a report without findings whose only input
// could not be read is not a clean run in the HTML report: the header verdict is
// marked failed and the input is listed, escaped, with its kind and message.
func TestHTMLErrorsFailTheVerdict(t *testing.T) {
	rep := report.BuildWith("test", nil, report.Options{})
	rep.Errors = []report.InputError{{Input: "<b>missing</b>.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: <no such file>"}}
	var b bytes.Buffer
	if err := report.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`<p class="verdict v-error"><span class="icon icon-failed"></span> 0 errors`,
		`<strong>1 input could not be read or judged:</strong>`,
		`<li class="input-error v-error" data-kind="unreadable"><span class="icon icon-failed"></span> <code>&lt;b&gt;missing&lt;/b&gt;.jsonl</code> (unreadable): cannot read: &lt;no such file&gt;</li>`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the HTML report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `class="verdict v-ok"`) {
		t.Errorf("an unreadable input still gives a clean verdict somewhere:\n%s", out)
	}
}
