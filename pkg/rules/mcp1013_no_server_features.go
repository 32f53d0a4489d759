package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// NoServerFeatures reports a server that declares none of tools, resources, prompts.
var NoServerFeatures = &rule.Rule{
	ID:       "MCP1013",
	Name:     "no-server-features",
	Severity: rule.SeverityWarning,
	Title:    "The server declares none of tools, resources, prompts",
	Anchor:   "the initialize (or server/discover) result",
	Hint:     `declare the base capability of everything the server implements: "capabilities": {"tools": {}} is the minimum for a server with tools; an empty object means "supported, no sub-features"`,
	Doc: rule.Doc{
		Sees: "An initialize result (or a 2026-07-28 server/discover result) whose capabilities object has none of the keys tools, resources and prompts, or no capabilities object at all. Declaring only logging, completions or experimental does not count.",
		Why:  `Capabilities are a permission slip, not a description. A client that follows the spec reads "capabilities": {} as "this server has no tools, resources or prompts" and never sends tools/list, resources/list or prompts/list: the handlers are registered and work, yet nothing ever calls them and the model has no tools. Every layer reports success (connected, handshake done, no error), and lenient clients and inspectors that list anyway do find the tools, so the server seems to work in one place and not in another and people go looking at the client.`,
		Fix:  `On the server: declare the base capability of everything it implements: "capabilities": {"tools": {}} is the minimum for a server with tools, and likewise "resources": {} and "prompts": {}. An empty object means "supported, with no optional sub-features"; an absent key means "not supported". Some SDKs derive the capabilities from the handlers registered before the server starts, others need them declared explicitly: print the initialize result your server really sends. A server that genuinely offers none of the three (only logging or completions, or features deliberately hidden) can ignore the warning or run with --disable MCP1013.`,
		Bad: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"my-server","version":"1.0.0"}}}
c->s {"jsonrpc":"2.0","method":"notifications/initialized"}
# the client never sends tools/list: as far as it knows there are no tools`,
		Good: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"my-server","version":"1.0.0"}}}
c->s {"jsonrpc":"2.0","method":"notifications/initialized"}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "server/tools#capabilities", Says: "Servers that support tools MUST declare the tools capability (server/resources and server/prompts say the same of resources and prompts)."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#capability-negotiation", Says: "Client and server capabilities establish which optional protocol features will be available during the session."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#operation", Says: "Both parties MUST only use capabilities that were successfully negotiated: a client does not list or call what the server never declared."},
			{Revision: "2026-07-28", Page: "server/discover", Says: "Servers MUST implement server/discover; its result carries the server's capabilities."},
		},
	},
	Kinds: rule.KindsOf(frame.KindResult),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindResult || m.Request == nil {
			return
		}
		var caps frame.Node
		switch m.Request.Method {
		case "initialize", "server/discover":
			caps = get(m.ResultNode(), "capabilities")
		default:
			return
		}
		for _, feature := range []string{"tools", "resources", "prompts"} {
			if _, ok := caps.Get(feature); ok {
				return
			}
		}
		shown := rule.Text("no capabilities object at all")
		if caps.Exists() {
			shown = rule.Sprintf("capabilities: %s", rule.QuoteJSON(rule.ValueDefinition, rawText(caps)))
		}
		p.Report(rule.At(m), rule.Sprintf("the %s result declares none of tools, resources, prompts (%s): a %s that follows the spec will never list or call anything, however many handlers the server registered",
			m.Request.Method, shown, spec.Client))
	}),
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"initialize", "server/discover"},
}
