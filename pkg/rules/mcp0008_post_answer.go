package rules

import (
	"net/http"
	"slices"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// PostAnswer reports a server that accepted a client's POST with an answer
// Streamable HTTP does not allow for what the POST carried: a request answered
// without a body its response could travel in, notifications and responses
// accepted with a status other than 202.
var PostAnswer = &rule.Rule{
	ID:       "MCP0008",
	Name:     "post-answer",
	Severity: rule.SeverityError,
	Title:    "The server accepted a POST with an answer Streamable HTTP does not allow for what it carried: a request answered without a JSON or event-stream body, notifications or responses answered other than 202 Accepted",
	Anchor:   "the client's message whose POST got the answer",
	Hint:     "answer a POST carrying a request with Content-Type application/json (one JSON object: the response) or text/event-stream (the response inside); answer a POST of notifications or responses 202 Accepted with no body",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http) of Streamable HTTP sessions (2025-03-26 on, and a " +
			"2024-11-05 session over Streamable HTTP; not the HTTP+SSE transport, whose answers travel on its stream): each POST the " +
			"server accepted (2xx) with what it carried. A POST carrying a request answered 202 Accepted or 204 No Content, or with a " +
			"Content-Type other than application/json and text/event-stream (text/plain, text/html), or with a body framed otherwise " +
			"than its Content-Type says (labelled text/event-stream and holding one JSON object, labelled application/json and " +
			"holding events; mcpsleuth reads the messages in it all the same): the response has no body a client reads it from (an error). A POST carrying only notifications or responses answered 200 or another 2xx instead " +
			"of 202 Accepted (a warning). Each is reported once a session, at the first POST so answered, naming the server. " +
			"Refusals (4xx, 5xx) are MCP0005's; a POST whose body was not recorded is not judged.",
		Why: "A client reads a POST's answer by its status and Content-Type. A request answered 202, or with a body labelled text/plain, " +
			"leaves the client waiting for a response that never comes: the call times out, though the server may have done the work " +
			"(and the capture may even show the JSON). A notification answered 200 looks harmless, but clients key behaviour on the 202: " +
			"the TypeScript SDK client opens its GET stream for server notifications only after a 202 for notifications/initialized, so " +
			"a server that answers 200 never gets its list_changed or log messages through.",
		Fix: "Server: for a POST holding a request, answer Content-Type application/json with the response, or text/event-stream with the " +
			"response among the stream's events; for a POST holding only notifications or responses, answer 202 Accepted with no body " +
			"(or an HTTP error status if you cannot accept them). Most SDK transports do this; hand-written handlers and proxies that " +
			"rewrite responses are where it goes wrong.",
		Bad: `POST /mcp  notifications/initialized   ->  200 OK, Content-Type: application/json, body {}
POST /mcp  tools/call id=2              ->  200 OK, Content-Type: text/plain, body {"jsonrpc":"2.0","id":2,...}
POST /mcp  tools/call id=3              ->  200 OK, Content-Type: text/event-stream, body {"jsonrpc":"2.0","id":3,...}`,
		Good: `POST /mcp  notifications/initialized   ->  202 Accepted
POST /mcp  tools/call id=2              ->  200 OK, Content-Type: application/json, body {"jsonrpc":"2.0","id":2,...}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#sending-messages-to-the-server", Says: "If the input consists solely of (any number of) JSON-RPC responses or notifications: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body."},
			{Revision: spec.Rev20250326, Page: "basic/transports#sending-messages-to-the-server", Says: "If the input contains any number of JSON-RPC requests, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object. The client MUST support both these cases."},
			{Revision: spec.Rev20260728, Page: "basic/transports/streamable-http", Says: "If the input is a JSON-RPC notification or response and the server accepts it, the server MUST return 202 Accepted with no body; for a request it MUST return Content-Type: application/json (a single JSON object) or Content-Type: text/event-stream (an SSE response stream)."},
		},
	},
	New: func() rule.Checker { return &postAnswerChecker{} },
}

// postAnswerChecker reports each of its two cases once a session.
type postAnswerChecker struct {
	exchanges                  exchangeJoin
	requestUnread, inputNot202 bool
}

func (c *postAnswerChecker) Message(p *rule.Pass, m *session.Message) {
	c.exchanges.message(m, func(h *frame.HTTP, side exchangeSide) { c.judge(p, h, side) })
}

func (c *postAnswerChecker) Exchange(p *rule.Pass, e *session.Exchange) {
	c.exchanges.exchange(e, func(h *frame.HTTP, side exchangeSide) { c.judge(p, h, side) })
}

func (c *postAnswerChecker) End(*rule.Pass) {}

// judge looks at a POST the server accepted, knowing what it carried.
func (c *postAnswerChecker) judge(p *rule.Pass, h *frame.HTTP, side exchangeSide) {
	if !side.carried || !strings.EqualFold(h.Method, http.MethodPost) || h.Status < 200 || h.Status > 299 ||
		spec.WellKnownPath(h.Path) {
		return
	}
	answers, _ := spec.HTTPTransport(side.anchor.Revision, h.Endpoint != "").Answers(http.MethodPost)
	if answers.InputAccepted == 0 {
		return // HTTP+SSE: the answer travels on the stream
	}
	status := rule.Sprintf("%d %s", h.Status, statusText(h))
	if side.request {
		if c.requestUnread {
			return
		}
		switch {
		case h.Status == http.StatusAccepted || h.Status == http.StatusNoContent:
			c.requestUnread = true
			p.Report(side.anchor, rule.Sprintf("POST %s (%s) carrying %s was answered %s, with no body: a POST carrying a request "+
				"must be answered with %s holding its response, so the response never reaches the client",
				h.Path, h.Where(), side.what, status, rule.Text(strings.Join(answers.RequestAnswer, " or "))).By(spec.Server))
		case h.ContentType != "" && !slices.Contains(answers.RequestAnswer, strings.ToLower(h.ContentType)):
			c.requestUnread = true
			p.Report(side.anchor, rule.Sprintf("POST %s (%s) carrying %s was answered %s with Content-Type %s: a client reads the "+
				"response only from %s, so this one never reaches it",
				h.Path, h.Where(), side.what, status, h.ContentType, rule.Text(strings.Join(answers.RequestAnswer, " or "))).By(spec.Server))
		case h.BodyAs != "":
			c.requestUnread = true
			body := "one JSON value and no event"
			if h.BodyAs == spec.EventStreamType {
				body = "an event stream"
			}
			p.Report(side.anchor, rule.Sprintf("POST %s (%s) carrying %s was answered %s with Content-Type %s, but the body is %s: "+
				"a client reads the body as its Content-Type says, so the response in it never reaches the client",
				h.Path, h.Where(), side.what, status, h.ContentType, rule.Text(body)).By(spec.Server))
		}
		return
	}
	if h.Status == answers.InputAccepted || c.inputNot202 {
		return
	}
	c.inputNot202 = true
	p.ReportSeverity(rule.SeverityWarning, side.anchor, rule.Sprintf("POST %s (%s) carrying %s was answered %s instead of %d %s: "+
		"a server that accepts notifications and responses must answer 202 with no body, and clients act on it (the TypeScript "+
		"SDK client opens its stream for server notifications only after a 202 for notifications/initialized)",
		h.Path, h.Where(), side.what, status, answers.InputAccepted, http.StatusText(answers.InputAccepted)).By(spec.Server))
}

// statusText is the exchange's status text, or the standard one when the capture
// has none.
func statusText(h *frame.HTTP) string {
	if h.StatusText != "" {
		return h.StatusText
	}
	return http.StatusText(h.Status)
}
