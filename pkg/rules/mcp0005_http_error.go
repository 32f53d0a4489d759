package rules

import (
	"net/http"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// HTTPError reports HTTP requests carrying an MCP message that the server answered
// with an error status (HTTP captures only).
var HTTPError = &rule.Rule{
	ID:       "MCP0005",
	Name:     "http-error",
	Severity: rule.SeverityError,
	Title:    "An HTTP request carrying an MCP message was answered with an error status (400, 404 for an expired session, ...)",
	Anchor:   "the message the failed HTTP request carried (its HAR entry)",
	Hint:     "read the status: 404 with Mcp-Session-Id means the session is gone (send a new initialize without the header), 400 means the request or its headers were rejected, 401/403 authorization, 406 the Accept header",
	Doc: rule.Doc{
		Sees: "The response status of every HTTP request whose body carried an MCP message (a request, notification, response or batch) in " +
			"an HTTP capture (HAR). A status of 400 or more means the server did not process the message: the finding names the status, " +
			"the request, its Mcp-Session-Id and what the status means for MCP. GET and DELETE requests carry no message and are not " +
			"judged (a 405 there is allowed: a server need not offer a GET stream or session deletion), nor is a server/discover " +
			"refused with a 4xx status: that is how a dual-era client's probe of a legacy server ends before it falls back to initialize.",
		Why: "A message the server refused never took part in the session: a request answered 404 or 400 gets no JSON-RPC response, a " +
			"notification is lost. The status is often the whole diagnosis: 404 on a request with Mcp-Session-Id means the server " +
			"forgot the session (it expired, restarted, or was deleted), and the client must start again with initialize; 400 is a " +
			"malformed body or a bad MCP-Protocol-Version or (2026-07-28) a header that disagrees with the body; 406 is an Accept header " +
			"that does not list both application/json and text/event-stream.",
		Fix: "On 404 for a request with Mcp-Session-Id, have the client send a new initialize without Mcp-Session-Id and carry on in the " +
			"new session (and check why the server dropped the old one: a restart, an idle timeout, another instance behind a load " +
			"balancer). On 400, compare the request's headers and body with what the server expects (the response body usually says). " +
			"On 401/403, fix the authorization; on 5xx, look at the server's log for the failure.",
		Bad: `POST /mcp   Mcp-Session-Id: 1868a90c...        ->  404 Not Found
{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		Good: `POST /mcp   (no Mcp-Session-Id)                 ->  200 (new Mcp-Session-Id: 9f2e...)
{"jsonrpc":"2.0","id":0,"method":"initialize","params":{...}}
POST /mcp   Mcp-Session-Id: 9f2e...             ->  200
{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#session-management", Says: "The server MAY terminate the session at any time, after which it MUST respond to requests containing that session ID with HTTP 404 Not Found. When a client receives HTTP 404 in response to a request containing an Mcp-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached."},
			{Revision: spec.Rev20251125, Page: "basic/transports#sending-messages-to-the-server", Says: "The client MUST include an Accept header listing both application/json and text/event-stream; if the server cannot accept a POSTed request it MUST return an HTTP error status (e.g. 400 Bad Request)."},
			{Revision: spec.Rev20260728, Page: "basic/transports/streamable-http", Says: "A request whose MCP-Protocol-Version, Mcp-Method or Mcp-Name headers disagree with its body is rejected with 400 Bad Request and -32020 (HeaderMismatch)."},
			{Revision: spec.Rev20260728, Page: "basic/versioning", Says: "Dual-era clients SHOULD probe with server/discover first and fall back to initialize on any non-modern error; an unsupported version is answered with UnsupportedProtocolVersionError (-32022), HTTP 400."},
		},
	},
	New: rule.PerMessage(checkHTTPStatus),
}

func checkHTTPStatus(p *rule.Pass, m *session.Message) {
	h := m.HTTP
	if h == nil || h.InResponse || m.Batch != nil || h.Status < 400 {
		return
	}
	if m.Kind == frame.KindRequest && m.Method == "server/discover" && h.Status < 500 {
		// A dual-era client's probe: a legacy server refuses it (400, 404, 405) and
		// the client falls back to initialize, as 2026-07-28 tells it to; a modern
		// server refuses an unsupported version with 400 and -32022.
		return
	}
	text := h.StatusText
	if text == "" {
		text = http.StatusText(h.Status)
	}
	session := rule.Text("")
	if h.SessionID != "" {
		session = rule.Sprintf(" with Mcp-Session-Id %s", rule.As(rule.ValueCredential, h.SessionID))
	}
	what := rule.Describe(m)
	if m.Kind == frame.KindInvalid {
		what = "a body that is not a JSON-RPC message"
	}
	p.Report(rule.At(m), rule.Sprintf("HTTP %d %s for %s %s (entry %d) carrying %s%s: %s",
		h.Status, text, h.Method, h.Path, h.Entry, what, session, statusMeaning(h, m)))
}

// statusMeaning says what an error status means for an MCP request.
func statusMeaning(h *frame.HTTP, m *session.Message) string {
	lost := "the server did not process the message"
	if m.Kind == frame.KindRequest {
		lost = "the request gets no JSON-RPC response"
	}
	switch {
	case h.Status == http.StatusNotFound && h.SessionID != "":
		return "the server no longer knows this session (it expired, the server restarted, or it was deleted); " + lost +
			", and the client must start a new session with an initialize request without Mcp-Session-Id"
	case h.Status == http.StatusNotFound:
		return "no MCP endpoint at this path (or, in 2026-07-28, a method the server does not implement); " + lost
	case h.Status == http.StatusBadRequest:
		return "the server rejected the request as malformed (its body, its MCP-Protocol-Version, a missing or unknown session, or in 2026-07-28 headers that disagree with the body: -32020); " + lost
	case h.Status == http.StatusUnauthorized:
		return "the request carried no valid credentials (see the WWW-Authenticate challenge); " + lost
	case h.Status == http.StatusForbidden:
		return "the credentials lack the permission or scope this request needs; " + lost
	case h.Status == http.StatusMethodNotAllowed:
		return "the endpoint does not accept " + h.Method + "; " + lost
	case h.Status == http.StatusNotAcceptable:
		return "the Accept header must list both application/json and text/event-stream; " + lost
	case h.Status == http.StatusUnsupportedMediaType:
		return "the body must be sent as Content-Type: application/json; " + lost
	case h.Status == http.StatusTooManyRequests:
		return "the server is rate-limiting this client; " + lost
	case h.Status >= 500:
		return "the server failed while handling it (see its log); " + lost
	}
	return lost
}
