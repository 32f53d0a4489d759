//go:build linux

package cli_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

// progressLine is what the bar shows once the scan is done: files done of all,
// bytes read of all, a speed.
var progressLine = regexp.MustCompile(`(\d+)/(\d+) files .*\d KB / [\d.]+ KB .*[\d.]+ MB/s .*done`)

// runWithStderr runs scan with stderr on the given file and returns stdout.
func runWithStderr(t *testing.T, stderr *os.File, args ...string) (int, string) {
	t.Helper()
	var stdout bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: stderr, Getenv: func(string) string { return "" }}
	code := cli.Run(env, append([]string{"mcpsleuth"}, args...))
	return code, stdout.String()
}

func progressArchive(t *testing.T) string {
	dir := t.TempDir()
	for i, name := range []string{"a.jsonl", "b.jsonl", "c/d.jsonl", "c/e.log"} {
		src := []string{"real/ts-everything-healthy.jsonl", "real/ts-client-go-server-sampling-undeclared.jsonl",
			"real/ts-everything-cancel.jsonl", "real/gosdk-log/ts-client-go-server-sampling-undeclared.log"}[i]
		write(t, filepath.Join(dir, name), fixture(t, src))
	}
	return dir
}

// TestScanProgressBarOnATerminal: with stderr on a pseudo-terminal the bar is
// drawn (files done of all, bytes, speed), and the report on stdout has none of it;
// --quiet draws nothing.
func TestScanProgressBarOnATerminal(t *testing.T) {
	dir := progressArchive(t)
	for _, quiet := range []bool{false, true} {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal here: %v", err)
		}
		if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
			t.Fatal(err)
		}
		drawn := make(chan string)
		go func() {
			b, _ := io.ReadAll(ptmx) // ends with EIO once the tty is closed
			drawn <- string(b)
		}()
		args := []string{"scan", "--format", "jsonl", "--fail-on", "never", "--jobs", "2"}
		if quiet {
			args = append(args, "--quiet")
		}
		args = append(args, dir)
		code, stdout := runWithStderr(t, tty, args...)
		tty.Close()
		screen := <-drawn
		ptmx.Close()
		if code != 0 {
			t.Fatalf("exit %d: %s", code, screen)
		}
		if strings.Contains(stdout, "files") || strings.Contains(stdout, "\x1b") {
			t.Errorf("the progress bar reached stdout: %q", stdout)
		}
		m := progressLine.FindStringSubmatch(screen)
		switch {
		case quiet && screen != "":
			t.Errorf("--quiet drew on the terminal: %q", screen)
		case !quiet && m == nil:
			t.Errorf("no progress bar on the terminal: %q", screen)
		case !quiet && (m[1] != "4" || m[2] != "4"):
			t.Errorf("the bar ends at %s/%s files, want 4/4: %q", m[1], m[2], screen)
		}
	}
}

// TestScanNoProgressBarWhenPiped: stderr on a pipe gets no bar, no escape.
func TestScanNoProgressBarWhenPiped(t *testing.T) {
	dir := progressArchive(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	code, stdout := runWithStderr(t, w, "scan", "--format", "jsonl", "--fail-on", "never", dir)
	w.Close()
	stderr := <-got
	if code != 0 || stdout == "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	if stderr != "" {
		t.Errorf("piped stderr got %q, want nothing", stderr)
	}
}
