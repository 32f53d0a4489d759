package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

// TestMockCommand: mcpsleuth mock serves the seed's session on stdio,
// records it with --out, and check finds the seed's bug in the recording.
func TestMockCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mock.jsonl")
	stdin := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"engineer","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}, "\n") + "\n"
	var stdout, stderr bytes.Buffer
	env := cli.Env{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	code := cli.Run(env, []string{"mcpsleuth", "mock", "--out", out, "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl#1"})
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"`) ||
		!strings.HasPrefix(lines[1], `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"get_invoice"`) ||
		lines[2] != `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}` {
		t.Fatalf("stdout:\n%s", stdout.String())
	}
	if want := "serving invoices 1.9.3, revision 2025-06-18, 4 captured requests, match policy params on stdio"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
	code, report, _ := run(t, "check", "--format", "lines", out)
	if code != 1 || !strings.Contains(report, "mock.jsonl:6: error MCP2001 server sent notifications/resources/list_changed but its initialize result (line 2) declared resources: {} (no listChanged)") {
		t.Errorf("check of the mock's session: exit %d\n%s", code, report)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	code, _, errs := run(t, "mock", "--match", "nearest", "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl")
	if code != 2 || !strings.Contains(errs, "--match must be params, method or order") {
		t.Errorf("a bad --match: exit %d, %q", code, errs)
	}
	code, _, errs = run(t, "mock", "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl#3")
	if code != 2 || !strings.Contains(errs, "has 1 session, not a session 3") {
		t.Errorf("a session the capture lacks: exit %d, %q", code, errs)
	}
}
