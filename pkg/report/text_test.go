package report_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// buriedCapture is a session whose server answers eight requests with errors
// (eight info findings of the golden rules) before one list_changed it did not
// declare (an error): the error must not be buried under them.
func buriedCapture(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"file:///%d"}}`+"\n", i, i)
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32002,"message":"Resource not found"}}`+"\n", i)
	}
	b.WriteString(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}` + "\n")
	path := filepath.Join(t.TempDir(), "buried.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestTextErrorsFirst: the text view lists a session's errors before its info
// findings, and at most MaxInfo info rows, counting the rest; 0 lists them all.
func TestTextErrorsFirst(t *testing.T) {
	res, _ := analyseFile(t, buriedCapture(t), goldenRules, trace.Options{})
	rep := report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: goldenRules})
	render := func(maxInfo int) string {
		var b bytes.Buffer
		if err := report.WriteText(&b, rep, report.TextOptions{Width: 120, MaxInfo: maxInfo}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	limited := render(3)
	errorAt, infoAt := strings.Index(limited, "MCP9001"), strings.Index(limited, "MCP9003")
	if errorAt < 0 || infoAt < 0 || errorAt > infoAt {
		t.Fatalf("the error (MCP9001, line 28) should come before the info findings:\n%s", limited)
	}
	if n := strings.Count(limited, "MCP9003"); n != 3 {
		t.Errorf("%d info rows listed, want 3:\n%s", n, limited)
	}
	if !strings.Contains(limited, "and 5 more info findings not listed (--max-info 0 lists them all)") {
		t.Errorf("the info findings left out are not counted:\n%s", limited)
	}
	if !strings.Contains(limited, "1 session, 1 error, 0 warnings, 8 info findings") {
		t.Errorf("the summary must count every finding:\n%s", limited)
	}
	all := render(0)
	if n := strings.Count(all, "MCP9003"); n != 8 || strings.Contains(all, "not listed") {
		t.Errorf("MaxInfo 0 lists %d info rows, want all 8 and no count:\n%s", n, all)
	}
}
