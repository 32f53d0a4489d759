package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// DeclaredNotImplemented reports -32601 for a method whose capability the receiver declared.
var DeclaredNotImplemented = &rule.Rule{
	ID:               "MCP2004",
	Name:             "declared-not-implemented",
	Severity:         rule.SeverityError,
	CapabilityScaled: true,
	Title:            "A declared capability's method answered -32601 Method not found",
	Anchor:           "the -32601 error response",
	Hint:             "implement the method, or remove the capability (or sub-capability flag) from the declaration: a declaration is a promise the peer acts on",
	Doc: rule.Doc{
		Sees: "A -32601 Method not found error answering a request whose gating capability the answering side itself declared: logging/setLevel from a server that declared logging, resources/subscribe from one that declared resources.subscribe: true, completion/complete with completions declared, tools/call with tools declared, roots/list or sampling/createMessage from a client that declared roots or sampling. Anchored at the error response.",
		Why:  "A declaration is a promise the peer acts on: the client sends logging/setLevel exactly because the server said it supports logging. -32601 then tells it the method does not exist, so the feature the user turned on (a log level, live resource updates, argument completion) fails with an error the client can only show or swallow, and some clients treat the whole server as broken. It usually comes from a framework that declares a capability by default, or a capabilities object copied from an example, with the handler never written.",
		Fix:  "On the side that answered -32601: implement the method, or remove the capability (or the sub-capability flag, such as subscribe) from the declaration so that the peer never calls it. Declare only what you have code for.",
		Bad: `s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}
s->c {"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}`,
		Good: `s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"warning"}}
s->c {"jsonrpc":"2.0","id":2,"result":{}}
# or: declare only {"tools":{}}, and the client never sends logging/setLevel`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#capability-negotiation", Says: "Client and server capabilities establish which optional protocol features will be available during the session."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#operation", Says: "During operation the client and server exchange messages according to the negotiated capabilities; both parties MUST only use capabilities that were successfully negotiated (SHOULD in 2024-11-05 and 2025-03-26)."},
			{Revision: "2025-06-18", Page: "server/resources#capabilities", Says: "subscribe: whether the client can subscribe to be notified of changes to individual resources."},
			{Revision: "2025-06-18", Page: "server/utilities/logging#setting-log-level", Says: "To configure the minimum log level, clients MAY send a logging/setLevel request (to a server that declared logging)."},
		},
	},
	Requires: []*rule.Analysis{Gates},
	Kinds:    rule.KindsOf(frame.KindError),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindError || m.ErrorCode != spec.CodeMethodNotFound || m.Request == nil {
			return
		}
		r := m.Request
		g, ok := judged(p, p.ResultOf(Gates).(*GateLog).Of(m, spec.Resolve(r.Method), r.Dir))
		if !ok || !g.Declared || g.Facts.Gate.Side != spec.Sender(m.Dir) {
			return
		}
		c := m.Contract
		msg := rule.Sprintf("%s id=%s (line %d) was answered with error -32601 %s, although the %s's %s declared %s",
			r.Method, r.ID, r.Line, rule.Quote(rule.ValueErrorMessage, m.ErrorMessage), g.Facts.Gate.Side, c.DeclaredIn(g.Facts.Gate.Side), g.Facts.Gate.Path)
		if unknown, ok := spec.UnknownNameOf(r.Method, m.Revision()); ok {
			// The method may well exist and only the name be unknown: that has a
			// code of its own, and -32601 tells the client the whole feature is gone.
			msg = msg.WithHint(fmt.Sprintf("if %s is implemented and only this %s is unknown, answer %d (an unknown %s), not -32601 Method not found, which tells the client the whole method is missing; otherwise implement %s or stop declaring %s",
				r.Method, unknown.What, unknown.Code, unknown.What, r.Method, g.Facts.Gate.Path))
		}
		p.Report(rule.At(m), msg,
			rule.Related{Line: r.Line, Note: "the request"},
			rule.Related{Line: c.DeclaredLine(g.Facts.Gate.Side), Note: c.DeclarationNote(g.Facts.Gate.Side, g.Facts.Gate.Path)})
	}),
}
