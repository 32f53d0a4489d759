package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// InitializeFailed reports an initialize answered with an error, or never answered.
var InitializeFailed = &rule.Rule{
	ID:       "MCP1001",
	Name:     "initialize-failed",
	Severity: rule.SeverityError,
	Title:    "initialize was answered with an error, or never answered",
	Anchor:   "the error response; when no answer came, the initialize request",
	Hint:     "read the error: an unsupported protocolVersion is answered with -32602 and data.supported; a server that never answers is usually blocked or writing to the wrong stream (stdout pollution, a crash on start)",
	New: func() rule.Checker {
		return rule.Funcs{
			OnMessage: func(p *rule.Pass, m *session.Message) {
				if m.Kind != frame.KindError || m.Request == nil || m.Request.Method != "initialize" {
					return
				}
				p.Report(rule.At(m), fmt.Sprintf("initialize (line %d) was answered with error %d %s: no session was established",
					m.Request.Line, m.ErrorCode, quote(m.ErrorMessage)), rule.Related{Line: m.Request.Line, Note: "initialize request"})
			},
			OnEnd: func(p *rule.Pass) {
				c := p.Session.Legacy
				if c == nil || c.ResultLine > 0 || c.ErrorLine > 0 {
					return
				}
				for _, r := range p.Session.Outstanding() {
					if r.Method == "initialize" && r.Line == c.RequestLine {
						p.Report(rule.AtRequest(r), fmt.Sprintf("initialize (line %d) was never answered: %s; no session was established", r.Line, after(p.Session, r)))
						return
					}
				}
			},
		}
	},
}
