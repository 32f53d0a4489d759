package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// The HTML report is tested in a real browser: Debian's chromium, headless,
// driven with chromedp. .ci/run installs it (apt-get install chromium) where it
// can; the tests skip, saying why, only where no Chromium can be found.

// chromiumPath finds a Chromium or Chrome binary.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium found (chromium, chromium-browser, google-chrome): the HTML report was not checked in a browser; install it with apt-get install chromium (.ci/run does where apt can)")
	return ""
}

// browserPage is what a test saw of one loaded report.
type browserPage struct {
	ctx      context.Context
	url      string
	mu       sync.Mutex
	requests []string // every URL the page asked for besides itself
	problems []string // console errors, exceptions, CSP violations
}

func (p *browserPage) record(list *[]string, s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	*list = append(*list, s)
}

// openReport writes the HTML report of a capture to a file and loads it in a
// headless Chromium, recording every request and console error of the page.
func openReport(t *testing.T, capture string, redact bool) (*browserPage, *report.Report) {
	t.Helper()
	exe := chromiumPath(t)
	all := rules.All()
	res, tr := analyseFile(t, capture, all, trace.Options{Needs: report.HTMLRequires.Union(trace.Needs{Redaction: redact})})
	rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: all, Trace: tr})
	if redact {
		report.Redact(rep)
	}
	var b bytes.Buffer
	if err := report.WriteHTML(&b, rep); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "report.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.Flag("headless", true), chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1200, 900),
		chromedp.UserDataDir(filepath.Join(dir, "profile")))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	p := &browserPage{ctx: ctx, url: "file://" + path}
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			if ev.Request.URL != p.url {
				p.record(&p.requests, ev.Request.URL)
			}
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p.record(&p.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			p.record(&p.problems, "exception: "+ev.ExceptionDetails.Text)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				p.record(&p.problems, "log "+string(ev.Entry.Source)+": "+ev.Entry.Text)
			}
		}
	}); err != nil {
		t.Fatalf("starting Chromium (%s): %v", exe, err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(p.url), chromedp.WaitReady(chromedp.CSS(`html[data-ready="true"]`))); err != nil {
		t.Fatalf("loading the report in Chromium: %v (the page's script did not run: a wrong CSP hash blocks it)", err)
	}
	return p, rep
}

// evalAs evaluates a JavaScript expression in the page.
func evalAs[T any](t *testing.T, p *browserPage, js string) T {
	t.Helper()
	v, err := chromedp.Run(p.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// eval evaluates a JavaScript expression in the page into out.
func (p *browserPage) eval(t *testing.T, js string, out any) {
	t.Helper()
	raw := evalAs[json.RawMessage](t, p, js)
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("evaluating %s: %v (%s)", js, err, raw)
	}
}

// click clicks the first element a CSS selector matches.
func (p *browserPage) click(t *testing.T, sel string) {
	t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		t.Fatalf("clicking %s: %v", sel, err)
	}
}

// clean fails the test on any request the page made and any console error.
func (p *browserPage) clean(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.requests {
		t.Errorf("the page made a network request: %s", r)
	}
	for _, e := range p.problems {
		t.Errorf("the page raised: %s", e)
	}
}

func (p *browserPage) screenshot(t *testing.T, name string) string {
	t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("MCPSLEUTH_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, name), png, 0o644) // to look at it after the run
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(png))
	return path
}

