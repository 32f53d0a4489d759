package rules

import (
	"net/http"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TransportMismatch reports a connection that opened the way one HTTP transport
// opens one, was refused as a server of the other transport refuses it, and went
// no further (HTTP captures only).
var TransportMismatch = &rule.Rule{
	ID:       "MCP0006",
	Name:     "transport-mismatch",
	Severity: rule.SeverityError,
	Title:    "A client opened its connection as one HTTP transport does (HTTP+SSE's GET for an event stream, or Streamable HTTP's initialize POST), the server refused it as a server of the other transport does, and no session followed: the two speak different HTTP transports",
	Anchor:   "the refused GET or initialize POST (its HAR entry or recorded exchange)",
	Hint:     "configure the client for the transport the server speaks (in most clients the server's type \"http\" or \"streamable-http\" for Streamable HTTP, \"sse\" for HTTP+SSE), have it follow the spec's backwards-compatibility procedure, or put the server behind a bridge that serves the client's transport",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http), in two directions. An HTTP+SSE client against a " +
			"Streamable HTTP server: a GET that asks for an event stream (Accept: text/event-stream) without Mcp-Session-Id, " +
			"answered 400, 404 or 405, after which no session starts before the capture ends: no initialize POST, no modern request, " +
			"nothing. That GET is how a client of the 2024-11-05 HTTP+SSE transport opens its session (it waits for the endpoint event " +
			"the stream must start with); a server that speaks only Streamable HTTP answers it as a request without a session (400, " +
			"as servers that require sessions should), as a GET stream it does not offer (405), or not at all (404). A GET probe " +
			"that an initialize follows (mcp-remote, and clients that try the GET stream before they initialize) is not judged, nor " +
			"a GET refused on a session that has a handshake (MCP0005 judges those). The reverse, a Streamable HTTP client against " +
			"an HTTP+SSE server: the session's last initialize (or server/discover probe) POSTed without Mcp-Session-Id and with an " +
			"Accept header that names both JSON and event streams, answered 400, 404 or 405 with no JSON-RPC message in reply (a " +
			"Streamable HTTP server that refuses an initialize words it as a JSON-RPC error), after which no session starts before " +
			"the capture ends: the client never tried the GET for the endpoint event that the backwards-compatibility procedure " +
			"tries next. An HTTP+SSE server takes POSTs only at the endpoint its stream names, so it refuses a POST to its stream's " +
			"URL (405), to a path it does not serve (404), or as one that names none of its sessions (400, the Go SDK's \"sessionid " +
			"must be provided\"). The finding names the status and what it means, and the side at fault: the client, configured " +
			"for the other transport.",
		Why: "The connection \"opens and never completes a handshake\": the client reports a bare HTTP error (\"SSE error: Non-200 " +
			"status code (400)\", \"sending initialize: Bad Request\") or times out, and nothing in either side's log says that the " +
			"two were never speaking the same transport. It looks like a capability or authorization problem and is neither: no " +
			"message was exchanged at all, so no capability rule has anything to judge. Streamable HTTP replaced HTTP+SSE in " +
			"2025-03-26; servers written since serve only the new transport unless they keep the old endpoints for old clients, " +
			"many client configurations still say \"sse\", and servers written before still serve only HTTP+SSE.",
		Fix: "Configure the client for the transport the server speaks: for a Streamable HTTP server, the server's URL with type " +
			"\"http\" (Claude Code, VS Code), \"streamable-http\", or the SDK's Streamable HTTP client transport; for an HTTP+SSE server, " +
			"type \"sse\" or the SDK's SSE client transport. A client that must serve both should follow the backwards-compatibility " +
			"procedure: POST initialize to the URL first, and fall back to the GET for the endpoint event only when that POST fails " +
			"with 400, 404 or 405. If the client cannot change, run the server behind a bridge that serves the client's transport " +
			"(supergateway), or keep the old transport's endpoints in the server.",
		Bad: `GET /mcp   Accept: text/event-stream   (no Mcp-Session-Id)
  ->  400 Bad Request: No valid session ID provided
(the capture ends: no initialize was ever POSTed)`,
		Good: `POST /mcp  Accept: application/json, text/event-stream
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{...}}
  ->  200 (Mcp-Session-Id: 9f2e...)`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20241105, Page: "basic/transports#http-with-sse", Says: "When a client connects, the server MUST send an endpoint event containing a URI for the client to use for sending messages."},
			{Revision: spec.Rev20250326, Page: "basic/transports#backwards-compatibility", Says: "Clients wanting to support older servers should attempt to POST an InitializeRequest to the server URL; if it fails with 400, 404 or 405, issue a GET expecting an SSE stream whose first event is endpoint."},
			{Revision: spec.Rev20250326, Page: "basic/transports#session-management", Says: "Servers that require a session ID SHOULD respond to requests without an Mcp-Session-Id header (other than initialization) with HTTP 400 Bad Request."},
		},
	},
	New: func() rule.Checker { return &transportMismatchChecker{} },
}

