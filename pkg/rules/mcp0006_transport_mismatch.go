package rules

import (
	"net/http"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TransportMismatch reports a connection that opened the way the HTTP+SSE
// transport opens one, was refused, and went no further (HTTP captures only).
var TransportMismatch = &rule.Rule{
	ID:       "MCP0006",
	Name:     "transport-mismatch",
	Severity: rule.SeverityError,
	Title:    "A client opened its connection as the HTTP+SSE transport does (a GET for an event stream, no session), the server refused it, and no session followed: the two speak different HTTP transports",
	Anchor:   "the refused GET (its HAR entry or recorded exchange)",
	Hint:     "configure the client for Streamable HTTP (in most clients the server's type \"http\" or \"streamable-http\" rather than \"sse\"), or put the server behind a bridge that serves the HTTP+SSE transport",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http): a GET that asks for an event stream " +
			"(Accept: text/event-stream) without Mcp-Session-Id, answered 400, 404 or 405, after which no session starts before " +
			"the capture ends: no initialize POST, no modern request, nothing. That GET is how a client of the 2024-11-05 HTTP+SSE " +
			"transport opens its session (it waits for the endpoint event the stream must start with); a server that speaks only " +
			"Streamable HTTP answers it as a request without a session (400, as servers that require sessions should), as a GET " +
			"stream it does not offer (405), or not at all (404). A GET probe that an initialize follows (mcp-remote, and clients " +
			"that try the GET stream before they initialize) is not judged, nor a GET refused on a session that has a handshake " +
			"(MCP0005 judges those). The finding names the status and what it means, and the side at fault: the client, configured " +
			"for the other transport.",
		Why: "The connection \"opens and never completes a handshake\": the client reports a bare HTTP error (\"SSE error: Non-200 " +
			"status code (400)\") or times out, and nothing in either side's log says that the two were never speaking the same " +
			"transport. It looks like a capability or authorization problem and is neither: no message was exchanged at all, so " +
			"no capability rule has anything to judge. Streamable HTTP replaced HTTP+SSE in 2025-03-26; servers written since " +
			"serve only the new transport unless they keep the old endpoints for old clients, while many client configurations " +
			"still say \"sse\".",
		Fix: "Configure the client for Streamable HTTP: the server's URL with type \"http\" (Claude Code, VS Code), \"streamable-http\", " +
			"or the SDK's Streamable HTTP client transport instead of its SSE transport. A client that must serve both should follow the " +
			"backwards-compatibility procedure: POST initialize to the URL first, and fall back to the GET for the endpoint event only when " +
			"that POST fails with 400, 404 or 405. If the client cannot change, run the server behind a bridge that serves HTTP+SSE " +
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
	New: func() rule.Checker {
		return rule.Funcs{OnEnd: func(p *rule.Pass) {
			a := p.Session.Unconnected
			if a == nil {
				return
			}
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
				"and got %d %s: %s. No session followed before the capture ended, so the connection never reached a handshake",
				h.Path, h.Where(), h.Status, text, what).By(spec.Client))
		}}
	},
}
