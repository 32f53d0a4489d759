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
	Doc: rule.Doc{
		Sees: "A notification gated on a capability that the session's contract does not declare. Mostly the sender's own declaration: notifications/tools/list_changed, notifications/prompts/list_changed or notifications/resources/list_changed without listChanged: true in that capability, notifications/resources/updated without resources.subscribe: true, notifications/message without logging, a client's notifications/roots/list_changed without roots.listChanged. A few are gated on the receiver's declaration, such as notifications/elicitation/complete (2025-11-25) without the client's elicitation.url. Legacy sessions are judged against the initialize exchange, 2026-07-28 traffic against the server/discover result and the clientCapabilities in the requests' _meta. Messages without a contract, a known revision or a known direction are not judged.",
		Why:  "The handshake is a contract: each side uses only what was negotiated. A receiver is entitled to drop a notification it was never promised, and spec-following clients do: the tools list_changed is ignored and the client keeps its stale list, the log lines vanish, the resource update never refreshes the view. Lenient clients act on it anyway, so the feature works in one client and silently fails in another.",
		Fix:  `On the sending side: if you really emit the notification, declare the capability that covers it ("tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": true}; on a client, "roots": {"listChanged": true}); if you do not mean to offer it, stop sending it. A notification gated on the receiver (notifications/elicitation/complete) is sent only when the receiver declared the capability.`,
		Bad: `s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
s->c {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"index rebuilt"}}
s->c {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		Good: `s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"s","version":"1"}}}
s->c {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"index rebuilt"}}
s->c {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#operation", Says: "Both parties MUST only use capabilities that were successfully negotiated (an error from 2025-06-18 on)."},
			{Revision: "2024-11-05", Page: "basic/lifecycle#operation", Says: "Both parties SHOULD only use capabilities that were successfully negotiated (a warning under 2024-11-05 and 2025-03-26)."},
			{Revision: "2025-06-18", Page: "server/tools#list-changed-notification", Says: "When the list of available tools changes, servers that declared the listChanged capability SHOULD send a notification; server/prompts and server/resources say the same."},
			{Revision: "2025-06-18", Page: "server/utilities/logging#capabilities", Says: "Servers that emit log message notifications MUST declare the logging capability."},
		},
	},
	Requires: []*rule.Analysis{Gates},
	Kinds:    rule.KindsOf(frame.KindNotification),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindNotification {
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
		hint := fmt.Sprintf("declare %s in the %s's capabilities, or stop sending %s: the receiver is entitled to drop it, and spec-following clients do",
			capabilityExample(g.Facts.Gate), g.Facts.Gate.Side, m.Method)
		p.Report(rule.At(m), rule.Sprintf("%s sent %s but %s: the receiver may drop it", m.Sender(), m.Method, evidence).WithHint(hint), related)
	}),
}
