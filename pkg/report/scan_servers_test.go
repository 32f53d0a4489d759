package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// TestScanSummaryGroupsClientLogsByServer: Claude Code's MCP logs laid out as its
// cache folder holds them (<project>/mcp-logs-<server>/<time>.jsonl) are added up
// per server: logs, connections made and failed, the failures by cause, the server
// and revision the handshakes agreed.
func TestScanSummaryGroupsClientLogsByServer(t *testing.T) {
	fixtures := filepath.Join("..", "..", "fixtures", "formats")
	tree := t.TempDir()
	for _, f := range []struct{ fixture, server string }{
		{"lossy-claude-code-stdio.jsonl", "shop"},
		{"lossy-claude-code-http.jsonl", "shop"},
		{"claude-code-sse-config.jsonl", "legacy-sse"},
		{"claude-code-sse-config.jsonl", "legacy-sse"},
	} {
		dir := filepath.Join(tree, "-home-dev-shop", "mcp-logs-"+f.server)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(fixtures, f.fixture))
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := os.ReadDir(dir)
		if err := os.WriteFile(filepath.Join(dir, string(rune('a'+len(entries)))+".jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := report.NewScanSummary()
	err := filepath.WalkDir(tree, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		res, err := driver.Run(path, f, rules.All(), driver.RunOptions{})
		if err != nil {
			return err
		}
		s.AddFile(res, nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.WriteScanSummary(&b, s, report.ScanTextOptions{Width: 200}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Connections client logs tell of, by server",
		"│ legacy-sse │ 2    │ 0         │ 2      │ client configured for sse ×2 │",
		"│ shop       │ 2    │ 2         │ 0      │                              │ wild2-mcp-framework-server 0.1.0 2025-11-25 │",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}
