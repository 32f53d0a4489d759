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
	Name:     "published-tools",
	Apart:    true, // a session's own state
	Requires: []*rule.Analysis{Lists},
	New: func(_ *session.Session, results rule.Results) rule.Computation {
		return &ToolLog{Tools: schema.NewTools(), lists: results.ResultOf(Lists).(*ListLog)}
	},
}

// ToolLog is the result of PublishedTools for one session.
type ToolLog struct {
	Tools *schema.Tools
	// Listed says a tools/list result was seen.
	Listed bool
	lists  *ListLog
}

func (l *ToolLog) Result() any { return l }

func (l *ToolLog) Message(m *session.Message) {
	listing := l.lists.ToolsOf(m)
	if listing == nil {
		return
	}
	l.Tools.Start(m.Request.Paginated)
	for _, item := range listing.Items {
		if item.Named {
			l.Tools.Add(item.Name, item.Value, m.Line, m.Revision())
		}
	}
	l.Listed = true
}
