package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// InvalidJSON reports records and payloads that do not parse as JSON.
var InvalidJSON = &rule.Rule{
	ID:       "MCP0001",
	Name:     "invalid-json",
	Severity: rule.SeverityError,
	Title:    "A record or payload is not valid JSON",
	Anchor:   "the line that does not parse",
	Hint:     "find what wrote this line: a truncated write, stdout pollution (a print or a banner on the stdio channel) or a recorder that split a message",
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind == frame.KindInvalid && m.Problem == frame.ProblemNotJSON {
			p.Report(rule.At(m), m.Detail)
		}
	}),
}