// TestHTMLReportInBrowser loads the report of a real session whose tool list
// changed silently (MCP2005): the finding is on the page, the diagram's
// highlighted arrow is the offending frame, the severity filter hides rows, a
// click shows a frame's JSON, and the page loaded nothing and raised no error.
func TestHTMLReportInBrowser(t *testing.T) {
	p, rep := openReport(t, "../../fixtures/real/ts-client-mcpgo-server-tools-silent-change.jsonl", false)
	var finding struct {
		Rules []string `json:"rules"`
		Lines []string `json:"lines"`
	}
	p.eval(t, `({rules: [...document.querySelectorAll('li.finding')].map(e => e.dataset.rule), lines: [...document.querySelectorAll('li.finding')].map(e => e.dataset.line)})`, &finding)
	want := rep.Sessions[0].Findings
	if len(want) == 0 || want[0].Rule != "MCP2005" {
		t.Fatalf("the capture no longer yields MCP2005 first: %+v", want)
	}
	if len(finding.Rules) != len(want) || finding.Rules[0] != "MCP2005" {
		t.Errorf("findings on the page: %v, want %d starting with MCP2005", finding.Rules, len(want))
	}
	var arrows []struct {
		Line     string `json:"line"`
		Findings string `json:"findings"`
		Label    string `json:"label"`
		Class    string `json:"class"`
	}
	p.eval(t, `[...document.querySelectorAll('svg.sequence g.arrow.flagged')].map(g => ({line: g.dataset.line, findings: g.dataset.findings, label: g.querySelector('text').textContent, class: g.getAttribute('class')}))`, &arrows)
	if len(arrows) != 1 {
		t.Fatalf("highlighted arrows: %+v, want one (the second tools/list result)", arrows)
	}
	a := arrows[0]
	if a.Line != fmt.Sprint(want[0].Line) || !strings.Contains(a.Findings, "MCP2005") || !strings.Contains(a.Class, "sev-error") ||
		!strings.Contains(a.Label, "result id=3 for tools/list (line 9)") {
		t.Errorf("the highlighted arrow is %+v, want the frame at line %d (result id=3 for tools/list) flagged MCP2005", a, want[0].Line)
	}
	var rows struct {
		All, Error int
	}
	p.eval(t, `({All: document.querySelectorAll('#s1-timeline tr.frame').length, Error: document.querySelectorAll('#s1-timeline tr.frame[data-severity="error"]').length})`, &rows)
	if rows.All != rep.Sessions[0].Frames || rows.Error != 1 {
		t.Errorf("timeline rows: %+v, want %d with 1 error", rows, rep.Sessions[0].Frames)
	}
	// Unchecking "no finding" leaves the flagged frame only.
	p.click(t, `#s1-timeline input[data-filter="severity"][value=""]`)
	var left []string
	p.eval(t, `[...document.querySelectorAll('#s1-timeline tr.frame')].map(r => r.dataset.line)`, &left)
	if len(left) != 1 || left[0] != fmt.Sprint(want[0].Line) {
		t.Errorf("with unflagged frames filtered out the timeline shows lines %v, want [%d]", left, want[0].Line)
	}
	// A click on the frame shows its JSON.
	p.click(t, `#s1-timeline tr.frame`)
	var raw string
	p.eval(t, `document.querySelector('#s1-timeline tr.raw pre').textContent`, &raw)
	if !strings.Contains(raw, `"jsonrpc": "2.0"`) || !strings.Contains(raw, `"tools"`) {
		t.Errorf("the expanded frame shows %q, want its JSON", raw)
	}
	p.screenshot(t, "tools-silent-change.png")
	p.clean(t)
}

// TestHTMLSeverityFilter: the severity filter hides the info rows and only them,
// and the direction and method filters narrow the rows.
func TestHTMLSeverityFilter(t *testing.T) {
	p, _ := openReport(t, "../../fixtures/hostile/html-injection.jsonl", false)
	count := func(sel string) int {
		var n int
		p.eval(t, `document.querySelectorAll('#s1-timeline tr.frame`+sel+`').length`, &n)
		return n
	}
	all, info := count(""), count(`[data-severity="info"]`)
	if info == 0 || all <= info {
		t.Fatalf("timeline: %d rows, %d info: the fixture should have both", all, info)
	}
	p.click(t, `#s1-timeline input[data-filter="severity"][value="info"]`)
	if got := count(`[data-severity="info"]`); got != 0 {
		t.Errorf("info unchecked: %d info rows still shown", got)
	}
	if got := count(""); got != all-info {
		t.Errorf("info unchecked: %d rows shown, want %d", got, all-info)
	}
	p.click(t, `#s1-timeline input[data-filter="direction"][value="c2s"]`)
	if got := count(`[data-direction="c2s"]`); got != 0 || count("") == 0 {
		t.Errorf("client → server unchecked: %d client rows, %d rows in all", got, count(""))
	}
	evalAs[bool](t, p, `(s => { s.value = 'logging/setLevel'; return s.dispatchEvent(new Event('change', {bubbles: true})) })(document.querySelector('#s1-timeline select'))`)
	var methods []string
	p.eval(t, `[...document.querySelectorAll('#s1-timeline tr.frame')].map(r => r.dataset.method)`, &methods)
	if len(methods) != 1 || methods[0] != "logging/setLevel" {
		t.Errorf("method logging/setLevel, server → client: rows %v, want the one -32601 response", methods)
	}
	p.clean(t)
}

