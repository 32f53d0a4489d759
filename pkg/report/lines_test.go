package report_test

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule/ruletest"
)

// The lines format written session by session through a spool (what check and
// scan do) is byte for byte the lines written from the whole report: for each
// fixture alone (interleaved streams end their sessions out of order), for all of
// them as one run, with and without --redact, pipelined or not, and with inputs
// that could not be read or judged.
func TestLinesStreamEqualsWholeReport(t *testing.T) {
	paths := ruletest.Captures(t, filepath.Join("..", "..", "fixtures"))
	lines := func(w *bytes.Buffer, rep *report.Report) error { return report.WriteLines(w, rep) }
	pipelined := func(spool io.Writer, opt report.StreamOptions) report.Stream {
		return report.Pipelined(report.NewLinesStream(spool, opt))
	}
	for _, path := range paths {
		whole, streamed := whole(t, []string{path}, false, lines), streamed(t, []string{path}, false, report.NewLinesStream)
		if !bytes.Equal(whole, streamed) {
			t.Fatalf("%s: the streamed lines differ:\n--- whole\n%s\n--- streamed\n%s", path, whole, streamed)
		}
	}
	for _, redact := range []bool{false, true} {
		all := whole(t, paths, redact, lines)
		if len(all) == 0 {
			t.Fatalf("redact %v: no finding in any fixture: the test proves nothing", redact)
		}
		if streamed := streamed(t, paths, redact, report.NewLinesStream); !bytes.Equal(all, streamed) {
			t.Fatalf("all fixtures (redact %v): the streamed lines differ", redact)
		}
		if piped := streamed(t, paths, redact, pipelined); !bytes.Equal(all, piped) {
			t.Fatalf("all fixtures (redact %v): the pipelined lines differ", redact)
		}
	}
	errs := []report.InputError{
		{Input: "missing-sk-live-abcdefghijklmnopqrstuvwx.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: no such file or directory"},
		{Input: "archive", Kind: report.ErrorNoCaptures, Message: "no captures found"},
	}
	path := filepath.Join("testdata", "golden", "session.jsonl")
	for _, redact := range []bool{false, true} {
		whole := whole(t, []string{path}, redact, func(w *bytes.Buffer, rep *report.Report) error {
			rep.Errors = append([]report.InputError(nil), errs...)
			if redact {
				report.RedactErrors(rep.Errors)
			}
			return report.WriteLines(w, rep)
		})
		streamed := streamedWith(t, []string{path}, redact, report.NewLinesStream, errs)
		if !bytes.Equal(whole, streamed) {
			t.Fatalf("redact %v: the streamed lines with errors differ:\n--- whole\n%s\n--- streamed\n%s", redact, whole, streamed)
		}
		if !bytes.HasSuffix(streamed, []byte("\narchive: error: no captures found\n")) {
			t.Errorf("redact %v: the errors are not the last lines:\n%s", redact, streamed)
		}
		if redact == bytes.Contains(streamed, []byte("abcdefghijklmnopqrstuvwx")) {
			t.Errorf("redact %v: the secret in an input name is masked only with --redact:\n%s", redact, streamed)
		}
	}
	// No input, nothing to say: nothing at all.
	if streamed := streamed(t, nil, false, report.NewLinesStream); len(streamed) != 0 {
		t.Errorf("no input: the lines format wrote %q", streamed)
	}
}

// A finding is one line whatever its message and input name hold: newlines, tabs,
// terminal escapes and bidi controls are escaped as everywhere else (Safe), the
// line keeps path:line: severity RULE message; an input that could not be read is
// path: error: message, one skipped on purpose path: warning: message.
func TestLinesAreOneLineEach(t *testing.T) {
	rep := report.BuildWith("test", nil, report.Options{})
	rep.Sessions = []report.Session{{Input: "dir/cap\tture.jsonl", Index: 1, Findings: []report.Finding{
		{Rule: "MCP3007", Severity: "warning", Input: "dir/cap\tture.jsonl", Line: 12,
			Message: "error -32000 \"boom\nsecond line\x1b[2J\u202e\" answers tools/call"},
		{Rule: "MCP1001", Severity: "error", Input: "dir/cap\tture.jsonl", Line: 0, Message: "no line to point at"},
	}}}
	rep.Errors = []report.InputError{
		{Input: "gone\n.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: permission denied"},
		{Input: "archive/pipe.jsonl", Kind: report.ErrorSkipped, Message: "skipped: a named pipe (FIFO)"},
	}
	var b bytes.Buffer
	if err := report.WriteLines(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`dir/cap\tture.jsonl:12: warning MCP3007 error -32000 "boom\nsecond line\x1b[2J\u202e" answers tools/call`,
		`dir/cap\tture.jsonl: error MCP1001 no line to point at`,
		`gone\n.jsonl: error: cannot read: permission denied`,
		`archive/pipe.jsonl: warning: skipped: a named pipe (FIFO)`,
	}
	if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
