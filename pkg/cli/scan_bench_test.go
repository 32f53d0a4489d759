//go:build unix

package cli_test

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkScan scans an archive of 300 real captures (20 copies of 15 fixtures)
// with one and with two jobs; task bench-scan times the same on bigger files.
func BenchmarkScan(b *testing.B) {
	dir := b.TempDir()
	sources := []string{
		"real/ts-client-go-server-sampling-undeclared.jsonl", "real/bare/ts-client-go-server-sampling-undeclared.jsonl",
		"real/gosdk-log/ts-client-go-server-sampling-undeclared.log", "real/http/http-ts-client-go-server-sampling-undeclared.har",
		"real/http/http-ts-everything-healthy.har", "real/ts-everything-cancel.jsonl", "real/ts-everything-healthy.jsonl",
		"real/ts-everything-killed-midcall.jsonl", "real/ts-client-mcpgo-server-tools-silent-change.jsonl",
		"real/ts-client-mcpgo053-subscribe-not-implemented.jsonl", "real/ts-client-mcpgo-server-tools-change-undeclared.jsonl",
		"real/raw-everything-batch-2025-06-18.jsonl", "real/raw-go-server-batch-2025-03-26.jsonl",
		"real/go-client-go-server-2026-07-28-discover.jsonl", "formats/claude-mcp-log-interleaved.log",
	}
	var bytes int64
	for i := range 20 {
		for j, src := range sources {
			data := fixture(b, src)
			bytes += int64(len(data))
			write(b, filepath.Join(dir, fmt.Sprintf("%02d", i), fmt.Sprintf("%02d-%s", j, filepath.Base(src))), data)
		}
	}
	for _, jobs := range []string{"1", "2"} {
		b.Run("jobs="+jobs, func(b *testing.B) {
			b.SetBytes(bytes)
			for b.Loop() {
				if r := runScanCLI(b, nil, "scan", "--quiet", "--fail-on", "never", "--format", "jsonl", "--jobs", jobs, dir); r.code != 0 {
					b.Fatalf("exit %d: %s", r.code, r.stderr)
				}
			}
		})
	}
}