// TestHTMLInjectionDoesNotExecute loads the report of a capture carrying script
// tags, </svg>, </script>, event attributes and an iframe in client and server
// names, instructions, tool names, arguments, error messages and a method name,
// and opens every frame's JSON: nothing executes, no element comes from the
// capture, the captured text is shown as text, and the page loads nothing.
func TestHTMLInjectionDoesNotExecute(t *testing.T) {
	for _, redact := range []bool{false, true} {
		t.Run(fmt.Sprintf("redact=%v", redact), func(t *testing.T) {
			p, rep := openReport(t, "../../fixtures/hostile/html-injection.jsonl", redact)
			evalAs[int](t, p, `(rows => { rows.forEach(r => r.click()); return rows.length })(document.querySelectorAll('tr.frame'))`)
			var got struct {
				Pwned    bool     `json:"pwned"`
				Scripts  int      `json:"scripts"`
				Foreign  []string `json:"foreign"`
				Handlers []string `json:"handlers"`
				Client   string   `json:"client"`
				Raw      int      `json:"raw"`
				Text     string   `json:"text"`
			}
			p.eval(t, `({
				pwned: window.__pwned !== undefined,
				scripts: document.scripts.length,
				foreign: [...document.querySelectorAll('img, iframe, object, embed, svg svg, b, u, style:not(head > style), link, base, meta:not(head > meta)')].map(e => e.outerHTML.slice(0, 80)),
				handlers: [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name)),
				client: document.querySelector('.client-name').textContent,
				raw: document.querySelectorAll('tr.raw').length,
				text: document.body.innerText,
			})`, &got)
			if got.Pwned {
				t.Error("captured script executed: window.__pwned is set")
			}
			if want := len(rep.Sessions) + 1; got.Scripts != want { // one data block per session, and the page's own script
				t.Errorf("%d script elements, want %d", got.Scripts, want)
			}
			if len(got.Foreign) > 0 {
				t.Errorf("elements from the capture: %v", got.Foreign)
			}
			if len(got.Handlers) > 0 {
				t.Errorf("event handler attributes: %v", got.Handlers)
			}
			if got.Raw != rep.Sessions[0].Frames {
				t.Errorf("%d frames expanded, want %d", got.Raw, rep.Sessions[0].Frames)
			}
			for _, want := range []string{`<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`, `</svg><svg onload="window.__pwned=3">`,
				`"><img src=x onerror=window.__pwned=5>`, `</script><script>window.__pwned=7</script><!--`} {
				if redact && strings.Contains(want, "pwned=7") {
					continue
				}
				if !strings.Contains(got.Text, want) {
					t.Errorf("the page does not show %q as text", want)
				}
			}
			if !strings.Contains(got.Client, "<script>window.__pwned=1</script>") {
				t.Errorf("client name shown as %q", got.Client)
			}
			p.screenshot(t, "injection.png")
			p.clean(t)
		})
	}
}

// TestHTMLPagesAndThemes: a long session's timeline is shown a page at a time
// and the pager moves through it; the page follows the reader's colour scheme.
func TestHTMLPagesAndThemes(t *testing.T) {
	p, rep := openReport(t, largeCapture(t), false)
	type page struct {
		Rows  int    `json:"rows"`
		First string `json:"first"`
		Label string `json:"label"`
	}
	read := func() page {
		var pg page
		p.eval(t, `({rows: document.querySelectorAll('#s1-timeline tr.frame').length, first: document.querySelector('#s1-timeline tr.frame').dataset.line, label: document.querySelector('#s1-timeline .page').textContent})`, &pg)
		return pg
	}
	pages := (rep.Sessions[0].Frames + 99) / 100
	if got, want := read(), (page{Rows: 100, First: "1", Label: fmt.Sprintf("page 1 of %d", pages)}); got != want {
		t.Errorf("first page: %+v, want %+v", got, want)
	}
	p.click(t, `#s1-timeline [data-page="next"]`)
	if got, want := read(), (page{Rows: 100, First: "101", Label: fmt.Sprintf("page 2 of %d", pages)}); got != want {
		t.Errorf("second page: %+v, want %+v", got, want)
	}
	background := func() string { return evalAs[string](t, p, `getComputedStyle(document.body).backgroundColor`) }
	if got := background(); got != "rgb(255, 255, 255)" {
		t.Errorf("light theme background %s", got)
	}
	dark := chromedp.Func(func(ctx context.Context, target *chromedp.Target) error {
		_, err := cdp.Call(ctx, target, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	})
	if err := chromedp.Do(p.ctx, dark); err != nil {
		t.Fatal(err)
	}
	if got := background(); got != "rgb(13, 17, 23)" {
		t.Errorf("dark theme background %s", got)
	}
	p.screenshot(t, "large-dark.png")
	p.clean(t)
}
