package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

// TestRedactEveryFormat (issue 11 items 18 and 19): with --redact, a password
// and a query echoed by the server's error messages, and a credential in a HAR
// URL path, appear in no format of check and not in the timeline. Before, the
// error messages carried the echoed values into every format, and the path into
// MCP1011's message.
func TestRedactEveryFormat(t *testing.T) {
	for capture, secrets := range map[string][]string{
		"redact-echoed-secret.jsonl": {"Tr0ub4dor", "078-05-1120"},
		"redact-url-path-token.har":  {"9f86d081884c7d659a2feaa0c55ad015"},
	} {
		path, err := filepath.Abs(filepath.Join("../../fixtures/hostile", capture))
		if err != nil {
			t.Fatal(err)
		}
		runs := [][]string{{"timeline", "--redact", path}}
		for _, format := range []string{"text", "json", "jsonl", "markdown", "sarif", "junit", "lines"} {
			runs = append(runs, []string{"check", "--redact", "--format", format, path})
		}
		_, plain, _ := run(t, "check", path)
		if !strings.Contains(plain, secrets[0]) {
			t.Fatalf("%s: the unredacted report lacks %s: the test proves nothing", capture, secrets[0])
		}
		for _, args := range runs {
			code, stdout, stderr := run(t, args...)
			if code == cli.ExitUsage {
				t.Fatalf("%q: exit %d: %s", args, code, stderr)
			}
			for _, s := range secrets {
				if i := strings.Index(stdout+stderr, s); i >= 0 {
					out := stdout + stderr
					t.Errorf("%s %q: %s leaked: %q", capture, args[:len(args)-1], s, out[max(0, i-80):min(len(out), i+30)])
				}
			}
		}
	}
}

