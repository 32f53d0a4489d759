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
// it writes the page, so it asks the analysis to keep at most what the page shows
// of a session (20,000 frames) and report.HTMLMaxRunFrames frames over the run;
// past them, the page says so. (On 512 MiB of the healthy profile, the HTML
// report took 2.9 GB before.) Three sessions: the first past the session's cap,
// the third past the run's.
func TestCheckHTMLKeepsBoundedFrames(t *testing.T) {
	const (
		sessionCap = 20_000
		first      = 3 + 2*10_050 // frames of the first session: 103 past its cap
		others     = 3 + 2*9_000  // of the second and third
	)
	var b strings.Builder
	session := func(pings int) {
		b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
		b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
		b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
		for i := 1; i <= pings; i++ {
			fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i, i)
		}
	}
	session((first - 3) / 2)
	session((others - 3) / 2)
	session((others - 3) / 2)
	path := filepath.Join(t.TempDir(), "pings.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "check", "--format", "html", "--fail-on", "never", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	keptThird := report.HTMLMaxRunFrames - sessionCap - others
	for _, want := range []string{
		fmt.Sprintf("%d frames of the session, from line %d on, were not kept by the analysis (the cap on frames kept per session)", first-sessionCap, sessionCap+1),
		fmt.Sprintf("%d frames of the session, from line %d on, were not kept by the analysis (an HTML report keeps at most %d frames over the whole run)", others-keptThird, first+others+keptThird+1, report.HTMLMaxRunFrames),
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	if strings.Contains(stdout, "more frames of the session are not in this timeline") {
		t.Error("the analysis kept frames of a session that the page does not show")
	}
}
