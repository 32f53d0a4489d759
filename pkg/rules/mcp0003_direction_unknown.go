package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// DirectionUnknown reports messages whose direction could not be determined.
var DirectionUnknown = &rule.Rule{
	ID:       "MCP0003",
	Name:     "direction-unknown",
	Severity: rule.SeverityInfo,
	Title:    "A frame's direction could not be determined",
	Anchor:   "the frame whose direction is unknown",
	Hint:     "capture with a recorder that writes the direction (an envelope with dir), or give the log's side with --perspective",
	Doc: rule.Doc{
		Sees: "A message whose direction could not be established. Envelope captures record who sent each frame; bare JSON-RPC lines, and read/write logs whose side is unknown, do not, so the direction is inferred: from the method (tools/call only goes client to server), from the outstanding request a response answers, from the request a progress token or a cancelled requestId refers to, and, for a request either side may send (ping, a custom method), from whether its id continues one side's numbering. It stays unknown for a notification either side may send (a custom one), for such a request once the server has sent requests of its own and the id does not clearly continue one side's numbering, for a response whose id matches no outstanding request (or both sides' requests, when the result's shape does not decide), and for progress whose token no request carried. The finding gives the reason.",
		Why:  `It is not a protocol violation: it marks a blind spot in the report. The rules that depend on who sent a frame (capability gates, method direction, request/response pairing, progress) skip it and note "cannot judge", so the absence of findings about that frame proves nothing.`,
		Fix:  `Nothing to change in the client or the server. Capture with a recorder that writes the direction, for example an envelope line {"ts":...,"dir":"c->s","msg":...}; for a Go SDK LoggingTransport log, say which side wrote it with --perspective client or --perspective server.`,
		Bad: `# a bare JSON-RPC log: nothing says who wrote the line, and either side may send this method
{"jsonrpc":"2.0","method":"notifications/acme/heartbeat","params":{"seq":12}}`,
		Good: `# the same frame in an envelope that records its direction
{"ts":"2025-06-18T10:00:03.2Z","dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/acme/heartbeat","params":{"seq":12}}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic#requests", Says: "Requests are sent from the client to the server or vice versa, and a request ID MUST NOT have been previously used by the requestor within the same session: each side numbers its own requests, so an id alone does not say which side a response answers."},
			{Revision: "2025-06-18", Page: "basic/utilities/ping#overview", Says: "Either the client or server can initiate a ping by sending a ping request."},
		},
	},
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Dir != spec.DirUnknown || m.Kind == frame.KindInvalid || m.Kind == frame.KindBatch {
			return
		}
		reason := m.DirReason
		if reason == "" {
			reason = "the capture does not say"
		}
		p.Reportf(rule.At(m), "direction of %s unknown: %s; rules that depend on the sender did not judge it", rule.Describe(m), reason)
	}),
}
