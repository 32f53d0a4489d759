package rule_test

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// TestFingerprintIgnoresWhatChangesBetweenRuns: a finding's fingerprint does not
// depend on its line, ids, data or numbers, and does depend on the rule, the
// implementations, the method and the names the message quotes.
func TestFingerprintIgnoresWhatChangesBetweenRuns(t *testing.T) {
	finding := func(line int, id, tool, data string) rule.Finding {
		msg := rule.Sprintf("tools/call id=%s of %s (line %d): arguments %s violate its inputSchema",
			rule.Quote(rule.ValueID, id), rule.Quote(rule.ValueName, tool), line, rule.Quote(rule.ValueData, data))
		return rule.Finding{Rule: "MCP4003", Method: "tools/call", Line: line, ID: id, Message: msg.Text, Values: msg.Values}
	}
	base := rule.Fingerprint(finding(12, "4", "get_invoice", "INV-1"), "client-b", "invoices")
	for name, fp := range map[string]string{
		"another line, id and data": rule.Fingerprint(finding(907, "88", "get_invoice", "INV-2025-77"), "client-b", "invoices"),
	} {
		if fp != base {
			t.Errorf("%s: fingerprint %s, want %s", name, fp, base)
		}
	}
	for name, fp := range map[string]string{
		"another tool":   rule.Fingerprint(finding(12, "4", "search_invoices", "INV-1"), "client-b", "invoices"),
		"another client": rule.Fingerprint(finding(12, "4", "get_invoice", "INV-1"), "client-c", "invoices"),
		"another server": rule.Fingerprint(finding(12, "4", "get_invoice", "INV-1"), "client-b", "billing"),
		"another rule": func() string {
			f := finding(12, "4", "get_invoice", "INV-1")
			f.Rule = "MCP4001"
			return rule.Fingerprint(f, "client-b", "invoices")
		}(),
	} {
		if fp == base {
			t.Errorf("%s: same fingerprint %s as the original finding", name, fp)
		}
	}
	if len(base) != 32 {
		t.Errorf("fingerprint %q: want 32 hex digits", base)
	}
}
