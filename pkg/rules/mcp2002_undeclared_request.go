package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// UndeclaredRequest reports a request gated on a capability the receiver never declared.
var UndeclaredRequest = &rule.Rule{
	ID:               "MCP2002",
	Name:             "undeclared-request",
	Severity:         rule.SeverityError,
	CapabilityScaled: true,
	Title:            "A request gated on a capability the receiver never declared",
	Anchor:           "the request",
	Hint:             "read the peer's declared capabilities (initialize params/result, or the request's _meta and server/discover) and branch on them before sending: an undeclared method may be rejected with -32601 or ignored",
	Doc: rule.Doc{
		Sees: "A request gated on a capability the receiver did not declare. Client to server: tools/list and tools/call without tools; prompts/list and prompts/get without prompts; resources/list, resources/templates/list and resources/read without resources; resources/subscribe and resources/unsubscribe without resources.subscribe: true; logging/setLevel without logging; completion/complete without completions (from 2025-03-26: 2024-11-05 had no such capability). Server to client: sampling/createMessage without sampling, roots/list without roots, elicitation/create without elicitation. The 2025-11-25 tasks/* requests are judged against the tasks capabilities. Legacy sessions are judged against the initialize exchange, 2026-07-28 requests against the server/discover result. Messages without a contract, a known revision or a known direction are not judged.",
		Why:  "The receiver never offered the feature, so it may answer -32601 Method not found, which reads like a broken peer rather than a feature that was never granted, or ignore the request and leave the sender waiting. A lenient receiver that answers anyway hides the bug until the same sender meets a strict one. Server-to-client requests matter most: sampling/createMessage spends the user's tokens and needs the client's consent, and roots/list is how the client tells the server which directories it may touch.",
		Fix:  "On the sending side: keep the peer's capabilities from the handshake (a server keeps the client's initialize params.capabilities, a client the server's result.capabilities or its server/discover result) and check them before every gated call; fall back, or tell the user, when the capability is absent. If the receiver does implement the method, the fix is on the receiver: declare the capability (MCP1013 for a server that declares nothing).",
		Bad: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
# the client declared no sampling, yet the server asks it for a completion
s->c {"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Summarise the hits"}}],"maxTokens":200}}
c->s {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}`,
		Good: `# the client implements sampling and declares it (or else the server does not ask)
c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}
s->c {"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Summarise the hits"}}],"maxTokens":200}}
c->s {"jsonrpc":"2.0","id":0,"result":{"role":"assistant","content":{"type":"text","text":"Three documents mention MCP."},"model":"example-model"}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#operation", Says: "Both parties MUST only use capabilities that were successfully negotiated (an error from 2025-06-18 on)."},
			{Revision: "2024-11-05", Page: "basic/lifecycle#operation", Says: "Both parties SHOULD only use capabilities that were successfully negotiated (a warning under 2024-11-05 and 2025-03-26)."},
			{Revision: "2025-06-18", Page: "client/sampling#capabilities", Says: "Clients that support sampling MUST declare the sampling capability during initialization; client/roots and client/elicitation say the same of roots and elicitation."},
			{Revision: "2025-06-18", Page: "client/roots#error-handling", Says: "Client does not support roots: -32601 (Method not found)."},
		},
	},
	Requires: []*rule.Analysis{Gates},
	Kinds:    rule.KindsOf(frame.KindRequest),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindRequest {
			return
		}
		g, ok := judged(p, p.ResultOf(Gates).(*GateLog).Current())
		if !ok || g.Declared {
			if g.Settled {
				p.Settled() // the gate and the declaration are the class's
			}
			return
		}
		evidence, related := undeclaredEvidence(m, g.Facts.Gate)
		hint := fmt.Sprintf("branch on the %s's declared capabilities before sending %s (it needs %s); if the %s does support it, it must declare %s",
			g.Facts.Gate.Side, m.Method, capabilityExample(g.Facts.Gate), g.Facts.Gate.Side, capabilityExample(g.Facts.Gate))
		p.Report(rule.At(m), rule.Sprintf("%s sent %s but %s", m.Sender(), rule.Describe(m), evidence).WithHint(hint), related)
	}),
}
