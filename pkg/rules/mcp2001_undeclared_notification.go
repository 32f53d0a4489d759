package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// UndeclaredNotification reports a notification its capability gate does not cover.
var UndeclaredNotification = &rule.Rule{
	ID:               "MCP2001",
	Name:             "undeclared-notification",
	Severity:         rule.SeverityError,
	CapabilityScaled: true,
	Title:            "A notification the sender's declaration does not cover",
	Anchor:           "the notification",
	Hint:             "declare the capability that covers the notification (for example resources: {\"listChanged\": true}), or stop sending it: the receiver is entitled to drop it, and spec-following clients do",
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindNotification {
			return
		}
		g, ok := judgeGate(p, m, m.Method, m.Dir)
		if !ok || g.declared {
			return
		}
		evidence, related := undeclaredEvidence(m, g.row.Gate)
		p.Report(rule.At(m), fmt.Sprintf("%s sent %s but %s: the receiver may drop it", m.Sender(), m.Method, evidence), related)
	}),
}
