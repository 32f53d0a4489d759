package cli_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

// FuzzReportsOnStdin: whatever arrives on stdin, every report format ends with
// exit 0, 1 or 2 (never a crash); a JSON report is JSON; no text a terminal
// shows (the text report, lines, stderr) carries a raw control, format or
// invisible character.
func FuzzReportsOnStdin(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n"), uint8(0))
	f.Add([]byte(`{"ts":"2026-01-01T00:00:00Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}}`+"\n"), uint8(1))
	f.Add([]byte("read: {\"jsonrpc\":\"2.0\"}\nwrite: \x1b]0;title\x07\n"), uint8(2))
	f.Add([]byte(`{"log":{"entries":[{"request":{"method":"POST","url":"http://x/mcp","postData":{"text":"{}"}}}]}}`), uint8(3))
	formats := []string{"text", "lines", "json", "jsonl", "markdown", "sarif", "junit", "codequality"}
	f.Fuzz(func(t *testing.T, input []byte, which uint8) {
		format := formats[int(which)%len(formats)]
		var stdout, stderr bytes.Buffer
		env := cli.Env{Stdin: bytes.NewReader(input), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
		done := make(chan int, 1)
		go func() { done <- cli.Run(env, []string{"mcpsleuth", "check", "--format", format, "-"}) }()
		var code int
		select {
		case code = <-done:
		case <-time.After(20 * time.Second): // a hang guard: an input is read in milliseconds
			t.Fatalf("%s: check of %d bytes did not end: %.300q", format, len(input), input)
		}
		if code < 0 || code > 2 {
			t.Fatalf("%s: exit %d", format, code)
		}
		if format == "json" && code != 2 && !json.Valid(stdout.Bytes()) {
			t.Fatalf("json: not JSON: %.300q", stdout.String())
		}
		shown := stderr.String()
		if format == "text" || format == "lines" {
			shown += stdout.String()
		}
		if i, r, found := rawOnTerminal(shown); found {
			t.Fatalf("%s: raw %U at %d: %.200q", format, r, i, shown[max(0, i-40):])
		}
		if code == 2 && !strings.HasPrefix(stderr.String(), "mcpsleuth: ") {
			t.Fatalf("%s: exit 2 without a one-line error: %q", format, stderr.String())
		}
	})
}
