package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UnansweredRequest reports requests with no response by the end of the capture.
var UnansweredRequest = &rule.Rule{
	ID:       "MCP3001",
	Name:     "unanswered-request",
	Severity: rule.SeverityWarning,
	Title:    "A request with no response by the end of the capture",
	Anchor:   "the request (a batch member: its batch)",
	Hint:     "every request must be answered (or cancelled by its sender); look for a handler that blocks or panics, a dropped batch, or a response written to the wrong stream",
	Doc: rule.Doc{
		Sees: "At the end of a session (the end of the capture, or a new initialize on the same stream), every request that never got a response, neither a result nor an error. Left out: requests whose sender cancelled them with notifications/cancelled (a cancelled request may go unanswered), subscriptions/listen streams (2026-07-28: answered only when the server closes them), initialize (MCP1001 reports it) and, in HTTP captures, a request whose POST was refused with an HTTP error status and no JSON-RPC response: the status was its answer, and MCP0005 reports the refusal (or, for a dual-era client's server/discover refused with a 4xx, leaves it alone: the client falls back to initialize). In a log without directions, when both sides had a request with the same id in flight and a response that could be either side's came, one of the two was answered and the rule cannot tell which: it says so instead of reporting. In an HTTP capture, a request whose POST was answered with an event stream that ended without the response (a HAR keeps the whole stream; a recording of mcpsleuth record --http writes its end and its last event id) says how the stream ended and names the side at fault: the server when the stream carried no event id to resume it from, or when the client resumed it (a GET with Last-Event-ID) and the response was not replayed; the client when it could have resumed the stream and did not (2025-11-25 lets a server close the connection after an event with an id, and the client then polls). The finding says who sent the request and how much traffic followed it: a request right at the end of the capture may simply still have been in flight; one followed by minutes of traffic was dropped. Requests inside a batch are anchored at their batch.",
		Why:  `The sender is still waiting: a tool call that spins until the client's timeout, a model turn that never completes, a UI stuck on "running". When traffic went on long afterwards, the peer was alive and simply never answered: a handler that blocked, or failed without replying, an exception swallowed, a response written to the wrong stream, a batch member skipped. Nothing in the protocol flags it; the only evidence is the response that is not there.`,
		Fix:  "On the side that received the request: answer every request exactly once, with a result or, on failure, a JSON-RPC error (for a tool, a result with isError: true), and put timeouts on the backend calls a handler waits for. On the side that sent it: set a timeout and, when it expires, send notifications/cancelled with the request's id and stop waiting.",
		Bad: `c->s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"q":"mcp"}}}
c->s {"jsonrpc":"2.0","id":5,"method":"ping"}
s->c {"jsonrpc":"2.0","id":5,"result":{}}
# traffic goes on for minutes; id 4 is never answered`,
		Good: `c->s {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"q":"mcp"}}}
c->s {"jsonrpc":"2.0","id":5,"method":"ping"}
s->c {"jsonrpc":"2.0","id":5,"result":{}}
s->c {"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"search backend timed out"}],"isError":true}}
# or, if the client gives up first, it says so:
c->s {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"timed out"}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic#responses", Says: "Responses are sent in reply to requests and MUST include the same ID as the request they correspond to; all messages MUST follow JSON-RPC 2.0, in which every request (unlike a notification) gets a response."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#timeouts", Says: "Implementations SHOULD establish timeouts for all sent requests; when a request has not received a success or error response within the timeout period, the sender SHOULD issue a cancellation notification for that request and stop waiting for a response."},
			{Revision: "2025-06-18", Page: "basic/utilities/cancellation#behavior-requirements", Says: "Receivers of a cancellation notification SHOULD stop processing the request and not send a response for it: a cancelled request may stay unanswered."},
			{Revision: "2025-11-25", Page: "basic/transports#sending-messages-to-the-server", Says: "After the server has sent an SSE event with an event ID to the client, the server MAY close the connection (without terminating the SSE stream) at any time in order to avoid holding a long-lived connection. The client SHOULD then poll the SSE stream by attempting to reconnect. The SSE stream SHOULD eventually include a JSON-RPC response for the JSON-RPC request sent in the POST body."},
			{Revision: "2026-07-28", Page: "basic/patterns/subscriptions#graceful-closure", Says: "A subscriptions/listen request is answered only when the server ends the subscription on its own initiative; the response SHOULD come before the stream closes."},
		},
	},
	Kinds: rule.NoMessages,
	New: rule.Stateless(rule.Funcs{OnEnd: func(p *rule.Pass) {
		if n := p.Session.Untracked; n > 0 { // the reason is formatted only then: most sessions have none
			p.CannotJudgeN(because(reasonUntrackedf, session.MaxOutstanding), n)
		}
		for _, r := range p.Session.Outstanding() {
			if r.Cancelled || r.LongLived {
				continue
			}
			if r.Method == "initialize" {
				continue // MCP1001 reports it
			}
			if r.HTTPStatus >= 400 {
				// Refused by its HTTP status: no JSON-RPC response comes, and
				// the sender learnt so at once. MCP0005 reports the refusal
				// (and leaves alone a dual-era probe of server/discover
				// refused with a 4xx, on which the client falls back).
				continue
			}
			if r.AmbiguousResponse > 0 {
				p.CannotJudge(reasonResponseEitherSide)
				continue
			}
			where := ""
			if r.Batch {
				where = " inside a batch"
			}
			if r.StreamOpened {
				stream, party := streamEnded(p.Session, r)
				p.Report(rule.AtRequest(r), rule.Sprintf("%s id=%s sent by the %s%s was never answered: %s; %s",
					r.Method, r.ID, spec.Sender(r.Dir), where, stream, after(p.Session, r)).By(party))
				continue
			}
			p.Report(rule.AtRequest(r), rule.Sprintf("%s id=%s sent by the %s%s was never answered; %s",
				r.Method, r.ID, spec.Sender(r.Dir), where, after(p.Session, r)))
		}
	}}),
}

// streamEnded says how the event stream that answered request r's POST ended
// without its response, and whose fault that is: the server's when the stream
// carried no event id to resume it from, or when the client resumed it and the
// response was not replayed; the client's when it could have resumed and did not.
func streamEnded(s *session.Session, r *session.Request) (rule.Message, spec.Side) {
	stream := place(r.Line, r.Entry)
	if r.StreamLastID == "" {
		return rule.Sprintf("its POST's event stream (%s) ended without the response and without an event id to resume it from", stream), spec.Server
	}
	id := rule.As(rule.ValueID, r.StreamLastID)
	if at, ok := s.ResumedFrom(r.StreamLastID); ok {
		return rule.Sprintf("its POST's event stream (%s) ended without the response, and the server did not send it when the client "+
			"resumed the stream from event %s (%s)", stream, id, place(at.Line, at.Entry)), spec.Server
	}
	return rule.Sprintf("its POST's event stream (%s) ended after event %s without the response, and the client never resumed the "+
		"stream with a GET carrying Last-Event-ID", stream, id), spec.Client
}
