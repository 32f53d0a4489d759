package spec

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// HTTPAnswers is what the HTTP transport of one revision lets a server answer to
// one HTTP method at the MCP endpoint (basic/transports of that revision).
type HTTPAnswers struct {
	// Method is the request method: POST, GET or DELETE.
	Method string
	// Carried says what requests of the method carry: "a JSON-RPC message", "no
	// message (it opens the server's event stream)", "no message (it ends the session)".
	Carried string
	// Success lists the answers a server gives when it serves the request, as the
	// revision words them, to follow "answered with" ("an event stream (200,
	// text/event-stream)"). It is empty when the revision has nothing for the method
	// to serve (2026-07-28 has no standalone GET stream and no sessions): 405 Method
	// Not Allowed is then the only answer.
	Success string
	// MethodNotAllowed is set when 405 Method Not Allowed is an allowed answer: the
	// server need not offer what the method asks for (a GET stream, session deletion).
	MethodNotAllowed bool
	// EventStreamOnly is set when the only successful answer is a text/event-stream
	// response (GET from 2025-03-26).
	EventStreamOnly bool
	// Accept lists the media types the client must list in the request's Accept
	// header (nil when the transport prescribes none).
	Accept []string
	// RequestAnswer lists the media types a POST carrying a request may be answered
	// with, its response inside; InputAccepted is the status a POST carrying only
	// notifications and responses gets when the server accepts them. Both are unset
	// where the transport prescribes neither (HTTP+SSE: answers travel on the stream).
	RequestAnswer []string
	InputAccepted int
	// ResponsesOnResume is set when the stream the method opens may carry a
	// JSON-RPC response only when it resumes an earlier stream (a GET with
	// Last-Event-ID): Streamable HTTP's standalone GET stream, "The server MUST
	// NOT send a JSON-RPC response on the stream unless resuming a stream
	// associated with a previous client request".
	ResponsesOnResume bool
	// Page and Says are the specification section the facts come from, and what it says.
	Page string
	Says string
}

// Refuses reports whether status answers a request of this method with a refusal
// the revision does not allow for it: an error status (400 or more) other than an
// allowed 405. A refused request was not served: a POST's message was not processed,
// a GET opened no stream, a DELETE ended no session.
func (a HTTPAnswers) Refuses(status int) bool {
	if status < 400 {
		return false
	}
	return !(status == http.StatusMethodNotAllowed && a.MethodNotAllowed)
}

// The media types of Streamable HTTP's bodies.
const (
	JSONType        = "application/json"
	EventStreamType = "text/event-stream"
)

// postAccept is what a Streamable HTTP client must accept for a POST, and what a
// server may answer a request with: "The client MUST include an Accept header,
// listing both application/json and text/event-stream as supported content types";
// "the server MUST either return Content-Type: text/event-stream, to initiate an
// SSE stream, or Content-Type: application/json, to return one JSON object".
var postAccept = []string{JSONType, EventStreamType}

// Streamable HTTP (2025-03-26, 2025-06-18, 2025-11-25): one MCP endpoint; POST for
// every client message, an optional GET stream, session termination with DELETE.
var streamableHTTP = []HTTPAnswers{
	{
		Method: http.MethodPost, Carried: "a JSON-RPC message",
		Success: "200 with a JSON body or an event stream for a request; 202 Accepted for notifications and responses",
		Accept:  postAccept, RequestAnswer: postAccept, InputAccepted: http.StatusAccepted,
		Page: "basic/transports#sending-messages-to-the-server",
		Says: "If the server cannot accept the input it MUST return an HTTP error status code (e.g. 400 Bad Request): the message was not processed.",
	},
	{
		Method: http.MethodGet, Carried: "no message (it opens the server's event stream)",
		Success: "an event stream (200, text/event-stream)", MethodNotAllowed: true, EventStreamOnly: true,
		Accept: []string{EventStreamType}, ResponsesOnResume: true,
		Page: "basic/transports#listening-for-messages-from-the-server",
		Says: "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint.",
	},
	{
		Method: http.MethodDelete, Carried: "no message (it ends the session)",
		Success: "a 2xx status (the session is terminated)", MethodNotAllowed: true,
		Page: "basic/transports#session-management",
		Says: "Clients that no longer need a particular session SHOULD send an HTTP DELETE to the MCP endpoint with the Mcp-Session-Id header; the server MAY respond to this request with HTTP 405 Method Not Allowed, indicating that the server does not allow clients to terminate sessions.",
	},
}

