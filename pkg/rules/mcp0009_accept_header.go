package rules

import (
	"net/http"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// AcceptHeader reports a Streamable HTTP client whose Accept header does not list
// the media types the transport asks it to, on a request the server served anyway.
var AcceptHeader = &rule.Rule{
	ID:       "MCP0009",
	Name:     "accept-header",
	Severity: rule.SeverityWarning,
	Title:    "A Streamable HTTP request's Accept header does not list what the transport requires (application/json and text/event-stream for a POST, text/event-stream for a GET); this server served it, a stricter one answers 406",
	Anchor:   "the first request of the session so sent (a POST's message, or the GET)",
	Hint:     "send Accept: application/json, text/event-stream on every POST and Accept: text/event-stream on the GET stream",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http) of Streamable HTTP sessions (2025-03-26 on, and a " +
			"2024-11-05 session over Streamable HTTP; the HTTP+SSE transport prescribes no Accept header): the Accept header of each POST " +
			"and GET the server served. A POST whose Accept does not list both application/json and text/event-stream by name, or a GET " +
			"whose Accept does not list text/event-stream, is reported once a session for each method, naming the client. A wildcard " +
			"(*/*, application/*) is not a listing. A request the server refused is MCP0005's (a 406 names the client there).",
		Why: "Servers check the header before anything else, and not all the same way: the Go SDK's server accepts a wildcard, the " +
			"TypeScript SDK's server and servers built on it answer 406 Not Acceptable to a POST that does not name both types, before " +
			"they read the message. A client that works with one server fails with the next, with an error that does not mention MCP.",
		Fix: "Client: set Accept: application/json, text/event-stream on every POST to the MCP endpoint, and Accept: text/event-stream on " +
			"the GET that opens the server's stream. HTTP libraries and proxies that set their own default (*/*, application/json) are " +
			"the usual cause.",
		Bad: `POST /mcp  Accept: application/json   tools/call id=2   ->  200 (this server let it through)`,
		Good: `POST /mcp  Accept: application/json, text/event-stream   tools/call id=2   ->  200
GET  /mcp  Accept: text/event-stream                     ->  200, text/event-stream`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#sending-messages-to-the-server", Says: "The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types."},
			{Revision: spec.Rev20250326, Page: "basic/transports#listening-for-messages-from-the-server", Says: "The client MUST include an Accept header, listing text/event-stream as a supported content type."},
			{Revision: spec.Rev20260728, Page: "basic/transports/streamable-http", Says: "The client MUST include an Accept header listing both application/json and text/event-stream."},
		},
	},
	New: func() rule.Checker { return &acceptHeaderChecker{} },
}

// acceptHeaderChecker reports once a session for each request method.
type acceptHeaderChecker struct {
	exchanges         exchangeJoin
	postDone, getDone bool
}

func (c *acceptHeaderChecker) Message(p *rule.Pass, m *session.Message) {
	c.exchanges.message(m, func(h *frame.HTTP, side exchangeSide) { c.judge(p, h, side) })
}

func (c *acceptHeaderChecker) Exchange(p *rule.Pass, e *session.Exchange) {
	c.exchanges.exchange(e, func(h *frame.HTTP, side exchangeSide) { c.judge(p, h, side) })
}

func (c *acceptHeaderChecker) End(*rule.Pass) {}

// judge looks at the Accept header of a request the server served.
func (c *acceptHeaderChecker) judge(p *rule.Pass, h *frame.HTTP, side exchangeSide) {
	if h.Status == 0 || h.Status >= 400 || spec.WellKnownPath(h.Path) {
		return
	}
	done := &c.postDone
	if strings.EqualFold(h.Method, http.MethodGet) {
		done = &c.getDone
	}
	if *done {
		return
	}
	answers, known := spec.HTTPTransport(side.anchor.Revision, h.Endpoint != "").Answers(h.Method)
	if !known || len(answers.Accept) == 0 {
		return
	}
	var missing []string
	for _, t := range answers.Accept {
		if !spec.AcceptLists(h.Accept, t) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return
	}
	*done = true
	sent := rule.Text("no Accept header")
	if h.Accept != "" {
		sent = rule.Sprintf("Accept: %s", h.Accept)
	}
	request := h.Method + " " + h.Path + " (" + h.Where() + ")"
	if side.what != "" {
		request += " carrying " + side.what
	}
	p.Report(side.anchor, rule.Sprintf("%s was sent with %s, which does not list %s: a client must list %s for a %s; this "+
		"server answered %d, a server that checks the header (the TypeScript SDK's) answers 406 Not Acceptable",
		request, sent, rule.Text(strings.Join(missing, " or ")), rule.Text(strings.Join(answers.Accept, " and ")), h.Method, h.Status).By(spec.Client))
}
