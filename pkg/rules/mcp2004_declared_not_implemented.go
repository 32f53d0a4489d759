package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// DeclaredNotImplemented reports -32601 for a method whose capability the receiver declared.
var DeclaredNotImplemented = &rule.Rule{
	ID:               "MCP2004",
	Name:             "declared-not-implemented",
	Severity:         rule.SeverityError,
	CapabilityScaled: true,
	Title:            "A declared capability's method answered -32601 Method not found",
	Anchor:           "the -32601 error response",
	Hint:             "implement the method, or remove the capability (or sub-capability flag) from the declaration: a declaration is a promise the peer acts on",
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindError || m.ErrorCode != spec.CodeMethodNotFound || m.Request == nil {
			return
		}
		r := m.Request
		g, ok := judgeGate(p, m, r.Method, r.Dir)
		if !ok || !g.declared || g.row.Gate.Side != spec.Sender(m.Dir) {
			return
		}
		c := m.Contract
		p.Report(rule.At(m), fmt.Sprintf("%s id=%s (line %d) was answered -32601 %s, although the %s's %s declared %s",
			r.Method, r.ID, r.Line, quote(m.ErrorMessage), g.row.Gate.Side, c.DeclaredIn(g.row.Gate.Side), g.row.Gate.Path),
			rule.Related{Line: r.Line, Note: "the request"},
			rule.Related{Line: c.DeclaredLine(g.row.Gate.Side), Note: c.DeclaredIn(g.row.Gate.Side) + ": " + c.CapabilitySummary(g.row.Gate.Side, topOf(g.row.Gate.Path))})
	}),
}

func topOf(path string) string {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i]
		}
	}
	return path
}
