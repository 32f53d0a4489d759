package rules

import (
	"fmt"
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
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindRequest && m.Kind != frame.KindNotification {
			return
		}
		if !spec.KnownMethod(m.Method) {
			return // a custom or experimental method: not the spec's to judge
		}
		if m.Dir == spec.DirUnknown {
			p.CannotJudge("direction unknown")
			return
		}
		rev := m.Revision()
		if rev == "" {
			p.CannotJudge("no governing revision (no handshake, or an unknown protocolVersion)")
			return
		}
		if row, ok := spec.LookupMethod(m.Method, rev, m.Dir); ok {
			if row.Kind == spec.KindInputRequest {
				p.Report(rule.At(m), fmt.Sprintf("%s sent as a JSON-RPC request in a %s session: since 2026-07-28 the server asks for it only as an inputRequests entry of an InputRequiredResult (on tools/call, prompts/get or resources/read)", m.Method, rev))
			}
			return
		}
		sender := spec.Sender(m.Dir)
		if _, ok := spec.LookupMethod(m.Method, rev, m.Dir.Opposite()); ok {
			p.Report(rule.At(m), fmt.Sprintf("the %s sent %s, which in %s only the %s sends", sender, m.Method, rev, spec.Sender(m.Dir.Opposite())))
			return
		}
		msg := fmt.Sprintf("%s does not exist in %s%s", m.Method, rev, existsIn(m.Method, m.Dir))
		if c := m.Contract; c != nil && c.Era == session.EraLegacy && c.Verdict == session.VerdictDowngraded {
			msg += fmt.Sprintf("; the client requested %s but the session was negotiated down to %s", c.Requested, c.Answered)
		}
		p.Report(rule.At(m), msg)
	}),
}

// existsIn names the revisions that do have the method in that direction.
func existsIn(method string, d spec.Direction) string {
	revs := spec.RevisionsOf(method, d)
	if len(revs) == 0 {
		return ""
	}
	names := make([]string, len(revs))
	for i, r := range revs {
		names[i] = string(r)
	}
	return " (it exists in " + strings.Join(names, ", ") + ")"
}
