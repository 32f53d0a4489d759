package report_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// findingKeys renders what a run found, session by session, to compare runs.
func findingKeys(res *driver.InputResult) []string {
	var out []string
	for _, s := range res.Sessions {
		out = append(out, fmt.Sprintf("session %d lines %d-%d frames %d", s.Session.Index, s.Session.FirstLine, s.Session.LastLine, s.Session.Frames))
		for _, f := range s.Findings {
			out = append(out, fmt.Sprintf("  %d %s %s %s", f.Line, f.Rule, f.Severity, f.Message))
		}
		for _, n := range s.Notes {
			out = append(out, "  note "+n)
		}
	}
	return out
}

// TestTraceChangesNoFinding: a run with the tracer next to the rules (sessions
// handed over as they end) finds exactly what the rules alone find, with the same
// session numbering, on every fixture and the test captures.
func TestTraceChangesNoFinding(t *testing.T) {
	paths := reportCaptures(t)
	more, _ := filepath.Glob("../../fixtures/*/*.log")
	paths = append(paths, more...)
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := driver.Run(path, strings.NewReader(string(data)), rules.All(), driver.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ended []int
		tr := trace.New(trace.Options{Needs: trace.Needs{Frames: true, Contract: true, Handshake: true}})
		opt := driver.RunOptions{OnSession: func(sr *rule.SessionResult) {
			if tr.Of(sr) != nil {
				ended = append(ended, sr.Session.Index)
			}
		}}
		tr.Apply(&opt)
		got, err := driver.Run(path, strings.NewReader(string(data)), rules.All(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if w, g := findingKeys(want), findingKeys(got); !reflect.DeepEqual(w, g) {
			t.Errorf("%s: the rules alone and with the tracer differ:\nalone:\n%s\ntraced:\n%s", path, strings.Join(w, "\n"), strings.Join(g, "\n"))
		}
		if len(ended) != len(want.Sessions) {
			t.Errorf("%s: traces for %d sessions, want %d", path, len(ended), len(want.Sessions))
		}
		if got.Stats != want.Stats {
			t.Errorf("%s: stats %+v, want %+v", path, got.Stats, want.Stats)
		}
	}
}

// TestTraceStreams: with Discard, each session is handed over with its trace when
// the next one begins, before the input ends, and none is kept.
func TestTraceStreams(t *testing.T) {
	const capture = "testdata/golden/session.jsonl"
	f, err := os.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var contextSeen []int
	var endedAt []int
	tracer := trace.New(trace.Options{Needs: report.TimelineRequires})
	opt := driver.RunOptions{Discard: true,
		OnContext: func(line int, _ []byte) { contextSeen = append(contextSeen, line) },
		OnSession: func(sr *rule.SessionResult) {
			endedAt = append(endedAt, sr.Session.LastLine)
			if tr := tracer.Of(sr); tr == nil || tr.Total != sr.Session.Frames {
				t.Errorf("session %d: trace %+v for %d frames", sr.Session.Index, tr, sr.Session.Frames)
			}
		}}
	tracer.Apply(&opt)
	res, err := driver.Run(capture, f, goldenRules, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 0 {
		t.Errorf("Discard kept %d sessions", len(res.Sessions))
	}
	if !reflect.DeepEqual(endedAt, []int{53, 59}) || !reflect.DeepEqual(contextSeen, []int{4}) {
		t.Errorf("sessions ended at %v, context lines %v", endedAt, contextSeen)
	}
}

// TestTraceUsesAndReactions: what the tracer keeps of the golden session, and
// that it counts uses and copies declaring frames only for views that ask.
func TestTraceUsesAndReactions(t *testing.T) {
	res, tr := analyseFile(t, "testdata/golden/session.jsonl", goldenRules, trace.Options{Needs: trace.Needs{Frames: true, Context: true}})
	if first := tr.Of(res.Sessions[0]); len(first.Uses) > 0 || len(first.Declaring) > 0 {
		t.Errorf("a trace without Needs.Uses and Needs.Declaring kept %d uses and %d declaring frames", len(first.Uses), len(first.Declaring))
	}
	res, tr = analyseFile(t, "testdata/golden/session.jsonl", goldenRules, trace.Options{Needs: trace.Needs{Frames: true, Context: true, Uses: true, Declaring: true}})
	first := tr.Of(res.Sessions[0])
	uses := map[string]trace.MethodUse{}
	for _, u := range first.Uses {
		uses[u.Dir.String()+" "+u.Method] = u
	}
	for key, want := range map[string]int{"c2s tools/call": 22, "c2s tools/list": 1, "s2c notifications/resources/list_changed": 2, "c2s prompts/list": 1} {
		if uses[key].Count != want {
			t.Errorf("%s counted %d times, want %d", key, uses[key].Count, want)
		}
	}
	if got := uses["s2c notifications/resources/list_changed"].Lines; !reflect.DeepEqual(got, []int{43, 53}) {
		t.Errorf("list_changed lines %v", got)
	}
	if raw := first.Declaring[2]; !strings.Contains(string(raw), `"serverInfo":{"name":"invoices"`) {
		t.Errorf("declaring frame at line 2 = %q", raw)
	}
	byLine := map[int]trace.FrameSummary{}
	for _, fs := range first.Frames {
		byLine[fs.Line] = fs
	}
	if fs := byLine[4]; !fs.Context || fs.Text != "invoices: cache warmed in 12ms (stderr)" {
		t.Errorf("line 4 = %+v", fs)
	}
	// An undeclared list_changed (line 43, again at 53) the client never acted on:
	// dropped as it may be, not a reaction owed (that would be MCP2007's).
	if fs := byLine[43]; !fs.Reaction.Dropped() || fs.Reaction.Missing() || fs.Reaction.Undeclared != "the server declared resources without listChanged" {
		t.Errorf("line 43 reaction = %+v", fs.Reaction)
	}
	if fs := byLine[52]; !fs.Unanswered || fs.ResponseLine != 0 {
		t.Errorf("line 52 = %+v", fs)
	}
	if fs := byLine[51]; fs.Method != "prompts/list" || !fs.HasLatency || fs.Latency.Milliseconds() != 2 || fs.ErrorCode != -32601 || fs.Dir != spec.S2C {
		t.Errorf("line 51 = %+v", fs)
	}
	if fs := byLine[7]; fs.Subject != "get_invoice" || fs.ResponseLine != 8 {
		t.Errorf("line 7 = %+v", fs)
	}
	second := tr.Of(res.Sessions[1])
	for _, fs := range second.Frames {
		if fs.Line == 57 && (fs.Reaction == nil || fs.Reaction.Missing() || fs.Reaction.Line != 58 || fs.Reaction.By != "resources/list") {
			t.Errorf("line 57 reaction = %+v", fs.Reaction)
		}
	}
}

// TestTraceCap: beyond MaxFrames the summaries are counted, not kept, and the
// diagram says so.
func TestTraceCap(t *testing.T) {
	res, tracer := analyseFile(t, "testdata/golden/session.jsonl", goldenRules, trace.Options{Needs: report.MarkdownRequires, MaxFrames: 10})
	tr := tracer.Of(res.Sessions[0])
	if !tr.Capped || tr.CappedAt != 12 || tr.Total != 52 || tr.Omitted != 42 {
		t.Fatalf("trace capped=%v at %d, total %d", tr.Capped, tr.CappedAt, tr.Total)
	}
	rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: goldenRules, Trace: tracer})
	var b strings.Builder
	if err := report.WriteMarkdown(&b, rep); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"Note over C,S: #8230; 42 frames from line 12 on not kept#58; the session is longer than the frames an observer keeps #8230;",
		"Note over C,S: s2c notifications/resources/list_changed (summary not kept) (line 43)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
}

// TestTraceNumbersPerInput: one tracer over several inputs, sessions numbered per
// input as rule.Run numbers them.
func TestTraceNumbersPerInput(t *testing.T) {
	tracer := trace.New(trace.Options{Needs: report.MarkdownRequires})
	var inputs []*driver.InputResult
	for _, path := range []string{"testdata/golden/session.jsonl", "testdata/golden/session.jsonl"} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		opt := driver.RunOptions{}
		tracer.Apply(&opt)
		res, err := driver.Run(path, f, goldenRules, opt)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, res)
	}
	for i, in := range inputs {
		for j, s := range in.Sessions {
			if s.Session.Index != j || tracer.Of(s) == nil {
				t.Errorf("input %d session %d: index %d, trace %v", i, j, s.Session.Index, tracer.Of(s) != nil)
			}
		}
	}
	rep := report.BuildWith("test", inputs, report.Options{Rules: goldenRules, Trace: tracer})
	var b strings.Builder
	if err := report.WriteMarkdown(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Session 4\n", "| [4](#session-4) | `testdata/golden/session.jsonl` |", "- Capture: `testdata/golden/session.jsonl` (its session 2), lines 54–59"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Markdown of two inputs lacks %q", want)
		}
	}
}

// TestReactionOptionalBeforeAnyList: a declared list_changed sent before the client
// ever listed asks for no new fetch: no "(no reaction)".
func TestReactionOptionalBeforeAnyList(t *testing.T) {
	const capture = "../../fixtures/real/ts-everything-killed-midcall.jsonl"
	f, err := os.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tracer := trace.New(trace.Options{Needs: trace.Needs{Frames: true}})
	opt := driver.RunOptions{}
	tracer.Apply(&opt)
	res, err := driver.Run(capture, f, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, fs := range tracer.Of(res.Sessions[0]).Frames {
		if fs.Line == 4 && (fs.Reaction == nil || !fs.Reaction.Optional || fs.Reaction.Missing()) {
			t.Errorf("line 4 (list_changed before any tools/list) reaction = %+v", fs.Reaction)
		}
	}
}
