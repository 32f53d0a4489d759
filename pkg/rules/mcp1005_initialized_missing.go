package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// InitializedMissing reports a client that never sent notifications/initialized.
var InitializedMissing = &rule.Rule{
	ID:       "MCP1005",
	Name:     "initialized-missing",
	Severity: rule.SeverityError,
	Title:    "The client never sent notifications/initialized after a successful initialize",
	Anchor:   "the initialize result after which the notification was due",
	Hint:     "send notifications/initialized right after the initialize result: servers may hold back requests (and some hold back everything) until it arrives",
	Doc: rule.Doc{
		Sees: `In a 2024-11-05 to 2025-11-25 session, a successful initialize result after which the client sent other messages but never notifications/initialized before the session ended. When the capture ends before the client sent anything after the result, the notification may still have been on its way, and the rule says "cannot judge" instead.`,
		Why:  `notifications/initialized is the client saying "I am ready". Servers may hold back their own requests (sampling/createMessage, roots/list, elicitation/create) and notifications until it arrives, and some servers queue or reject everything the client sends before it: the client then waits on a tools/list that never returns, or server-initiated features never start. Lenient servers do not care, so the bug shows with some servers only.`,
		Fix:  `On the client: send {"jsonrpc":"2.0","method":"notifications/initialized"} as soon as the initialize result arrives, before any request other than ping.`,
		Bad: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		Good: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","method":"notifications/initialized"}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#initialization", Says: "After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#initialization", Says: "The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification."},
		},
	},
	New: func() rule.Checker { return &initializedWatch{} },
}

// initializedWatch counts what the client sent after the initialize result.
type initializedWatch struct {
	clientAfter, firstLine int
	result                 rule.Anchor // the initialize result's frame
}

func (w *initializedWatch) Message(p *rule.Pass, m *session.Message) {
	c := p.Session.Legacy
	if c == nil || c.ResultLine == 0 {
		return
	}
	if m.Kind == frame.KindResult && m.Request != nil && m.Request.Method == "initialize" && m.Line == c.ResultLine {
		w.result = rule.Anchor{Line: c.ResultLine, Entry: m.Entry, Seq: m.Seq}
		return
	}
	// After the result: later in the session (frames of one document entry may
	// share a line).
	after := m.Line > c.ResultLine
	if w.result.Seq > 0 {
		after = m.Seq > w.result.Seq
	}
	if !after || m.Dir != spec.C2S || m.Kind == frame.KindBatch {
		return
	}
	w.clientAfter++
	if w.firstLine == 0 {
		w.firstLine = m.Line
	}
}

func (w *initializedWatch) End(p *rule.Pass) {
	s := p.Session
	c := s.Legacy
	if c == nil || c.ResultLine == 0 || s.InitializedLine > 0 {
		return
	}
	if w.clientAfter == 0 {
		p.CannotJudge(reasonEndsAfterInitializeResult)
		return
	}
	p.Report(rule.Anchor{Line: c.ResultLine, Entry: w.result.Entry, Seq: w.result.Seq, Revision: c.Revision, Dir: spec.S2C, Method: "initialize"},
		rule.Sprintf("the client never sent notifications/initialized after the initialize result (line %d), yet sent %s from line %d on", c.ResultLine, count(w.clientAfter, "other message"), w.firstLine))
}