// transportMismatchChecker judges the session's refused opening: a GET for the
// HTTP+SSE stream the tracker found nothing followed (Session.Unconnected), or
// the last initialize or server/discover POSTed without a session.
type transportMismatchChecker struct {
	opening *session.Request
	// h is where the opening travelled (a copy); spoke is set once the server
	// answered on that exchange with a JSON-RPC message (a refusal a Streamable
	// HTTP server words as a JSON-RPC error, its id null or not).
	h     frame.HTTP
	at    rule.Anchor
	spoke bool
}

func (c *transportMismatchChecker) Message(p *rule.Pass, m *session.Message) {
	h := m.HTTP
	switch {
	case h == nil || m.Batch != nil:
	case m.Kind == frame.KindRequest && m.Dir == spec.C2S && (m.Method == "initialize" || m.Method == "server/discover") &&
		strings.EqualFold(h.Method, http.MethodPost) && h.SessionID == "" && !h.InResponse && m.Request != nil:
		c.opening, c.h, c.at, c.spoke = m.Request, *h, kept(rule.At(m)), false
		c.h.Path, c.h.Accept = strings.Clone(h.Path), strings.Clone(h.Accept)
	case c.opening != nil && m.Dir == spec.S2C && m.Kind.IsResponse() && h.InResponse && h.Entry == c.h.Entry && h.Exchange == c.h.Exchange:
		c.spoke = true
	}
}

func (c *transportMismatchChecker) End(p *rule.Pass) {
	if a := p.Session.Unconnected; a != nil {
		refusedGET(p, a)
		return
	}
	r := c.opening
	if r == nil || r.Answered() || c.spoke || !p.Session.NoneAfter() || p.Session.EndedBy != 0 || p.Session.DeletedLine != 0 ||
		!spec.AcceptLists(c.h.Accept, spec.JSONType) || !spec.AcceptLists(c.h.Accept, spec.EventStreamType) {
		return // answered, a server that speaks JSON-RPC, a client that went on, or an Accept header MCP0009 judges
	}
	if !spec.FallbackStatus(r.HTTPStatus) {
		return
	}
	var what string
	switch r.HTTPStatus {
	case http.StatusMethodNotAllowed:
		what = "a server that serves only the HTTP+SSE transport (2024-11-05) answers a POST to its stream's URL so"
	case http.StatusNotFound:
		what = "nothing serves Streamable HTTP at this path: an HTTP+SSE (2024-11-05) server takes POSTs only at the endpoint its GET stream names (or the URL is wrong)"
	default:
		what = "a server that speaks HTTP+SSE (2024-11-05) refuses a POST that names none of its sessions so, where a Streamable HTTP server answers an initialize"
	}
	p.Report(c.at, rule.Sprintf("POST %s (%s) carried %s without a session, as a Streamable HTTP client opens its connection, and got "+
		"%d %s with no JSON-RPC message in reply: %s. No session followed before the capture ended (no GET for the HTTP+SSE "+
		"endpoint event, which the backwards-compatibility procedure tries next), so the connection never reached a handshake: "+
		"configure the client for HTTP+SSE (type \"sse\"), or have it fall back as that procedure says",
		c.h.Path, c.h.Where(), r.Method+" id="+c.at.ID, r.HTTPStatus, http.StatusText(r.HTTPStatus), what).By(spec.Client))
}

// refusedGET reports a GET for an event stream without a session, refused, that
// nothing followed.
func refusedGET(p *rule.Pass, a *session.StreamRefusal) {
	h := a.HTTP
	var what string
	switch h.Status {
	case http.StatusMethodNotAllowed:
		what = "a server that offers no GET stream answers it so: the server speaks Streamable HTTP, where a session starts with an initialize POST"
	case http.StatusNotFound:
		what = "no HTTP+SSE endpoint at this path: the server speaks Streamable HTTP (or the URL is wrong)"
	default:
		what = "a Streamable HTTP server that requires sessions answers a request without one so: the server speaks Streamable HTTP, where a session starts with an initialize POST"
	}
	text := h.StatusText
	if text == "" {
		text = http.StatusText(h.Status)
	}
	at := rule.Anchor{Line: a.Line, Entry: a.Entry, Time: a.Time, Dir: spec.C2S, Method: ""}
	p.Report(at, rule.Sprintf("GET %s (%s) asked for an event stream without a session, as an HTTP+SSE (2024-11-05) client opens its connection, "+
		"and got %d %s: %s. No session followed before the capture ended, so the connection never reached a handshake: configure "+
		"the client for Streamable HTTP (type \"http\" in Claude Code and VS Code), or put the server behind a bridge that serves HTTP+SSE",
		h.Path, h.Where(), h.Status, text, what).By(spec.Client))
}
