package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UnknownResponse reports a response whose id matches no outstanding request.
var UnknownResponse = &rule.Rule{
	ID:       "MCP3002",
	Name:     "unknown-response",
	Severity: rule.SeverityWarning,
	Title:    "A response whose id matches no outstanding request of the other side",
	Anchor:   "the response",
	Hint:     "responses must carry the id of a request the peer sent and has not had answered; look for a reused or rewritten id, a second response, or a proxy that mixes up connections",
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if !m.Kind.IsResponse() || m.Request != nil {
			return
		}
		if m.Dir == spec.DirUnknown {
			p.CannotJudge("direction unknown")
			return
		}
		if (m.ID == "" || m.ID == "null") && m.ErrorCode != 0 {
			return // an error about a request whose id could not be read
		}
		asker := spec.Sender(m.Dir.Opposite())
		p.Report(rule.At(m), fmt.Sprintf("response id=%s from the %s answers no request: the %s has no outstanding request with id %s (ids of the two sides are separate)",
			m.ID, spec.Sender(m.Dir), asker, m.ID))
	}),
}
