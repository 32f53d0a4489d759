package cli_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/cli"
)

// TestHandshakeReportsReadErrors: a capture cut short inside its gzip stream
// after the handshake shows the handshake and exits 2 naming the read error;
// cut before it, the error is named instead of "nothing to negotiate". Before,
// the handshake command ignored read errors: exit 0 on a broken input.
func TestHandshakeReportsReadErrors(t *testing.T) {
	capture, err := os.ReadFile("../../fixtures/hostile/redact-echoed-secret.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(capture)
	w.Close()
	dir := t.TempDir()
	for name, c := range map[string]struct {
		cut    int
		stdout string
	}{
		"after.jsonl.gz":  {gz.Len() - 20, "Session 1"},
		"before.jsonl.gz": {30, ""},
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, gz.Bytes()[:c.cut], 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(t, "handshake", path)
		if code != cli.ExitUsage || !strings.Contains(stderr, "unexpected EOF") || strings.Contains(stderr, "nothing to negotiate") {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
		if c.stdout != "" && !strings.Contains(stdout, c.stdout) {
			t.Errorf("%s: stdout lacks %q:\n%s", name, c.stdout, stdout)
		}
	}
}