// HTTP+SSE (2024-11-05): a GET opens the event stream that carries every server
// message (its first event names the POST endpoint); each client message is a POST.
var httpSSE = []HTTPAnswers{
	{
		Method: http.MethodPost, Carried: "a JSON-RPC message",
		Success: "a 2xx status (the answer travels on the event stream)",
		Page:    "basic/transports#http-with-sse",
		Says:    "Clients send messages as HTTP POST requests to the endpoint the server named; server messages are sent as SSE message events.",
	},
	{
		Method: http.MethodGet, Carried: "no message (it opens the event stream every server message travels on)",
		Success: "an event stream (200, text/event-stream) whose first event is endpoint", EventStreamOnly: true,
		Page: "basic/transports#http-with-sse",
		Says: "When a client connects, the server MUST send an endpoint event containing a URI for the client to use for sending messages.",
	},
}

// 2026-07-28 Streamable HTTP: stateless. POST carries every message; the standalone
// GET stream and protocol-level sessions (and so DELETE) are gone: a server answers
// them 405 (or not at all).
var statelessHTTP = []HTTPAnswers{
	{
		Method: http.MethodPost, Carried: "a JSON-RPC message",
		Success: "200 with a JSON body or an event stream for a request; 202 Accepted for notifications",
		Accept:  postAccept, RequestAnswer: postAccept, InputAccepted: http.StatusAccepted,
		Page: "basic/transports/streamable-http",
		Says: "A request whose headers disagree with its body is rejected with 400 Bad Request (-32020); an unsupported version with 400 (-32022): the message was not processed.",
	},
	{
		Method: http.MethodGet, Carried: "no message (the standalone GET stream was removed)",
		Success: "", MethodNotAllowed: true, // no stream to open: 405 is the only answer
		Page: "changelog",
		Says: "Removed: the standalone HTTP GET stream (server messages flow on subscriptions/listen responses).",
	},
	{
		Method: http.MethodDelete, Carried: "no message (protocol-level sessions were removed)",
		Success: "", MethodNotAllowed: true, // no session to terminate: 405 is the only answer
		Page: "changelog",
		Says: "Removed: the Mcp-Session-Id header and protocol-level sessions.",
	},
}

// Transport is an HTTP transport of MCP. The revision a session negotiates does not
// choose it: a client and server that negotiate 2024-11-05 may talk Streamable HTTP
// (the initialize POSTed to the MCP endpoint and answered there), and a server kept
// for old clients may serve HTTP+SSE to a session of 2025-03-26. Which one a session
// used is read from its exchanges (see HTTPTransport).
type Transport uint8

const (
	// TransportStreamableHTTP: one MCP endpoint, POST for every client message, an
	// optional GET stream and sessions (2025-03-26 to 2025-11-25).
	TransportStreamableHTTP Transport = iota
	// TransportHTTPSSE: 2024-11-05's HTTP+SSE, a GET stream whose endpoint event
	// names where to POST; every server message travels on the stream.
	TransportHTTPSSE
	// TransportStatelessHTTP: 2026-07-28's Streamable HTTP, without sessions or the
	// standalone GET stream.
	TransportStatelessHTTP
)

func (t Transport) String() string {
	switch t {
	case TransportHTTPSSE:
		return "HTTP+SSE (2024-11-05)"
	case TransportStatelessHTTP:
		return "Streamable HTTP (2026-07-28, stateless)"
	}
	return "Streamable HTTP"
}

// HTTPTransport is the transport of a session whose revision is rev ("": no
// handshake seen) and whose exchanges did (endpoint) or did not go to the POST
// endpoint an HTTP+SSE stream named: HTTP+SSE when they did, whatever the
// revision; else the Streamable HTTP of the revision's era.
func HTTPTransport(rev Revision, endpoint bool) Transport {
	switch {
	case endpoint:
		return TransportHTTPSSE
	case rev.Modern():
		return TransportStatelessHTTP
	}
	return TransportStreamableHTTP
}

// Answers returns what the transport allows as answers to method (GET, POST,
// DELETE; case-insensitive). ok is false for a method the transport does not use.
func (t Transport) Answers(method string) (HTTPAnswers, bool) {
	table := streamableHTTP
	switch t {
	case TransportHTTPSSE:
		table = httpSSE
	case TransportStatelessHTTP:
		table = statelessHTTP
	}
	for _, a := range table {
		if strings.EqualFold(a.Method, method) {
			return a, true
		}
	}
	return HTTPAnswers{}, false
}

// WellKnownPath reports whether an HTTP request path is a discovery document of the
// authorization spec (2025-03-26 on: /.well-known/oauth-protected-resource,
// /.well-known/oauth-authorization-server, /.well-known/openid-configuration, under
// any prefix) rather than the MCP endpoint. Clients probe them before they connect;
// 404 there is how a server without authorization answers, not a refused MCP request.
func WellKnownPath(path string) bool {
	return strings.Contains(path, "/.well-known/")
}