// TestRedactCutEcho: a long argument (627 characters) that the server echoes
// in an error message and on stderr is shown cut in the timeline (the subject
// at 160 bytes, the context line at 512). With --redact, the cut texts keep no
// start of it: the session's values are replaced before the texts are cut. Before,
// the cut texts held a start of the value and no whole one, so nothing replaced
// it there.
func TestRedactCutEcho(t *testing.T) {
	path, err := filepath.Abs("../../fixtures/hostile/redact-cut-echo.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const start = "CONFIDENTIAL memo"
	if _, plain, _ := run(t, "timeline", "--color", "never", path); strings.Count(plain, start) != 2 {
		t.Fatalf("the timeline without --redact shows the echoed value %d times, want 2 (the error and the context line): the test proves nothing\n%s", strings.Count(plain, start), plain)
	}
	for _, args := range [][]string{
		{"timeline", "--redact", "--color", "never", path},
		{"check", "--redact", "--format", "markdown", path},
		{"check", "--redact", "--format", "html", path},
	} {
		code, stdout, stderr := run(t, args...)
		if code == cli.ExitUsage {
			t.Fatalf("%q: exit %d: %s", args, code, stderr)
		}
		if i := strings.Index(stdout, start); i >= 0 {
			t.Errorf("%q: the start of the echoed value shows: %q", args[:len(args)-1], stdout[max(0, i-80):min(len(stdout), i+40)])
		}
	}
	if _, stdout, _ := run(t, "timeline", "--redact", "--color", "never", path); !strings.Contains(stdout, "error -32602 [redacted, 627 chars]") {
		t.Errorf("the redacted timeline does not show the error message as one placeholder:\n%s", stdout)
	}
}

// TestRedactCutQuote: a frame a report quotes is cut at a bound (the evidence at
// 16 KiB, a related frame and the HTML report's raw view at 4 KiB) before it is
// redacted. Where the cut falls inside a kept string (an error message) that
// echoes an argument, only the start of the echo is left, which is no whole value
// of the session's set: the cut string's end is hidden from where a value could
// start (redact.Set.ReplaceCut). fixtures/hostile/redact-cut-quote.jsonl: an error
// that echoes an argument of 9 KB after a prefix (cut at 4 KiB inside it), and an
// answer to no request whose message is the argument three times (cut at 16 KiB
// inside the second).
func TestRedactCutQuote(t *testing.T) {
	path, err := filepath.Abs("../../fixtures/hostile/redact-cut-quote.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const start = "ledger-entry-00000"
	for _, format := range []string{"markdown", "html"} {
		if _, plain, _ := run(t, "check", "--format", format, path); !strings.Contains(plain, start) {
			t.Fatalf("%s without --redact does not show the argument: the test proves nothing", format)
		}
		_, stdout, stderr := run(t, "check", "--redact", "--format", format, path)
		if !strings.Contains(stdout, "+ chars, cut]") {
			t.Errorf("%s --redact: no cut placeholder: %s", format, stderr)
		}
		if i := strings.Index(stdout, start); i >= 0 {
			t.Errorf("%s --redact: the start of the echoed argument shows: %q", format, stdout[max(0, i-80):min(len(stdout), i+40)])
		}
	}
	_, md, _ := run(t, "check", "--redact", "--format", "markdown", path)
	if want := `"message": "[redacted, 8999 chars] / [redacted, 7315+ chars, cut]"`; !strings.Contains(md, want) {
		t.Errorf("the evidence of line 6 does not keep what is no value (the whole echo's placeholder, the separator): want %s in\n%s", want, md)
	}
}

// TestRedactCutEchoEarly: a context line that echoes an argument before the frame
// that carries it is cut (at 512 bytes) against a set that does not hold the
// argument yet; at the session's end, the cut text's end is hidden from where the
// argument starts (redact.Set.ReplaceCut). fixtures/hostile/redact-cut-echo-early.jsonl.
func TestRedactCutEchoEarly(t *testing.T) {
	path, err := filepath.Abs("../../fixtures/hostile/redact-cut-echo-early.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	const start = "CONFIDENTIAL forecast"
	if _, plain, _ := run(t, "timeline", "--color", "never", path); !strings.Contains(plain, start) {
		t.Fatalf("the timeline without --redact does not show the context line: the test proves nothing\n%s", plain)
	}
	_, stdout, _ := run(t, "timeline", "--redact", "--color", "never", path)
	if i := strings.Index(stdout, start); i >= 0 {
		t.Errorf("the start of the echoed argument shows: %q", stdout[max(0, i-80):min(len(stdout), i+40)])
	}
	for _, want := range []string{"worker: logged ahead of the request it serves:", "[redacted, 465+ chars,"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the context line does not keep its own words and hide the echo: want %q in\n%s", want, stdout)
		}
	}
}

// TestRedactCutCases: what a review of the cut redaction found, each a fixture
// under fixtures/hostile (none shows the value's start with --redact, in the
// Markdown and HTML reports and the timeline, and each shows it without):
//   - redact-cut-shadow: a shorter value that starts alike ("ACME-7731", an
//     account) stood before the longer one the cut ends inside, and was taken
//     for the whole echo;
//   - redact-cut-escaped: an error message written with \u escapes (Python's
//     ensure_ascii) and cut was not decoded, so not even its whole echo was found;
//   - redact-quoted-echo: a finding's message quotes the error message clipped
//     at 80 bytes, and the clip was redacted, not the message;
//
// and redact-cut-log-dates: a cut log line that only starts like a value (the
// same date) is shown, not hidden from its first byte.
func TestRedactCutCases(t *testing.T) {
	for _, c := range []struct{ fixture, hidden string }{
		{"redact-cut-shadow.jsonl", "Cayman account"},
		{"redact-cut-escaped.jsonl", "Cayman account"},
		{"redact-quoted-echo.jsonl", "CONFIDENTIAL forecast"},
		{"redact-secret-in-value.jsonl", "Jane Roe"},
	} {
		path, err := filepath.Abs("../../fixtures/hostile/" + c.fixture)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"check", "--format", "markdown", path},
			{"check", "--format", "html", path},
			{"timeline", "--color", "never", path},
		} {
			if _, plain, _ := run(t, args...); !strings.Contains(plain, c.hidden) && args[0] == "check" && args[2] == "markdown" {
				t.Fatalf("%s: the Markdown report without --redact does not show %q: the case proves nothing", c.fixture, c.hidden)
			}
			redacted := append([]string{args[0], "--redact"}, args[1:]...)
			if _, stdout, _ := run(t, redacted...); strings.Contains(stdout, c.hidden) {
				i := strings.Index(stdout, c.hidden)
				t.Errorf("%s: %q shows %q: %q", c.fixture, redacted[:len(redacted)-1], c.hidden, stdout[max(0, i-80):min(len(stdout), i+40)])
			}
		}
	}
	path, err := filepath.Abs("../../fixtures/hostile/redact-cut-log-dates.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if _, stdout, _ := run(t, "timeline", "--redact", "--color", "never", path); !strings.Contains(stdout, "INFO server started") {
		t.Errorf("a cut log line that only starts with a value's date is hidden:\n%s", stdout)
	}
}
