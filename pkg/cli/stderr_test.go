package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

// run runs the program in-process and returns its exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, StdinIsTerminal: true}
	code := cli.Run(env, append([]string{"mcpsleuth"}, args...))
	return code, stdout.String(), stderr.String()
}

// rawOnTerminal finds what must not reach a terminal raw: a control character
// other than newline and tab, a C1 control, a format character (bidi, zero-width,
// tags), a line or paragraph separator, or invalid UTF-8.
func rawOnTerminal(s string) (int, rune, bool) {
	for i, r := range s {
		switch {
		case r == '\n' || r == '\t':
		case r == unicode.ReplacementChar && !strings.HasPrefix(s[i:], "\ufffd"):
			return i, r, true
		case unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point, unicode.Noncharacter_Code_Point):
			return i, r, true
		}
	}
	return 0, 0, false
}

// TestStderrIsEscaped (issue 11 item 10): file names holding an OSC title
// sequence, ESC[2J, BEL, C1 and bidi characters, and captured text quoted by a
// HAR structure error, reach stderr escaped, in every command that names an
// input; the names stay recognisable (\x1b]0;...). Before, "cannot read" lines,
// read errors of files found by a directory walk and document structure errors
// were printed raw.
func TestStderrIsEscaped(t *testing.T) {
	dir := t.TempDir()
	hostileName := "x\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e.jsonl"
	missing := filepath.Join(dir, hostileName)
	walked := filepath.Join(dir, "walked")
	if err := os.Mkdir(walked, 0o755); err != nil {
		t.Fatal(err)
	}
	// gzip magic and then garbage: reading it fails, naming the file.
	if err := os.WriteFile(filepath.Join(walked, "\x1b[2J\u2066cut.jsonl.gz"), []byte("\x1f\x8b\x08\x00garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	har, err := filepath.Abs("../../fixtures/hostile/har-structure-c1-bidi.har")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", missing}, `x\x1b]0;pwned\x07\x1b[2J\u009b31m\u202e.jsonl: cannot read`},
		{[]string{"check", "--format", "json", missing}, `cannot read`},
		{[]string{"check", walked}, `\x1b[2J\u2066cut.jsonl.gz`},
		{[]string{"check", har}, `found "\u009b2J\u202e\u2066 evil \u009d0;title\u009c"`},
		{[]string{"timeline", missing}, `\x1b]0;pwned\x07`},
		{[]string{"timeline", har}, `\u202e`},
		{[]string{"handshake", missing}, `\x1b]0;pwned\x07`},
		{[]string{"validate-args", missing, "t\x1b[2Jool", "{}"}, `\x1b]0;pwned\x07`},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != cli.ExitUsage {
			t.Errorf("%q: exit %d, want %d", c.args, code, cli.ExitUsage)
		}
		if i, r, found := rawOnTerminal(stderr); found {
			t.Errorf("%q: raw U+%04X on stderr at byte %d: %q", c.args, r, i, stderr)
		}
		// check on a pipe writes the lines format, which names these inputs too.
		if i, r, found := rawOnTerminal(stdout); found {
			t.Errorf("%q: raw U+%04X on stdout at byte %d: %q", c.args, r, i, stdout)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%q: stderr lacks %s:\n%s", c.args, c.want, stderr)
		}
	}
}

// fullDisk is a stdout that refuses every write, as /dev/full does.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestStdoutWriteErrorSaidOnce: a failed write to stdout is one line, the same
// in every command, exit 2 (issue 29: "mcpsleuth: mcpsleuth: writing the report:
// write /dev/stdout: ..." in some commands, other words in others).
func TestStdoutWriteErrorSaidOnce(t *testing.T) {
	capture := filepath.Join("..", "..", "fixtures", "seeds", "invoices-undeclared-list-changed.jsonl")
	for _, args := range [][]string{
		{"check", capture},
		{"check", "--format", "json", capture},
		{"check", "--format", "html", capture},
		{"timeline", capture},
		{"handshake", capture},
		{"scan", capture},
		{"diff", capture, capture},
		{"rules"},
		{"explain", "MCP2001"},
		{"config"},
	} {
		var stderr bytes.Buffer
		env := cli.Env{Stdin: strings.NewReader(""), Stdout: fullDisk{}, Stderr: &stderr, Getenv: func(string) string { return "" }, StdinIsTerminal: true}
		code := cli.Run(env, append([]string{"mcpsleuth"}, args...))
		if want := "mcpsleuth: stdout: cannot write: no space left on device\n"; code != 2 || stderr.String() != want {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", args, code, stderr.String(), want)
		}
	}
}
