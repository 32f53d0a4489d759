//go:build linux

package cli

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/creack/pty"
)

// The MCP2001 finding of invoices-undeclared-list-changed.jsonl, as a row of the
// text report's table and as a line of the lines format.
var (
	mcp2001Row  = regexp.MustCompile(`│ 8 +│ MCP2001 +│ error +│ server sent notifications/resources/list_changed but its`)
	mcp2001Line = regexp.MustCompile(`(?m)^\S*invoices-undeclared-list-changed\.jsonl:8: error MCP2001 server sent notifications/resources/list_changed but its initialize result \(line 2\) declared resources: \{\} \(no listChanged\)`)
)

// TestCheckDefaultFormatFollowsStdout (issue 28): check without --format writes
// the text report's tables when stdout is a terminal (a pseudo-terminal here, as
// the process sees it: processEnv), and one finding a line when stdout is a pipe.
func TestCheckDefaultFormatFollowsStdout(t *testing.T) {
	capture, err := filepath.Abs("../../fixtures/seeds/invoices-undeclared-list-changed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("NO_COLOR", "1")
	t.Setenv("COLUMNS", "")
	stdin, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()

	t.Run("terminal", func(t *testing.T) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal here: %v", err)
		}
		defer ptmx.Close()
		if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
			t.Fatal(err)
		}
		shown := make(chan string)
		go func() {
			b, _ := io.ReadAll(ptmx) // ends with EIO once the tty is closed
			shown <- string(b)
		}()
		env := processEnv(stdin, tty, stderr)
		if !env.StdoutIsTerminal {
			t.Fatal("a pseudo-terminal as stdout is not taken for a terminal")
		}
		code := Run(env, []string{"mcpsleuth", "check", capture})
		tty.Close()
		screen := <-shown
		if code != ExitFindings {
			t.Fatalf("exit %d, want %d: %s", code, ExitFindings, screen)
		}
		if !mcp2001Row.MatchString(screen) {
			t.Errorf("the terminal did not get the findings table:\n%s", screen)
		}
		if mcp2001Line.MatchString(screen) {
			t.Errorf("the terminal got one finding a line:\n%s", screen)
		}
	})

	t.Run("pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got := make(chan string)
		go func() {
			b, _ := io.ReadAll(r)
			got <- string(b)
		}()
		code := Run(processEnv(stdin, w, stderr), []string{"mcpsleuth", "check", capture})
		w.Close()
		piped := <-got
		if code != ExitFindings {
			t.Fatalf("exit %d, want %d: %s", code, ExitFindings, piped)
		}
		if !mcp2001Line.MatchString(piped) {
			t.Errorf("the pipe did not get one finding a line:\n%s", piped)
		}
		if mcp2001Row.MatchString(piped) {
			t.Errorf("the pipe got the findings table:\n%s", piped)
		}
	})
}
