package report_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/report"
)

// TestCodeQualityIssues: one issue per finding and per input not read, each
// with a fingerprint of its own (GitLab keys issues by it), the Code Climate
// severities, and the finding's line.
func TestCodeQualityIssues(t *testing.T) {
	rep := catalogueReport(t, "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl")
	rep.Errors = []report.InputError{
		{Input: "missing.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: no such file or directory"},
		{Input: "pipe.jsonl", Kind: report.ErrorSkipped, Message: "skipped: a named pipe (FIFO)"},
	}
	var b bytes.Buffer
	if err := report.WriteCodeQuality(&b, rep, ""); err != nil {
		t.Fatal(err)
	}
	var issues []struct {
		Description, CheckName, Fingerprint, Severity string
		Location                                      struct {
			Path  string
			Lines struct{ Begin int }
		}
	}
	if err := json.Unmarshal(bytes.ReplaceAll(b.Bytes(), []byte(`"check_name"`), []byte(`"checkName"`)), &issues); err != nil {
		t.Fatal(err)
	}
	findings := 0
	for _, s := range rep.Sessions {
		findings += len(s.Findings)
	}
	if len(issues) != findings+1 { // the skipped pipe is named, not a failure
		t.Fatalf("%d issues for %d findings and 1 unread input:\n%s", len(issues), findings, b.String())
	}
	seen := map[string]bool{}
	for _, is := range issues {
		if seen[is.Fingerprint] || len(is.Fingerprint) != 32 {
			t.Errorf("fingerprint %q repeated or malformed", is.Fingerprint)
		}
		seen[is.Fingerprint] = true
	}
	first := issues[0]
	if first.CheckName != "MCP2001 undeclared-notification" || first.Severity != "major" || first.Location.Lines.Begin != 8 ||
		first.Location.Path != "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl" {
		t.Errorf("first issue: %+v", first)
	}
	last := issues[len(issues)-1]
	if last.CheckName != "mcpsleuth unreadable" || last.Location.Path != "missing.jsonl" || last.Description != "cannot read: no such file or directory" {
		t.Errorf("the unread input: %+v", last)
	}
}
