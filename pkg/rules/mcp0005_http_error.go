package rules

import (
	"net/http"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// HTTPError reports HTTP requests at the MCP endpoint that the server refused with an
// error status the transport does not allow for their method (HTTP captures only):
// a POST carrying an MCP message, the GET that opens the server's event stream, the
// DELETE that ends a session.
var HTTPError = &rule.Rule{
	ID:       "MCP0005",
	Name:     "http-error",
	Severity: rule.SeverityError,
	Title:    "An HTTP request at the MCP endpoint (a POST carrying a message, the GET stream, a DELETE) was refused with an error status its method may not get",
	Anchor:   "the message the failed HTTP request carried, or the request itself when it carried none (a GET, a DELETE): its HAR entry or recorded exchange",
	Hint:     "read the status: 404 with Mcp-Session-Id means the session is gone (send a new initialize without the header), 400 means the request or its headers were rejected, 401/403 authorization, 406 the Accept header; a GET or DELETE the server does not offer must get 405",
	Doc: rule.Doc{
		Sees: "The response status of every HTTP request at the MCP endpoint in an HTTP capture (a HAR, or a recording of mcpsleuth " +
			"record --http, whose records carry each exchange's request and status), judged by what the session's transport allows " +
			"its method. The transport is read from the exchanges, not the revision: HTTP+SSE (2024-11-05) when they go to the " +
			"endpoint the session's event stream named, whatever revision was negotiated, else the Streamable HTTP of the revision's era. " +
			"On Streamable HTTP, a POST carrying an MCP message (a request, notification, response or batch) may not get a " +
			"status of 400 or more (the message was not processed); the GET that opens the server's event stream may get only an " +
			"event stream or 405 Method Not Allowed (from 2025-03-26: the server does not offer one); the DELETE that ends a session " +
			"may get a success or 405 (the server does not let clients end sessions); 2026-07-28 has neither the GET stream nor sessions, " +
			"so there a GET or a DELETE may get only 405, or no answer. The finding names the status, the request, its " +
			"Mcp-Session-Id and what the status means for MCP. A server/discover refused with a 4xx status is not judged: that is how " +
			"a dual-era client's probe of a legacy server ends before it falls back to initialize. An exchange on a stream with no " +
			"session open (a GET before any initialize) is not judged, nor a GET or DELETE without Mcp-Session-Id answered 400 (what " +
			"a server that requires sessions answers it), nor a message refused 400 for lacking the Mcp-Session-Id the server " +
			"assigned at initialization (MCP0010 reports that, naming the client) or for a session the server had ended (MCP0007: " +
			"404 is due), nor the authorization discovery documents under /.well-known/ (404 there " +
			"means the server has no authorization).",
		Why: "A message the server refused never took part in the session: a request answered 404 or 400 gets no JSON-RPC response, a " +
			"notification is lost. The status is often the whole diagnosis: 404 on a request with Mcp-Session-Id means the server " +
			"forgot the session (it expired, restarted, or was deleted), and the client must start again with initialize; 400 is a " +
			"malformed body or a bad MCP-Protocol-Version or (2026-07-28) a header that disagrees with the body; 406 is an Accept header " +
			"that does not list both application/json and text/event-stream. A GET refused with anything but 405 (a 400 for a protocol version " +
			"the server did not expect, a 404) means the event stream was never opened: server requests and notifications not tied to " +
			"a request (list_changed, logging, sampling) have nowhere to go, and the client is not told that it will miss them. A DELETE " +
			"refused with an error means the session was not ended: the server keeps its state until it expires.",
		Fix: "On 404 for a request with Mcp-Session-Id, have the client send a new initialize without Mcp-Session-Id and carry on in the " +
			"new session (and check why the server dropped the old one: a restart, an idle timeout, another instance behind a load " +
			"balancer). On 400, compare the request's headers and body with what the server expects (the response body usually says). " +
			"On 401/403, fix the authorization; on 5xx, look at the server's log for the failure. A server that does not offer the GET " +
			"stream or session deletion answers them 405 Method Not Allowed, never 400 or 404; a server that rejects a GET for its " +
			"MCP-Protocol-Version must accept every revision it negotiates (mcp-lite 0.10 accepts only 2025-06-18 on GET, after " +
			"negotiating 2025-03-26).",
		Bad: `POST /mcp   Mcp-Session-Id: 1868a90c...        ->  404 Not Found
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}
GET /mcp    Mcp-Session-Id: 9f2e...   MCP-Protocol-Version: 2025-03-26
            ->  400 Bad Request: Protocol version mismatch`,
		Good: `POST /mcp   (no Mcp-Session-Id)                 ->  200 (new Mcp-Session-Id: 9f2e...)
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{...}}
POST /mcp   Mcp-Session-Id: 9f2e...             ->  200
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}
GET /mcp    Mcp-Session-Id: 9f2e...   MCP-Protocol-Version: 2025-03-26
            ->  200 text/event-stream (or 405 Method Not Allowed: no stream offered)`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#listening-for-messages-from-the-server", Says: "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint."},
			{Revision: spec.Rev20250326, Page: "basic/transports#session-management", Says: "The server MAY respond to [a DELETE with the Mcp-Session-Id header] with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to terminate sessions."},
			{Revision: spec.Rev20250326, Page: "basic/transports#session-management", Says: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found. When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached."},
			{Revision: spec.Rev20251125, Page: "basic/transports#sending-messages-to-the-server", Says: "The client MUST include an Accept header listing both application/json and text/event-stream; if the server cannot accept a POSTed request it MUST return an HTTP error status (e.g. 400 Bad Request)."},
			{Revision: spec.Rev20260728, Page: "basic/transports/streamable-http", Says: "A request whose MCP-Protocol-Version, Mcp-Method or Mcp-Name headers disagree with its body is rejected with 400 Bad Request and -32020 (HeaderMismatch)."},
			{Revision: spec.Rev20260728, Page: "basic/versioning", Says: "Dual-era clients SHOULD probe with server/discover first and fall back to initialize on any non-modern error; an unsupported version is answered with UnsupportedProtocolVersionError (-32022), HTTP 400."},
		},
	},
	New: func() rule.Checker { return &httpErrorChecker{} },
}

// httpErrorChecker judges each HTTP exchange of a session once its status is known.
type httpErrorChecker struct {
	exchanges exchangeJoin
}

func (c *httpErrorChecker) Message(p *rule.Pass, m *session.Message) {
	c.exchanges.message(m, func(h *frame.HTTP, side exchangeSide) { c.judge(p, h, side) })
}

func (c *httpErrorChecker) Exchange(p *rule.Pass, e *session.Exchange) {
	c.exchanges.exchange(e, func(h *frame.HTTP, side exchangeSide) { c.judge(p, h, side) })
}

func (c *httpErrorChecker) End(*rule.Pass) {}

// judge reports the exchange if its status is a refusal its method may not get.
func (c *httpErrorChecker) judge(p *rule.Pass, h *frame.HTTP, side exchangeSide) {
	if h.Status < 400 {
		return
	}
	transport := spec.HTTPTransport(side.anchor.Revision, h.Endpoint != "")
	answers, known := transport.Answers(h.Method)
	switch {
	case !known && h.Method != "":
		return // not a method the transport uses: not MCP traffic
	case spec.WellKnownPath(h.Path):
		return // authorization discovery (404: no authorization), not the MCP endpoint
	case side.what == "" && h.SessionID == "" && transport.MissingSessionRefusal(h.Status):
		// A GET (or DELETE) without Mcp-Session-Id, answered as a server that
		// requires sessions answers one (mcp-remote's probe GET before it
		// initializes): there was no session to open a stream for, and nothing
		// the request carried was lost. A message refused so is still reported.
		return
	case side.ended && h.SessionID != "" && h.Status == http.StatusBadRequest:
		// A request for a session the server had ended, refused 400 where 404
		// is due: MCP0007 reports it, naming the server.
		return
	case side.unassigned && h.Status == http.StatusBadRequest:
		// The message lacked the session id the server assigned, and the
		// server refused it as one that requires sessions does: MCP0010
		// reports the cause, naming the client.
		return
	case known && !answers.Refuses(h.Status):
		return // 405 for a GET stream or a DELETE the server does not offer
	case side.initialize && h.SessionID == "" && spec.FallbackStatus(h.Status) &&
		spec.AcceptLists(h.Accept, spec.JSONType) && spec.AcceptLists(h.Accept, spec.EventStreamType):
		// An initialize POSTed without a session, refused 400, 404 or 405: as the
		// server of the old HTTP+SSE transport refuses it, on which the
		// backwards-compatibility procedure has the client GET the URL for the
		// endpoint event next. MCP0006 reports the mismatch when nothing follows.
		return
	case side.discover && h.Status < 500:
		// A dual-era client's probe: a legacy server refuses it (400, 404, 405) and
		// the client falls back to initialize, as 2026-07-28 tells it to; a modern
		// server refuses an unsupported version with 400 and -32022.
		return
	}
	text := h.StatusText
	if text == "" {
		text = http.StatusText(h.Status)
	}
	sessionID := rule.Text("")
	if h.SessionID != "" {
		sessionID = rule.Sprintf(" with Mcp-Session-Id %s", rule.As(rule.ValueCredential, h.SessionID))
	}
	party := refusalParty(h, side.what != "")
	if side.what != "" {
		p.Report(side.anchor, rule.Sprintf("HTTP %d %s for %s %s (%s) carrying %s%s: %s",
			h.Status, text, h.Method, h.Path, h.Where(), side.what, sessionID, statusMeaning(h, side)).By(party))
		return
	}
	p.Report(side.anchor, rule.Sprintf("HTTP %d %s for %s %s (%s)%s: %s",
		h.Status, text, orUnrecorded(h.Method), h.Path, h.Where(), sessionID, refusalMeaning(h, side.anchor.Revision, answers, known, party)).By(party))
}

// refusalParty is the side at fault for a refusal, where the status and the
// request tell: the server for a failure of its own (5xx), and for a 400 to a
// well-formed GET or DELETE of a session (a GET with the session's id, Accept:
// text/event-stream and MCP-Protocol-Version gets an event stream or 405; a DELETE
// with the id gets 2xx, 405, or 404 for a session already gone); the client for
// what it sent (a malformed message, credentials, the Accept or Content-Type
// header, a second stream, a GET or DELETE without the session's id or without
// Accept: text/event-stream). A 404 (the server may end a session at any time; or
// a wrong URL), a rate limit and a 400 for a GET without MCP-Protocol-Version
// name no one.
func refusalParty(h *frame.HTTP, carried bool) spec.Side {
	switch {
	case h.Status >= 500:
		return spec.Server
	case h.Status == http.StatusUnauthorized, h.Status == http.StatusForbidden, h.Status == http.StatusNotAcceptable,
		h.Status == http.StatusUnsupportedMediaType, h.Status == http.StatusConflict:
		return spec.Client
	case h.Status != http.StatusBadRequest:
		return 0
	case carried:
		return spec.Client
	case strings.EqualFold(h.Method, http.MethodDelete):
		if h.SessionID == "" {
			return spec.Client
		}
		return spec.Server
	case strings.EqualFold(h.Method, http.MethodGet):
		switch {
		case !spec.AcceptLists(h.Accept, spec.EventStreamType):
			return spec.Client
		case h.SessionID != "" && h.ProtocolVersion != "":
			return spec.Server
		}
	}
	return 0
}

func orUnrecorded(method string) string {
	if method == "" {
		return "a request (not recorded)"
	}
	return method
}

// statusMeaning says what an error status means for a request that carried an MCP message.
func statusMeaning(h *frame.HTTP, side exchangeSide) string {
	lost := "the server did not process the message"
	if side.request {
		lost = "the request gets no JSON-RPC response"
	}
	return statusCause(h, side.anchor.Revision) + "; " + lost
}

// refusalMeaning says what an error status means for a request that carried no
// message (a GET, a DELETE), and what its method may be answered with in rev; party
// is the side at fault.
func refusalMeaning(h *frame.HTTP, rev spec.Revision, answers spec.HTTPAnswers, known bool, party spec.Side) string {
	cause := statusCause(h, rev)
	if party == spec.Server && h.Status == http.StatusBadRequest {
		cause = "the request was well-formed (it carried the session's Mcp-Session-Id"
		if strings.EqualFold(h.Method, http.MethodGet) {
			cause += ", Accept: text/event-stream and MCP-Protocol-Version"
		}
		cause += "), so 400 Bad Request is no answer for it"
	}
	if !known {
		return cause + "; the server did not serve the request"
	}
	if answers.Success == "" {
		// The revision has nothing for the method to serve (2026-07-28): a 400 or
		// 404 says no more than that, a 401 or a 5xx still says why.
		why := cause + "; "
		if h.Status == http.StatusBadRequest || h.Status == http.StatusNotFound {
			why = ""
		}
		switch answers.Method {
		case http.MethodGet:
			return why + string(rev) + " has no standalone GET stream (server messages travel on subscriptions/listen responses), so a server answers a GET with 405 Method Not Allowed or not at all"
		case http.MethodDelete:
			return why + string(rev) + " has no sessions to terminate, so a server answers a DELETE with 405 Method Not Allowed or not at all"
		}
		return cause + "; the server did not serve the request"
	}
	allowed := "with " + answers.Success
	if answers.MethodNotAllowed {
		allowed += " or with 405 Method Not Allowed"
	}
	switch answers.Method {
	case http.MethodGet:
		lost := "server requests and notifications not tied to a request (list_changed, logging, sampling) have nowhere to go"
		if !answers.MethodNotAllowed {
			lost = "no server message can arrive, not even a response: they all travel on that stream" // HTTP+SSE
		}
		return cause + "; no event stream was opened, so " + lost + ". A GET may only be answered " + allowed
	case http.MethodDelete:
		return cause + "; the session was not terminated: the server keeps its state until it expires. A DELETE may only be answered " + allowed
	}
	return cause + "; the server did not process the message"
}

// statusCause says what an error status means for an MCP request under rev ("":
// no handshake seen, so either era's causes).
func statusCause(h *frame.HTTP, rev spec.Revision) string {
	switch {
	case h.Status == http.StatusNotFound && h.SessionID != "":
		return "the server no longer knows this session (it expired, the server restarted, or it was deleted), and the client must start a new session with an initialize request without Mcp-Session-Id"
	case h.Status == http.StatusNotFound && rev.Modern():
		return "no MCP endpoint at this path, or a method the server does not implement"
	case h.Status == http.StatusNotFound && rev != "":
		return "no MCP endpoint at this path"
	case h.Status == http.StatusNotFound:
		return "no MCP endpoint at this path (or, in 2026-07-28, a method the server does not implement)"
	case h.Status == http.StatusBadRequest && rev.Modern():
		return "the server rejected the request as malformed (its body, its MCP-Protocol-Version or Accept header, or headers that disagree with the body: -32020)"
	case h.Status == http.StatusBadRequest && rev != "":
		return "the server rejected the request as malformed (its body, its MCP-Protocol-Version or Accept header, or a missing or unknown session)"
	case h.Status == http.StatusBadRequest:
		return "the server rejected the request as malformed (its body, its MCP-Protocol-Version or Accept header, a missing or unknown session, or in 2026-07-28 headers that disagree with the body: -32020)"
	case h.Status == http.StatusUnauthorized:
		return "the request carried no valid credentials (see the WWW-Authenticate challenge)"
	case h.Status == http.StatusForbidden:
		return "the credentials lack the permission or scope this request needs"
	case h.Status == http.StatusMethodNotAllowed:
		return "the endpoint does not accept " + h.Method
	case h.Status == http.StatusNotAcceptable:
		return "the Accept header must list both application/json and text/event-stream"
	case h.Status == http.StatusConflict && !rev.Modern():
		return "the server refused a second stream for this session (one GET stream at a time)"
	case h.Status == http.StatusUnsupportedMediaType:
		return "the body must be sent as Content-Type: application/json"
	case h.Status == http.StatusTooManyRequests:
		return "the server is rate-limiting this client"
	case h.Status >= 500:
		return "the server failed while handling it (see its log)"
	}
	return "the server refused the request"
}
