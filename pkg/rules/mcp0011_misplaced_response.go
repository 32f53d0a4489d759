package rules

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// MisplacedResponse reports a Streamable HTTP server that sent a JSON-RPC response
// on an event stream that was not the request's: the standalone GET stream (which
// may carry one only when it resumes a stream), or the stream of another POST.
var MisplacedResponse = &rule.Rule{
	ID:       "MCP0011",
	Name:     "misplaced-response",
	Severity: rule.SeverityError,
	Title:    "A Streamable HTTP server sent a JSON-RPC response on the standalone GET stream (not resuming a stream), or on the event stream of a POST that did not carry the request",
	Anchor:   "the misplaced response",
	Hint:     "send each response on the event stream (or in the JSON body) of the POST that carried its request; the GET stream is for server requests and notifications, and carries a response only when a GET with Last-Event-ID resumes that request's stream",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http) of Streamable HTTP sessions up to 2025-11-25 (the " +
			"HTTP+SSE transport sends every message on its one stream; 2026-07-28 has no GET stream): where each server response " +
			"travelled. A response on the standalone GET stream whose GET carried no Last-Event-ID header (it resumed nothing) is an " +
			"error. A response on the event stream of a POST other than the one that carried its request is a warning: the spec asks " +
			"for the response on the request's stream, and a client that waits there never sees it, while a client that routes " +
			"responses by id alone (the TypeScript SDK) copes. Each case is reported once a session, naming the server. A HAR places a " +
			"stream's events at its entry's start, so the standalone GET a client opens after initialize shows a later call's " +
			"response before the call's POST: such a response is judged when the request that claims it comes.",
		Why: "A client reads a request's response where the transport says it comes: the event stream (or JSON body) of the POST that " +
			"carried it. A server that routes a response to the standalone GET stream, or to another request's stream (a session-wide " +
			"stream map keyed wrongly, a broadcast to whatever stream is open), leaves the call waiting until its timeout in clients " +
			"that pair a POST with its own stream, although the capture shows the response was sent; only the stream it went to tells " +
			"the two apart.",
		Fix: "Server: write a request's response to the event stream or JSON body of the HTTP request that carried it; on the GET " +
			"stream send only requests and notifications unrelated to a running request, and a response only when a GET with " +
			"Last-Event-ID resumes the stream it belonged to (replaying what the client missed).",
		Bad: `POST /mcp  tools/call id=3   ->  200, text/event-stream: (ends with no event)
GET  /mcp  (no Last-Event-ID) ->  200, text/event-stream: data: {"jsonrpc":"2.0","id":3,"result":{...}}`,
		Good: `POST /mcp  tools/call id=3   ->  200, text/event-stream: data: {"jsonrpc":"2.0","id":3,"result":{...}}
GET  /mcp  (no Last-Event-ID) ->  200, text/event-stream: data: {"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#listening-for-messages-from-the-server", Says: "The server MUST NOT send a JSON-RPC response on the stream unless resuming a stream associated with a previous client request."},
			{Revision: spec.Rev20250326, Page: "basic/transports#sending-messages-to-the-server", Says: "If the server initiates an SSE stream: The SSE stream SHOULD eventually include one JSON-RPC response per each JSON-RPC request sent in the POST body."},
			{Revision: spec.Rev20251125, Page: "basic/transports#resumability-and-redelivery", Says: "The server MAY use this header to replay messages that would have been sent after the last event ID, on the stream that was disconnected, and to resume the stream from that point. The server MUST NOT replay messages that would have been delivered on a different stream."},
		},
	},
	New: func() rule.Checker { return &misplacedResponseChecker{} },
}

// misplacedResponseChecker reports each of its two cases once a session.
type misplacedResponseChecker struct {
	onGET, onOtherPOST bool
	// early are responses that came before their request (no request had their
	// id yet), by id: a HAR places a stream's events at its entry's start, so the
	// events of a standalone GET opened before a call come before the call's
	// POST. They are judged when the request that claims them comes.
	early map[string]*carried
}

// maxEarly bounds the responses a session keeps waiting for their request (the
// session's orphan pairing keeps 256 for 64 frames: a response is claimed soon
// or never).
const maxEarly = 64

// carried is where a response travelled, as the rule judges it.
type carried struct {
	at          rule.Anchor
	line        int
	answers     spec.HTTPAnswers
	httpMethod  string
	lastEventID bool
	exchange    int
	where, path string
}

func (c *misplacedResponseChecker) Message(p *rule.Pass, m *session.Message) {
	if r := m.Request; m.Kind == frame.KindRequest && r != nil && r.Answered() && len(c.early) > 0 {
		if e := c.early[frame.IDKey(m.ID)]; e != nil && e.line == r.ResponseLine {
			delete(c.early, frame.IDKey(m.ID))
			c.judge(p, e, r, r.Method+" response id="+m.ID)
		}
		return
	}
	h := m.HTTP
	if h == nil || !h.InResponse || !m.Kind.IsResponse() || m.Dir != spec.S2C || m.Contract == nil {
		return
	}
	answers, known := spec.HTTPTransport(m.Revision(), h.Endpoint != "").Answers(h.Method)
	if !known {
		return
	}
	if m.Request == nil {
		if m.ID == "" || len(c.early) >= maxEarly || (c.onGET && c.onOtherPOST) {
			return
		}
		if c.early == nil {
			c.early = map[string]*carried{}
		}
		c.early[frame.IDKey(m.ID)] = &carried{at: kept(rule.At(m)), line: m.Line, answers: answers, httpMethod: strings.Clone(h.Method),
			lastEventID: h.LastEventID != "", exchange: h.Exchange, where: h.Where(), path: strings.Clone(h.Path)}
		return
	}
	c.judge(p, &carried{at: rule.At(m), line: m.Line, answers: answers, httpMethod: h.Method, lastEventID: h.LastEventID != "",
		exchange: h.Exchange, where: h.Where(), path: h.Path}, m.Request, rule.Describe(m))
}

// judge reports response what to request r, carried as e says, when its stream
// was not the request's.
func (c *misplacedResponseChecker) judge(p *rule.Pass, e *carried, r *session.Request, what string) {
	switch {
	case strings.EqualFold(e.httpMethod, http.MethodGet):
		if !e.answers.ResponsesOnResume || e.lastEventID || c.onGET {
			return
		}
		c.onGET = true
		p.Report(e.at, rule.Sprintf("the server sent the %s on the standalone GET stream (%s), which resumed no stream "+
			"(its GET carried no Last-Event-ID): a server must not send a JSON-RPC response there, and a client waiting on the "+
			"stream of the POST that carried the request (%s) may never see it",
			what, e.where, requestWhere(r)).By(spec.Server))
	case strings.EqualFold(e.httpMethod, http.MethodPost):
		if r.HTTPExchange == 0 || r.HTTPExchange == e.exchange || e.answers.RequestAnswer == nil || c.onOtherPOST {
			return
		}
		c.onOtherPOST = true
		p.ReportSeverity(rule.SeverityWarning, e.at, rule.Sprintf("the server sent the %s on the event stream of POST %s (%s), "+
			"not on that of the POST that carried the request (%s): a client that reads each request's response from its own "+
			"POST never sees it",
			what, e.path, e.where, requestWhere(r)).By(spec.Server))
	}
}

func (c *misplacedResponseChecker) End(*rule.Pass) {}

// requestWhere names the exchange that carried request r: its HAR entry, or a
// recording's exchange number.
func requestWhere(r *session.Request) string {
	switch {
	case r.Entry > 0:
		return "entry " + strconv.Itoa(r.Entry)
	case r.HTTPExchange > 0:
		return "exchange " + strconv.Itoa(r.HTTPExchange)
	}
	return "exchange not recorded"
}
