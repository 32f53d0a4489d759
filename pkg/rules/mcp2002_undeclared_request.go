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
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindRequest {
			return
		}
		g, ok := judgeGate(p, m, m.Method, m.Dir)
		if !ok || g.declared {
			return
		}
		evidence, related := undeclaredEvidence(m, g.row.Gate)
		p.Report(rule.At(m), fmt.Sprintf("%s sent %s but %s", m.Sender(), rule.Describe(m), evidence), related)
	}),
}
