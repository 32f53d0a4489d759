package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// SessionIDMissing reports a Streamable HTTP client that sent a message without
// the Mcp-Session-Id the server assigned it at initialization.
var SessionIDMissing = &rule.Rule{
	ID:       "MCP0010",
	Name:     "session-id-missing",
	Severity: rule.SeverityError,
	Title:    "A Streamable HTTP client sent a message without the Mcp-Session-Id the server assigned it in its answer to initialize",
	Anchor:   "the first message sent without the id",
	Hint:     "keep the Mcp-Session-Id header of the initialize response and send it on every later request of the session (POST, GET and DELETE)",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http) of Streamable HTTP sessions up to 2025-11-25 (2026-07-28 " +
			"has no sessions; the HTTP+SSE transport names its session in the endpoint URI): an initialize POSTed without Mcp-Session-Id " +
			"whose response assigned one, then, while that session is open, a client message POSTed without the header that is no new " +
			"initialize. Such a message belongs to no session the server knows: mcpsleuth judges it (and what follows it without the " +
			"header) as a session of its own, and this rule reports its first message, naming the client and the server's answer. A " +
			"server that requires sessions answers it 400 Bad Request (MCP0005 reports the refusal); one that does not processes it " +
			"outside the session, without the contract the client negotiated.",
		Why: "The session id is how the server finds the client's state: its negotiated revision and capabilities, its subscriptions, " +
			"its GET stream. A client that drops it (a proxy that strips unknown headers, an HTTP client recreated per request, a " +
			"reconnect that forgets it) gets 400 on every call, or worse, answers computed for nobody: notifications meant for its " +
			"session never arrive.",
		Fix: "Client: read Mcp-Session-Id from the HTTP response to initialize and send it on every subsequent request, including " +
			"notifications/initialized, the GET stream and the DELETE. Check that proxies between client and server forward the header " +
			"(and expose it to browsers: Access-Control-Expose-Headers: Mcp-Session-Id).",
		Bad: `POST /mcp  initialize id=1                       ->  200, Mcp-Session-Id: 1868a90c...
POST /mcp  (no Mcp-Session-Id)  tools/list id=2   ->  400 Bad Request`,
		Good: `POST /mcp  initialize id=1                        ->  200, Mcp-Session-Id: 1868a90c...
POST /mcp  Mcp-Session-Id: 1868a90c...  tools/list id=2   ->  200`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#session-management", Says: "If an Mcp-Session-Id is returned by the server during initialization, clients using the Streamable HTTP transport MUST include it in the Mcp-Session-Id header on all of their subsequent HTTP requests. Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request."},
		},
	},
	New: func() rule.Checker { return &sessionIDMissingChecker{} },
}

type sessionIDMissingChecker struct{ done bool }

func (c *sessionIDMissingChecker) Message(p *rule.Pass, m *session.Message) {
	a := m.Session.Unassigned
	if c.done || a == nil || m.HTTP == nil || m.HTTP.InResponse || m.Batch != nil {
		return
	}
	c.done = true
	h := m.HTTP
	at := place(a.Line, a.Entry)
	p.Report(rule.At(m), rule.Sprintf("%s %s (%s) carrying %s has no Mcp-Session-Id, but the server assigned this client session %s "+
		"in its answer to initialize (%s), which is still open: a client must send the id on every request after initialize",
		h.Method, h.Path, h.Where(), rule.Describe(m), rule.As(rule.ValueCredential, a.ID), at).By(spec.Client))
}

func (c *sessionIDMissingChecker) End(*rule.Pass) {}