// MissingSessionRefusal reports whether status is what Streamable HTTP prescribes for
// a request without Mcp-Session-Id to a server that requires sessions: "Servers that
// require a session ID SHOULD respond to requests without an Mcp-Session-Id header
// (other than initialization) with HTTP 400 Bad Request" (basic/transports#session-
// management, 2025-03-26 to 2025-11-25): only that transport has such sessions.
func (t Transport) MissingSessionRefusal(status int) bool {
	return status == http.StatusBadRequest && t == TransportStreamableHTTP
}

// FallbackStatus reports whether status, refusing a client's first request of a
// connection (sent without a session), is one a server of the other HTTP
// transport refuses it with: 400 (a request that names none of its sessions),
// 404 (no such endpoint) or 405 (a method the URL does not serve). 2025-03-26's
// backwards-compatibility procedure falls back from an initialize POST to the
// HTTP+SSE GET when the POST "fails with an HTTP 4xx status code (e.g., 405 Method
// Not Allowed or 404 Not Found)"; 401 and 403 ask for authorization instead.
func FallbackStatus(status int) bool {
	switch status {
	case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
		return true
	}
	return false
}

// SSEEndpoint reads the data of an HTTP+SSE endpoint event, received on the stream
// a GET of streamURL opened ("When a client connects, the server MUST send an
// endpoint event containing a URI for the client to use for sending messages",
// 2024-11-05 basic/transports#http-with-sse). It returns the URI the client's
// POSTs carry (path and query, resolved against the stream's URL) and the key
// that names the session: the URI's sessionId query parameter (any case: the
// TypeScript SDK writes sessionId, the Go SDK sessionid), else the URI itself.
// ok is false when the data is no URI.
func SSEEndpoint(streamURL, data string) (uri, key string, ok bool) {
	base, err := url.Parse(streamURL)
	if err != nil {
		return "", "", false
	}
	u, err := base.Parse(strings.TrimSpace(data))
	if err != nil {
		return "", "", false
	}
	uri = u.RequestURI()
	for name, values := range u.Query() {
		if strings.EqualFold(name, "sessionId") && len(values) > 0 && values[0] != "" {
			return uri, values[0], true
		}
	}
	return uri, uri, true
}

// AcceptLists reports whether an Accept header lists the media type t by name
// (parameters and quality aside). A wildcard (*/*, application/*) does not count:
// the transport asks the client to list each type, and servers check for each by
// name (the TypeScript SDK's answers 406 to a POST that accepts */*).
func AcceptLists(accept, t string) bool {
	for part := range strings.SplitSeq(accept, ",") {
		media, _, _ := strings.Cut(part, ";")
		if strings.EqualFold(strings.TrimSpace(media), t) {
			return true
		}
	}
	return false
}

// EventStreamField reports whether a name is one of the fields of the event
// stream format (text/event-stream, WHATWG HTML 9.2): data, event, id, retry.
func EventStreamField(name string) bool {
	switch name {
	case "data", "event", "id", "retry":
		return true
	}
	return false
}

// StartsEventStream reports whether a body starts as an event stream does: with
// a comment, or a field of the format and its colon. It reads no more than the
// longest field name and its colon, whatever the body's length.
func StartsEventStream(body string) bool {
	if strings.HasPrefix(body, ":") {
		return true
	}
	field, _, ok := strings.Cut(body[:min(len(body), MaxEventStreamFieldPrefix)], ":")
	return ok && EventStreamField(field)
}

// MaxEventStreamFieldPrefix is how much of a body StartsEventStream reads: the
// longest field name ("retry") and its colon.
const MaxEventStreamFieldPrefix = len("retry:")

// NameHeaderParam is the member of a 2026-07-28 request's params that its
// Mcp-Name header repeats ("name" for tools/call and prompts/get, "uri" for
// resources/read), "" for a method without one.
func NameHeaderParam(method string) string {
	switch method {
	case "tools/call", "prompts/get":
		return "name"
	case "resources/read":
		return "uri"
	}
	return ""
}

// EncodeHeaderValue writes a value into an Mcp-Name header: as it is when it
// is printable ASCII, else =?base64?...?= (2026-07-28 streamable-http).
func EncodeHeaderValue(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
		}
	}
	return v
}

// DecodeHeaderValue undoes EncodeHeaderValue.
func DecodeHeaderValue(v string) string {
	if inner, ok := strings.CutPrefix(v, "=?base64?"); ok {
		if inner, ok = strings.CutSuffix(inner, "?="); ok {
			if b, err := base64.StdEncoding.DecodeString(inner); err == nil {
				return string(b)
			}
		}
	}
	return v
}
