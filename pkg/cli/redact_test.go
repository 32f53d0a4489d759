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
