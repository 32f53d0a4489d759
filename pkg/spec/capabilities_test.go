package spec

import (
	"strings"
	"testing"
)

func TestEmbeddedCapabilityTableParses(t *testing.T) {
	caps, err := parseCapabilityTable(capabilitiesTSV)
	if err != nil {
		t.Fatalf("data/capabilities.tsv: %v", err)
	}
	if want := len(strings.Split(strings.TrimSpace(capabilitiesTSV), "\n")) - 1; len(caps) != want {
		t.Errorf("data/capabilities.tsv: %d rows, want %d", len(caps), want)
	}
	if got := len(Capabilities()); got != len(caps) {
		t.Errorf("Capabilities() has %d rows, want %d", got, len(caps))
	}
}

func TestParseCapabilityTableRejectsMalformedRows(t *testing.T) {
	const header = "capability\ttype\trevisions\tgates\tnote\n"
	tests := []struct {
		name string
		data string
	}{
		{"empty", ""},
		{"wrong header", "capability\ttype\trevisions\tgates\n"},
		{"too few fields", header + "client.roots\tobject\t2024-11-05\troots/list\n"},
		{"no side", header + "roots\tobject\t2024-11-05\troots/list\t\n"},
		{"unknown side", header + "peer.roots\tobject\t2024-11-05\troots/list\t\n"},
		{"empty path", header + "client.\tobject\t2024-11-05\troots/list\t\n"},
		{"empty type", header + "client.roots\t\t2024-11-05\troots/list\t\n"},
		{"unknown revision", header + "client.roots\tobject\t2024-11-5\troots/list\t\n"},
		{"duplicate", header + "client.roots\tobject\t2024-11-05\t\t\nclient.roots\tobject\tdraft\t\t\n"},
	}
	for _, tt := range tests {
		if got, err := parseCapabilityTable(tt.data); err == nil {
			t.Errorf("%s: parseCapabilityTable returned %d rows and no error", tt.name, len(got))
		}
	}
}

func TestCapabilityIn(t *testing.T) {
	tests := []struct {
		side Side
		path string
		rev  Revision
		want bool
	}{
		{Client, "elicitation", Rev20250326, false},
		{Client, "elicitation", Rev20250618, true},
		{Client, "elicitation.url", Rev20250618, false},
		{Client, "elicitation.url", Rev20251125, true},
		{Client, "roots.listChanged", Rev20251125, true},
		{Client, "roots.listChanged", Rev20260728, false},
		{Client, "roots", Rev20260728, true},
		{Server, "completions", Rev20241105, false},
		{Server, "completions", Rev20250326, true},
		{Server, "tasks.requests.tools.call", Rev20251125, true},
		{Server, "tasks", Rev20260728, false},
		{Server, "extensions", RevDraft, true},
		{Client, "extensions", Rev20251125, false},
		{Server, "sampling", Rev20250618, false}, // a client capability
		{Client, "sampling", "2099-01-01", false},
		{0, "sampling", Rev20250618, false},
	}
	for _, tt := range tests {
		if got := CapabilityIn(tt.side, tt.path, tt.rev); got != tt.want {
			t.Errorf("CapabilityIn(%v, %q, %q) = %v, want %v", tt.side, tt.path, tt.rev, got, tt.want)
		}
	}
}

func TestLookupCapability(t *testing.T) {
	c, ok := LookupCapability(Server, "resources.subscribe")
	if !ok || c.Type != "boolean" || c.String() != "server.resources.subscribe" || !c.In(Rev20241105) {
		t.Errorf("LookupCapability(server, resources.subscribe) = %+v, %v", c, ok)
	}
	c.Revisions[0] = "mutated"
	if again, _ := LookupCapability(Server, "resources.subscribe"); again.Revisions[0] != Rev20241105 {
		t.Error("modifying the result of LookupCapability changed the table")
	}
	if c, ok := LookupCapability(Client, "resources"); ok {
		t.Errorf("LookupCapability(client, resources) = %+v, want not found", c)
	}
}
