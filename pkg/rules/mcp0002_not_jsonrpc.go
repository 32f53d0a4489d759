package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// NotJSONRPC reports valid JSON that is not a JSON-RPC 2.0 message.
var NotJSONRPC = &rule.Rule{
	ID:       "MCP0002",
	Name:     "not-jsonrpc",
	Severity: rule.SeverityError,
	Title:    "Valid JSON that is not a JSON-RPC 2.0 message",
	Anchor:   "the frame that is not JSON-RPC (a batch member's problem is anchored at its batch)",
	Hint:     `every MCP message is a JSON-RPC 2.0 object: "jsonrpc":"2.0", and either a method (request, notification) or exactly one of result and error (response)`,
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind == frame.KindInvalid && m.Problem == frame.ProblemNotJSONRPC {
			msg := "not a JSON-RPC 2.0 message: " + m.Detail
			if m.Batch != nil {
				msg = "a member of the batch is " + msg
			}
			p.Report(rule.At(m), msg)
		}
	}),
}
