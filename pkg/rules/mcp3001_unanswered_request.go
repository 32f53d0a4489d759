package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UnansweredRequest reports requests with no response by the end of the capture.
var UnansweredRequest = &rule.Rule{
	ID:       "MCP3001",
	Name:     "unanswered-request",
	Severity: rule.SeverityWarning,
	Title:    "A request with no response by the end of the capture",
	Anchor:   "the request (a batch member: its batch)",
	Hint:     "every request must be answered (or cancelled by its sender); look for a handler that blocks or panics, a dropped batch, or a response written to the wrong stream",
	New: func() rule.Checker {
		return rule.Funcs{OnEnd: func(p *rule.Pass) {
			for _, r := range p.Session.Outstanding() {
				if r.Cancelled || r.LongLived {
					continue
				}
				if r.Method == "initialize" {
					continue // MCP1001 reports it
				}
				where := ""
				if r.Batch {
					where = " inside a batch"
				}
				p.Report(rule.AtRequest(r), fmt.Sprintf("%s id=%s sent by the %s%s was never answered; %s",
					r.Method, r.ID, spec.Sender(r.Dir), where, after(p.Session, r)))
			}
		}}
	},
}
