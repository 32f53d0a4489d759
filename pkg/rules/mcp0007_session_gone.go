package rules

import (
	"net/http"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// SessionGone reports what happens on a Streamable HTTP session after it ended:
// the client going on with a session the server answered 404 for, or never
// starting a new one, traffic on a session the client's DELETE ended, and a
// server that answers a request for an ended session 400 instead of 404.
var SessionGone = &rule.Rule{
	ID:       "MCP0007",
	Name:     "session-gone",
	Severity: rule.SeverityError,
	Title:    "A Streamable HTTP session was used after it ended (a 404 for it, or a DELETE), the client never started a new one after a 404, or the server answered an ended session 400 instead of 404",
	Anchor:   "the message sent on the ended session, or the request the server answered 404 (when nothing followed it)",
	Hint:     "on 404 for a request with Mcp-Session-Id, start a new session: POST initialize without Mcp-Session-Id and use the id its response assigns; a server answers every request for a session it ended with 404",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http) of Streamable HTTP sessions, through their end: " +
			"a request carrying a session's Mcp-Session-Id that the server answered 404 Not Found (the session is gone), and a DELETE " +
			"the server answered 2xx (the client ended it). It reports a message the client sends with the id after the 404 (a POST " +
			"or the GET stream; the client kept the dead session), a 404 after which no new session starts before the capture ends " +
			"(a warning: the capture may simply stop there), a message sent on a session after its DELETE, and a request for an ended " +
			"session that the server answered 400 Bad Request instead of 404 (the client cannot tell that it must start again). Each " +
			"finding names the side at fault. Authorization discovery documents are not the MCP endpoint and are not judged.",
		Why: "A client that keeps a session the server forgot gets nothing but errors: every call fails until someone restarts it, " +
			"and the user sees a tool that \"stopped working\" (python-sdk#3556: a 404 for an expired session never answered with a " +
			"new initialize). A server that answers an expired session 400 breaks the one signal clients act on (python-sdk#1727): " +
			"the client treats it as a bad request and gives up instead of starting again.",
		Fix: "Client: on HTTP 404 for a request with Mcp-Session-Id, drop the session id, send a new initialize without it, and retry on " +
			"the new session; after a DELETE, do not use the id again. Server: once a session is gone (expired, deleted, or lost in a " +
			"restart), answer every request that carries its id with 404 Not Found, not 400.",
		Bad: `POST /mcp  Mcp-Session-Id: 3V2C...  tools/call id=4   ->  404 Not Found
POST /mcp  Mcp-Session-Id: 3V2C...  tools/call id=5   ->  404 Not Found   (the client kept the dead session)`,
		Good: `POST /mcp  Mcp-Session-Id: 3V2C...  tools/call id=4   ->  404 Not Found
POST /mcp  (no Mcp-Session-Id)       initialize id=5   ->  200, Mcp-Session-Id: 9F1A...
POST /mcp  Mcp-Session-Id: 9F1A...  tools/call id=6   ->  200`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#session-management", Says: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found. When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached."},
			{Revision: spec.Rev20250326, Page: "basic/transports#session-management", Says: "Clients that no longer need a particular session SHOULD send an HTTP DELETE to the MCP endpoint with the Mcp-Session-Id header, to explicitly terminate the session."},
		},
	},
	New: func() rule.Checker { return &sessionGoneChecker{} },
}

// sessionGoneChecker reports each of its cases once a session.
type sessionGoneChecker struct {
	keptGone, afterDelete, refused400 bool
	// exchanges pairs a client's request with its status, for the 400 case: a
	// recording writes the status after the request.
	exchanges exchangeJoin
}

func (c *sessionGoneChecker) Message(p *rule.Pass, m *session.Message) {
	if m.Batch != nil || m.HTTP == nil {
		return
	}
	c.judge(p, m.HTTP, rule.At(m), rule.Describe(m), m.Session)
	c.exchanges.message(m, func(h *frame.HTTP, side exchangeSide) { c.refused(p, h, side) })
}

func (c *sessionGoneChecker) Exchange(p *rule.Pass, e *session.Exchange) {
	c.judge(p, e.HTTP, rule.AtExchange(e), "", e.Session)
	c.exchanges.exchange(e, func(h *frame.HTTP, side exchangeSide) { c.refused(p, h, side) })
}

// judge looks at one record of an exchange of session s: what it carried (what),
// or nothing ("").
func (c *sessionGoneChecker) judge(p *rule.Pass, h *frame.HTTP, at rule.Anchor, what string, s *session.Session) {
	if h.SessionID == "" || spec.WellKnownPath(h.Path) {
		return
	}
	sent := !h.InResponse && h.Method != http.MethodDelete
	request := h.Method + " " + h.Path + " (" + h.Where() + ")"
	if what != "" {
		request += " carrying " + what
	}
	id := rule.As(rule.ValueCredential, h.SessionID)
	if g := s.Gone; g != nil && sent && !c.keptGone && h.Exchange != g.HTTP.Exchange {
		c.keptGone = true
		p.Report(at, rule.Sprintf("the client sent %s with Mcp-Session-Id %s after the server answered 404 for that session (%s): "+
			"the session is gone, and a client that gets 404 must start a new session with an initialize request without Mcp-Session-Id",
			request, id, g.HTTP.Where()).By(spec.Client))
	}
	if d := s.AfterDelete; d != nil && sent && !c.afterDelete {
		c.afterDelete = true
		p.Report(at, rule.Sprintf("the client sent %s with Mcp-Session-Id %s after its DELETE ended that session (%s, answered %d)",
			request, id, d.HTTP.Where(), d.HTTP.Status).By(spec.Client))
	}
}

// refused reports the server's 400 for a request of a session it had ended,
// judged once the exchange's status is known, at the client's message.
func (c *sessionGoneChecker) refused(p *rule.Pass, h *frame.HTTP, side exchangeSide) {
	s := p.Session
	if c.refused400 || !side.ended || h.Status != http.StatusBadRequest || h.SessionID == "" || spec.WellKnownPath(h.Path) {
		return
	}
	c.refused400 = true
	request := h.Method + " " + h.Path + " (" + h.Where() + ")"
	if side.what != "" {
		request += " carrying " + side.what
	}
	var how string
	if s.AfterDelete != nil {
		how = "which a DELETE ended (" + s.AfterDelete.HTTP.Where() + ")"
	} else {
		how = "after it answered 404 for it (" + s.Gone.HTTP.Where() + ")"
	}
	p.Report(side.anchor, rule.Sprintf("the server answered 400 Bad Request for %s with Mcp-Session-Id %s, a session %s: "+
		"a server must answer requests for a session it ended with 404 Not Found, the signal a client starts a new session on",
		request, rule.As(rule.ValueCredential, h.SessionID), rule.Text(how)).By(spec.Server))
}

func (c *sessionGoneChecker) End(p *rule.Pass) {
	g := p.Session.Gone
	if g == nil || c.keptGone || c.afterDelete || p.Session.RestartedLine != 0 {
		// A 404 for a session the client deleted is the server's right answer:
		// the client's fault is the message it sent, reported already.
		return
	}
	h := g.HTTP
	p.ReportSeverity(rule.SeverityWarning, rule.Anchor{Line: g.Line, Entry: g.Entry, Time: g.Time, Dir: spec.C2S},
		rule.Sprintf("the server answered 404 for %s %s (%s) with Mcp-Session-Id %s, and the client never started a new session "+
			"before the capture ended: a client that gets 404 must send a new initialize without Mcp-Session-Id",
			h.Method, h.Path, h.Where(), rule.As(rule.ValueCredential, h.SessionID)).By(spec.Client))
}
