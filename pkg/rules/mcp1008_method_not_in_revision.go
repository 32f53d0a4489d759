package rules

import (
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// MethodNotInRevision reports a method the governing revision does not have.
var MethodNotInRevision = &rule.Rule{
	ID:       "MCP1008",
	Name:     "method-not-in-revision",
	Severity: rule.SeverityError,
	Title:    "A method that does not exist in the governing revision",
	Anchor:   "the request or notification",
	Hint:     "gate the call on the negotiated revision (legacy) or the request's own protocolVersion (modern): the peer may not know the method at all",
	Doc: rule.Doc{
		Sees: "A request or notification whose method the spec defines, but not in the governing revision and direction: the protocolVersion of the initialize result (2024-11-05 to 2025-11-25) or the request's own _meta protocolVersion (2026-07-28). Three shapes: a method the revision lacks (elicitation/create before 2025-06-18, tasks/* outside 2025-11-25, ping, logging/setLevel, resources/subscribe or notifications/roots/list_changed under 2026-07-28); a method sent by the wrong side (a client sending sampling/createMessage); and, under 2026-07-28, roots/list, sampling/createMessage or elicitation/create sent as JSON-RPC requests, which that revision carries only inside an InputRequiredResult. The message names the revisions that do have the method, and says when the session was negotiated down from what the client asked. Custom methods are not judged.",
		Why:  "The receiver implements the revision that was agreed, not the one the sender had in mind: it answers -32601 Method not found or ignores the notification, and the feature fails with an error that looks like a broken peer. The usual story is a downgrade: the client asked for 2025-06-18, the server answered 2025-03-26, and the server still calls elicitation/create. Under 2026-07-28 the removed methods have replacements, and a modern peer rejects the old ones.",
		Fix:  `On the sending side: gate every call on the negotiated revision (the protocolVersion of the initialize result, not the one you asked for) or, under 2026-07-28, on the request's own protocolVersion, and use that revision's mechanism: under 2026-07-28, subscriptions/listen instead of resources/subscribe, _meta["io.modelcontextprotocol/logLevel"] instead of logging/setLevel, an InputRequiredResult with inputRequests instead of server-to-client requests, and no ping; before 2025-06-18, no elicitation (ask through the tool result instead).`,
		Bad: `# the client asked for 2025-06-18; the server negotiated 2025-03-26, which has no elicitation
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{}}}
s->c {"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"message":"Which environment?","requestedSchema":{"type":"object","properties":{"env":{"type":"string"}}}}}`,
		Good: `s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deploy","arguments":{}}}
# under 2025-03-26 the server asks through the tool result
s->c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Which environment? Call deploy again with env set."}],"isError":true}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#operation", Says: "Both parties MUST respect the negotiated protocol version (SHOULD in 2024-11-05 and 2025-03-26)."},
			{Revision: "2025-06-18", Page: "changelog#major-changes", Says: "Item 6 adds elicitation (elicitation/create): it does not exist before 2025-06-18."},
			{Revision: "2026-07-28", Page: "changelog#major-changes", Says: "Removes ping, logging/setLevel and notifications/roots/list_changed (item 5), replaces resources/subscribe and resources/unsubscribe with subscriptions/listen (item 4), moves tasks/* to an extension (item 6) and replaces server-initiated requests with multi round-trip requests (item 7)."},
			{Revision: "2026-07-28", Page: "basic/patterns/mrtr", Says: "Servers MUST send server-to-client requests (such as roots/list, sampling/createMessage, or elicitation/create) using the MRTR pattern. The previous pattern of server-initiated requests is no longer supported."},
		},
	},
	Kinds: rule.KindsOf(frame.KindRequest, frame.KindNotification),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindRequest && m.Kind != frame.KindNotification {
			return
		}
		if !m.Spec().Known() {
			return // a custom or experimental method: not the spec's to judge
		}
		if m.Dir == spec.DirUnknown {
			p.CannotJudge(reasonDirectionUnknown)
			return
		}
		rev := m.Revision()
		if rev == "" {
			p.CannotJudge(reasonNoRevision)
			return
		}
		if row, ok := m.Spec().Facts(rev, m.Dir); ok {
			if row.Kind == spec.KindInputRequest {
				p.Report(rule.At(m), rule.Sprintf("%s sent %s as a JSON-RPC request in a %s session: since 2026-07-28 the server asks for it only as an inputRequests entry of an InputRequiredResult (on tools/call, prompts/get or resources/read)", spec.Sender(m.Dir), rule.Describe(m), rev))
				return
			}
			p.Settled() // the revision has the method in this direction
			return
		}
		sender := spec.Sender(m.Dir)
		if _, ok := m.Spec().Facts(rev, m.Dir.Opposite()); ok {
			p.Report(rule.At(m), rule.Sprintf("%s sent %s, which in %s only the %s sends", sender, rule.Describe(m), rev, spec.Sender(m.Dir.Opposite())))
			return
		}
		msg := rule.Sprintf("%s sent %s, which %s does not have%s", sender, rule.Describe(m), rev, existsIn(m.Method, m.Dir))
		if c := m.Contract; c != nil && c.Era == session.EraLegacy && c.Verdict == session.VerdictDowngraded {
			msg = msg.Plus(rule.Sprintf("; the client requested %s but the session was negotiated down to %s", c.Requested, c.Answered))
		}
		p.Report(rule.At(m), msg)
	}),
}

// existsIn names the published revisions that do have the method in that
// direction: the ones a session can negotiate ("draft" is not one).
func existsIn(method string, d spec.Direction) string {
	var names []string
	for _, r := range spec.RevisionsOf(method, d) {
		if _, ok := spec.ParseRevision(string(r)); ok {
			names = append(names, string(r))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (it exists in " + strings.Join(names, ", ") + ")"
}
