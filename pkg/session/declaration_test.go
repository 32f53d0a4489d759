package session_test

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestDeclarationWording: the one place that says whether a side declared a gate
// and how a message puts it.
func TestDeclarationWording(t *testing.T) {
	c, _ := handshake(t,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"resources":{}},"serverInfo":{"name":"s","version":"1"}}}`)
	listChanged := spec.Gate{Side: spec.Server, Path: "resources.listChanged"}
	sampling := spec.Gate{Side: spec.Client, Path: "sampling"}
	for _, tc := range []struct {
		gate                      spec.Gate
		declared                  bool
		lacking, said, caps, note string
	}{
		{listChanged, false, "the server declared resources without listChanged",
			"its initialize result (line 2) declared resources: {} (no listChanged)", "", "initialize result (line 2): resources: {}"},
		{sampling, false, "the client declared no sampling",
			"its initialize request (line 1) declared no sampling", `{"roots":{}}`, "initialize request (line 1): no sampling"},
		{spec.Gate{Side: spec.Client, Path: "roots"}, true, "", "", "", ""},
	} {
		declared, known := c.DeclaresGate(tc.gate)
		if !known || declared != tc.declared {
			t.Errorf("%s: declared %v known %v", tc.gate, declared, known)
		}
		if tc.declared {
			continue
		}
		if got := c.Lacking(tc.gate); got != tc.lacking {
			t.Errorf("%s: Lacking = %q, want %q", tc.gate, got, tc.lacking)
		}
		if got, caps := c.Declaration(tc.gate, "its "+c.DeclaredIn(tc.gate.Side)); got != tc.said || string(caps) != tc.caps {
			t.Errorf("%s: Declaration = %q, %s; want %q, %s", tc.gate, got, caps, tc.said, tc.caps)
		}
		if got := c.DeclarationNote(tc.gate.Side, tc.gate.Path); got != tc.note {
			t.Errorf("%s: DeclarationNote = %q, want %q", tc.gate, got, tc.note)
		}
	}
	if declared, known := c.DeclaresCapability(spec.Server, "resources.subscribe"); declared || !known {
		t.Errorf("resources.subscribe: declared %v known %v", declared, known)
	}
}
