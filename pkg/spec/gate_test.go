package spec

import "testing"

func TestGate(t *testing.T) {
	tests := []struct {
		gate    Gate
		str     string
		none    bool
		boolean bool
	}{
		{Gate{}, "none", true, false},
		{Gate{Side: Server, Path: "resources.listChanged"}, "server.resources.listChanged", false, true},
		{Gate{Side: Server, Path: "resources.subscribe"}, "server.resources.subscribe", false, true},
		{Gate{Side: Server, Path: "resources"}, "server.resources", false, false},
		{Gate{Side: Server, Path: "tools.listChanged"}, "server.tools.listChanged", false, true},
		{Gate{Side: Server, Path: "prompts.listChanged"}, "server.prompts.listChanged", false, true},
		{Gate{Side: Client, Path: "roots.listChanged"}, "client.roots.listChanged", false, true},
		{Gate{Side: Client, Path: "sampling"}, "client.sampling", false, false},
		{Gate{Side: Client, Path: "elicitation.url"}, "client.elicitation.url", false, false},
		{Gate{Side: Server, Path: "tasks.requests.tools.call"}, "server.tasks.requests.tools.call", false, false},
		{Gate{Extension: TasksExtension}, "ext:io.modelcontextprotocol/tasks", false, false},
		{Gate{Side: Client, Path: "noSuch.listChanged"}, "client.noSuch.listChanged", false, false},
	}
	for _, tt := range tests {
		if got := tt.gate.String(); got != tt.str {
			t.Errorf("%#v.String() = %q, want %q", tt.gate, got, tt.str)
		}
		if got := tt.gate.None(); got != tt.none {
			t.Errorf("%v.None() = %v, want %v", tt.gate, got, tt.none)
		}
		if got := tt.gate.Boolean(); got != tt.boolean {
			t.Errorf("%v.Boolean() = %v, want %v", tt.gate, got, tt.boolean)
		}
	}
}

func TestParseGateRoundTrip(t *testing.T) {
	for _, s := range []string{"none", "server.resources.listChanged", "client.sampling", "ext:io.modelcontextprotocol/tasks"} {
		g, err := parseGate(s)
		if err != nil {
			t.Errorf("parseGate(%q): %v", s, err)
			continue
		}
		if g.String() != s {
			t.Errorf("parseGate(%q).String() = %q", s, g.String())
		}
	}
	for _, s := range []string{"", "None", "ext:", "peer.tools", "server.", "server", "client..x", "server.tools."} {
		if g, err := parseGate(s); err == nil {
			t.Errorf("parseGate(%q) = %v, want an error", s, g)
		}
	}
}
