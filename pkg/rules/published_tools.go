package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// PublishedTools keeps the tools the session's tools/list results published, with
// their schemas (the latest result of a tool wins): read once for every rule that
// checks calls against them (MCP4003's arguments, MCP4004's structured content),
// which each kept a copy before.
var PublishedTools = &rule.Analysis{
	Name: "published-tools",
	New: func(*session.Session, rule.Results) rule.Computation {
		return &ToolLog{Tools: schema.NewTools()}
	},
}

// ToolLog is the result of PublishedTools for one session.
type ToolLog struct {
	Tools *schema.Tools
	// Listed says a tools/list result was seen.
	Listed bool
}

func (l *ToolLog) Result() any { return l }

func (l *ToolLog) Message(m *session.Message) {
	if isToolsListResult(m) {
		l.Tools.ListedNode(m.ResultNode(), m.Line, m.Revision(), m.Request.Paginated)
		l.Listed = true
	}
}
