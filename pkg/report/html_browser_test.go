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

// screenshot saves a picture of the whole page under the test's temporary
// directory, and in $MCPSLEUTH_SCREENSHOTS when set, to look at after the run.
func (p *browserPage) screenshot(t *testing.T, name string) string {
	t.Helper()
	return p.save(t, name, chromedp.FullScreenshot(100))
}

// firstScreen saves a picture of what the window shows before any scrolling,
// as screenshot does.
func (p *browserPage) firstScreen(t *testing.T, name string) string {
	t.Helper()
	return p.save(t, name, chromedp.CaptureScreenshot())
}

func (p *browserPage) save(t *testing.T, name string, shot chromedp.Action[[]byte]) string {
	t.Helper()
	png, err := chromedp.Run(p.ctx, shot)
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

// resize makes the window width × height pixels (the page's layout follows)
// and scrolls back to the top.
func (p *browserPage) resize(t *testing.T, width, height int64) {
	t.Helper()
	if err := chromedp.Do(p.ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatalf("resizing the window to %d×%d: %v", width, height, err)
	}
	evalAs[bool](t, p, `(window.scrollTo(0, 0), true)`)
}

// brokenWords lists the words of the page's table cells that the browser broke
// across lines, as "header: word": each run of letters of a token of letters
// (a word, perhaps hyphenated or between brackets and punctuation) outside
// code, whose text lies on more than one line. Long tokens (paths, methods,
// JSON, code) may break; words may not. Header cells also must not overflow.
const brokenWords = `(() => {
	const out = [];
	const word = /^[("“']?[A-Za-z]+(-[A-Za-z]+)*[)"”',.;:]*$/;
	for (const cell of document.querySelectorAll('th, td')) {
		const table = cell.closest('table');
		const head = table.tHead && table.tHead.rows[0].cells[cell.cellIndex];
		const where = (table.className || 'table') + ' ' + (head ? head.textContent : '?');
		if (cell.tagName === 'TH' && cell.scrollWidth > cell.clientWidth) {
			out.push(where + ': header overflows (' + cell.scrollWidth + ' > ' + cell.clientWidth + ' px)');
		}
		const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
		for (let node = walk.nextNode(); node; node = walk.nextNode()) {
			if (node.parentElement.closest('code, pre')) {
				continue;
			}
			for (const token of node.data.matchAll(/\S+/g)) {
				if (!word.test(token[0])) {
					continue;
				}
				for (const letters of token[0].matchAll(/[A-Za-z]+/g)) {
					const range = document.createRange();
					const start = token.index + letters.index;
					range.setStart(node, start);
					range.setEnd(node, start + letters[0].length);
					const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
					if (lines.size > 1) {
						out.push(where + ': ' + letters[0]);
					}
				}
			}
		}
	}
	return out;
})()`

// TestHTMLFirstScreen (issue 28 item 7): at 900 and 1400 px wide, the page
// shows its verdict and its worst findings first, whatever their kind (here
// schema violations, which the contract table does not show), before the
// contract, the diagram and the timeline; no table breaks a word; the diagram
// fits the window with readable text; its finding labels take the colours of
// the findings' severities; no status is an emoji. The screenshots of each
// width (the first screen and the whole page) are kept with the test's files,
// and in $MCPSLEUTH_SCREENSHOTS when set.
func TestHTMLFirstScreen(t *testing.T) {
	for _, tc := range []struct {
		name, capture string
		info          bool // the diagram draws info findings
	}{
		{"MCP4001-fires", "../../fixtures/schema/MCP4001-fires.jsonl", false},
		{"ts-everything-full-2025-06-18", "../../fixtures/ts/ts-everything-full-2025-06-18.jsonl", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, rep := openReport(t, tc.capture, false)
			var violations int
			for _, f := range rep.Sessions[0].Findings {
				if f.Severity == "error" {
					if f.Rule != "MCP4001" {
						t.Fatalf("the capture yields %s %s: the test wants errors that are schema violations only", f.Rule, f.Severity)
					}
					violations++
				}
			}
			if violations == 0 {
				t.Fatal("the capture yields no MCP4001 error")
			}
			// The findings of a session come before its contract, diagram and
			// timeline.
			var order []string
			p.eval(t, `[...document.querySelectorAll('section.session li.finding, section.session table.contract, section.session svg.sequence, section.session .timeline')].map(e => e.tagName === 'LI' ? 'findings' : e.tagName === 'TABLE' ? 'contract' : e.tagName === 'svg' ? 'diagram' : 'timeline').filter((e, i, all) => all.indexOf(e) === i)`, &order)
			if got, want := strings.Join(order, " "), "findings contract diagram timeline"; got != want {
				t.Errorf("the session shows %s, want %s", got, want)
			}
			for _, size := range []struct{ width, height int64 }{{900, 800}, {1400, 900}} {
				p.resize(t, size.width, size.height)
				p.firstScreen(t, fmt.Sprintf("first-screen-%s-%d.png", tc.name, size.width))
				// An error finding is on the first screen: its line under the
				// verdict, or else its entry's heading.
				var first struct {
					What   string  `json:"what"`
					Bottom float64 `json:"bottom"`
					Height float64 `json:"height"`
				}
				p.eval(t, `(e => ({what: e ? e.tagName + ' ' + e.dataset.rule : 'none', bottom: e ? (e.querySelector('h4') || e).getBoundingClientRect().bottom : 1e9, height: innerHeight}))(
					document.querySelector('table.summary tr[data-severity="error"], li.finding[data-severity="error"]'))`, &first)
				if first.Bottom > first.Height {
					t.Errorf("%d px: the first error finding (%s) ends %.0f px down, below the first screen (%.0f px high)", size.width, first.What, first.Bottom, first.Height)
				}
				// The summary under the verdict lists the worst first.
				var summary struct {
					Rows     int    `json:"rows"`
					Severity string `json:"severity"`
					Rule     string `json:"rule"`
				}
				p.eval(t, `(r => ({rows: document.querySelectorAll('table.summary tbody tr').length, severity: r ? r.dataset.severity : '', rule: r ? r.dataset.rule : ''}))(document.querySelector('table.summary tbody tr'))`, &summary)
				if want := min(len(rep.Sessions[0].Findings), 10); summary.Rows != want || summary.Severity != "error" || summary.Rule != "MCP4001" {
					t.Errorf("%d px: the summary under the verdict has %d rows, the first %q %q; want %d, the first an MCP4001 error", size.width, summary.Rows, summary.Severity, summary.Rule, want)
				}
				// No table breaks a word, and no header overflows its cell.
				var broken []string
				p.eval(t, brokenWords, &broken)
				if len(broken) > 0 {
					t.Errorf("%d px: words broken across lines in table cells: %v", size.width, broken)
				}
				// The diagram fits the window (the page does not scroll sideways),
				// with its 12-unit text at least 10 px high.
				var fit struct {
					Window   float64   `json:"window"`
					Page     float64   `json:"page"`
					Diagrams []float64 `json:"diagrams"`
					Rights   []float64 `json:"rights"`
				}
				p.eval(t, `({window: document.documentElement.clientWidth, page: document.documentElement.scrollWidth,
					diagrams: [...document.querySelectorAll('svg.sequence')].map(s => s.getBoundingClientRect().width),
					rights: [...document.querySelectorAll('svg.sequence')].map(s => s.getBoundingClientRect().right)})`, &fit)
				if len(fit.Diagrams) != len(rep.Sessions) {
					t.Fatalf("%d px: %d diagrams, want %d", size.width, len(fit.Diagrams), len(rep.Sessions))
				}
				for i, w := range fit.Diagrams {
					if w > fit.Window || fit.Rights[i] > fit.Window {
						t.Errorf("%d px: the diagram is %.0f px wide and ends at %.0f px, in a window %.0f px wide", size.width, w, fit.Rights[i], fit.Window)
					}
					if text := 12 * w / 960; text < 10 {
						t.Errorf("%d px: the diagram is drawn %.0f px wide, its text %.1f px high", size.width, w, text)
					}
				}
				if fit.Page > fit.Window {
					t.Errorf("%d px: the page is %.0f px wide, wider than the window (%.0f px)", size.width, fit.Page, fit.Window)
				}
				p.screenshot(t, fmt.Sprintf("page-%s-%d.png", tc.name, size.width))
			}
			// The diagram's finding labels are drawn in their severity's colour,
			// the one of the findings' borders.
			var marks []struct {
				Severity string `json:"severity"`
				Fill     string `json:"fill"`
				Want     string `json:"want"`
			}
			p.eval(t, `[...document.querySelectorAll('svg.sequence g.flagged text.mark')].filter(m => m.textContent.startsWith('⚑ ')).map(m => (s => ({severity: s, fill: getComputedStyle(m).fill,
				want: getComputedStyle(document.querySelector('li.finding.sev-' + s)).borderLeftColor}))(m.textContent.split(' ')[1]))`, &marks)
			seen := map[string]int{}
			for _, m := range marks {
				seen[m.Severity]++
				if m.Fill != m.Want {
					t.Errorf("the diagram labels a finding of severity %s in %s; the findings of that severity are marked %s", m.Severity, m.Fill, m.Want)
				}
			}
			if seen["error"] == 0 || tc.info && seen["info"] == 0 {
				t.Errorf("diagram labels by severity: %v, want errors%s", seen, map[bool]string{true: " and infos"}[tc.info])
			}
			// Statuses are drawn by the page's style, not emoji.
			var status struct {
				Emoji []string `json:"emoji"`
				Icons int      `json:"icons"`
				Blank int      `json:"blank"`
			}
			p.eval(t, `({emoji: [...(document.title + document.body.innerText + [...document.querySelectorAll('svg')].map(s => s.textContent).join(' ')).matchAll(/[\p{Emoji_Presentation}\uFE0F]/gu)].map(m => m[0]),
				icons: document.querySelectorAll('.icon').length,
				blank: [...document.querySelectorAll('.icon')].filter(i => i.getBoundingClientRect().width < 8 || getComputedStyle(i).backgroundColor === 'rgba(0, 0, 0, 0)').length})`, &status)
			if len(status.Emoji) > 0 {
				t.Errorf("the page shows emoji, empty boxes without an emoji font: %+q", status.Emoji)
			}
			if status.Icons == 0 || status.Blank > 0 {
				t.Errorf("%d status icons, %d of them not drawn", status.Icons, status.Blank)
			}
			p.clean(t)
		})
	}
}
