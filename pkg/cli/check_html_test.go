package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
)

// TestCheckHTMLKeepsBoundedFrames: check --format html holds every session until
// it writes the page, so it asks the analysis to keep at most
// report.HTMLMaxRunFrames frames over the run; past them, the page says so. (On
// 512 MiB of the healthy profile, the HTML report took 2.9 GB before.)
func TestCheckHTMLKeepsBoundedFrames(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	const pings = report.HTMLMaxRunFrames/2 + 50 // frames 4 on: 100 past the cap
	for i := 1; i <= pings; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "pings.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "check", "--format", "html", "--fail-on", "never", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := fmt.Sprintf("103 frames of the session, from line %d on, were not kept by the analysis (an HTML report keeps at most %d frames over the whole run)", report.HTMLMaxRunFrames+1, report.HTMLMaxRunFrames)
	if !strings.Contains(stdout, want) {
		t.Errorf("the page does not say %q", want)
	}
}
