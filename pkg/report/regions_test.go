package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule/ruletest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// A file cut into regions judged apart (driver.RunOptions.RegionBytes) gives the
// views what the whole file gives them: the trace of every session (frames,
// contract, costs, declarations, raw text) and the values --redact hides, so the
// redacted JSON, Markdown and HTML reports are the same byte for byte. Every
// fixture, cut at every line that may start a session on two and three workers,
// and all the fixtures of a kind one after another.
func TestRegionsKeepTheViews(t *testing.T) {
	needs := report.MarkdownRequires.Union(report.HTMLRequires).Union(trace.Needs{Redaction: true})
	render := func(path string, data []byte, ropt driver.RunOptions) (string, int) {
		t.Helper()
		tr := trace.New(trace.Options{Needs: needs})
		tr.Apply(&ropt)
		res, err := driver.Run(path, bytes.NewReader(data), rules.All(), ropt)
		if err != nil {
			return "unreadable: " + err.Error(), 0
		}
		rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: rules.All(), Trace: tr})
		report.Redact(rep)
		var b strings.Builder
		for _, write := range []func(*strings.Builder) error{
			func(w *strings.Builder) error { return report.WriteJSON(w, rep) },
			func(w *strings.Builder) error { return report.WriteMarkdown(w, rep) },
			func(w *strings.Builder) error { return report.WriteHTML(w, rep) },
		} {
			if err := write(&b); err != nil {
				t.Fatal(err)
			}
		}
		return b.String(), res.Regions
	}
	whole := driver.RunOptions{RegionBytes: -1}
	kept := 0 // cuts kept: regions judged apart past the first
	all := map[string]*bytes.Buffer{}
	paths := ruletest.Captures(t, filepath.Join("..", "..", "fixtures"))
	if len(paths) < 100 {
		t.Fatalf("only %d captures found under fixtures/", len(paths))
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ext := filepath.Ext(path)
		if all[ext] == nil {
			all[ext] = &bytes.Buffer{}
		}
		all[ext].Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			all[ext].WriteByte('\n')
		}
		// The fixture between two sessions of their own, in two line formats:
		// the cuts before and after it are checked against the states a
		// fixture starts and ends in, and each session's redaction against the
		// others'.
		for _, tail := range []string{envelopeTail, bareTail} {
			tailed := []byte(tail)
			tailed = append(tailed, data...)
			if len(data) > 0 && data[len(data)-1] != '\n' {
				tailed = append(tailed, '\n')
			}
			tailed = append(tailed, tail...)
			want, _ := render(path, tailed, whole)
			got, regions := render(path, tailed, driver.RunOptions{RegionBytes: 1, RegionWorkers: 2})
			if got != want {
				t.Errorf("%s between two sessions: the views differ cut into regions:\n%s", path, ruletest.FirstDifference(want, got))
			}
			kept += max(regions-1, 0)
		}
		want, _ := render(path, data, whole)
		for _, workers := range []int{2, 3} {
			got, regions := render(path, data, driver.RunOptions{RegionBytes: 1, RegionWorkers: workers})
			if got != want {
				t.Errorf("%s: the views differ cut into regions on %d workers:\n%s", path, workers, ruletest.FirstDifference(want, got))
			}
			if regions > 1 && workers == 2 {
				kept += regions - 1
			}
		}
	}
	for ext, b := range all {
		path := filepath.Join(t.TempDir(), "all"+ext)
		want, _ := render(path, b.Bytes(), whole)
		for _, size := range []int{1, 4 << 10} {
			got, regions := render(path, b.Bytes(), driver.RunOptions{RegionBytes: size, RegionWorkers: 2})
			if got != want {
				t.Errorf("%s (%d bytes): the views differ cut into regions of %d bytes:\n%s", path, b.Len(), size, ruletest.FirstDifference(want, got))
			}
			if regions > 1 {
				kept += regions - 1
			}
		}
	}
	if kept < 100 {
		t.Errorf("only %d cuts were kept: the views are hardly tested apart", kept)
	}
	t.Logf("%d cuts kept", kept)
}

// Sessions to put around a fixture: a tools/call whose argument the server's
// error echoes, which --redact hides in that session's report.
const (
	envelopeTail = `{"ts":"2026-12-01T10:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tail","version":"1"}}}}
{"ts":"2026-12-01T10:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"tail","version":"1"}}}}
{"ts":"2026-12-01T10:00:02Z","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"ts":"2026-12-01T10:00:03Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"account":"acct-7781-tail"}}}}
{"ts":"2026-12-01T10:00:04Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no account acct-7781-tail"}}}
`
	bareTail = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"tail","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"tail","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lookup","arguments":{"account":"acct-7781-tail"}}}
{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no account acct-7781-tail"}}
`
)
