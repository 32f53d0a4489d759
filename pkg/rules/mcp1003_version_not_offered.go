package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// VersionNotOffered reports a server that answered a revision newer than the one requested.
var VersionNotOffered = &rule.Rule{
	ID:       "MCP1003",
	Name:     "version-not-offered",
	Severity: rule.SeverityError,
	Title:    "The server answered a protocol revision the client never offered",
	Anchor:   "the initialize result",
	Hint:     "the server must echo the requested revision when it supports it, and otherwise answer another revision it supports (its latest); answering a newer one than requested is a negotiation bug in the server",
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindResult || m.Request == nil || m.Request.Method != "initialize" || m.Contract == nil {
			return
		}
		c := m.Contract
		if c.Verdict != session.VerdictNotOffered {
			return
		}
		p.Report(rule.At(m), fmt.Sprintf("the client requested protocolVersion %s (line %d) and the server answered %s, a newer revision the client never offered: the server must echo %s if it supports it, or answer an older revision it supports",
			c.Requested, c.RequestLine, c.Answered, c.Requested), rule.Related{Line: c.RequestLine, Note: "initialize request: protocolVersion " + c.Requested})
	}),
}
