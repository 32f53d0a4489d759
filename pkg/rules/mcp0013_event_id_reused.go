package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// EventIDReused reports a Streamable HTTP server that gave two SSE events of one
// session the same id: event ids must be unique across all the session's streams,
// and a stream resumed with Last-Event-ID replays only what came after it.
var EventIDReused = &rule.Rule{
	ID:       "MCP0013",
	Name:     "event-id-reused",
	Severity: rule.SeverityError,
	Title:    "A Streamable HTTP server gave two SSE events of one session the same id, or replayed an event the client had received on a stream it resumed",
	Anchor:   "the second event that carried the id",
	Hint:     "give every SSE event of a session an id no other event of it has (encode the stream and a counter, as the Go SDK does: STREAM_N), and on a GET with Last-Event-ID replay only the events after that id, on that stream",
	Doc: rule.Doc{
		Sees: "HTTP captures (a HAR, or a recording of mcpsleuth record --http) of Streamable HTTP sessions from 2025-03-26 to " +
			"2025-11-25 (2026-07-28 streams are not resumable; HTTP+SSE defines no resumption): the id field of each SSE event that " +
			"carried a message, on every stream of the session (the POSTs' streams and the GET streams). The first event whose id " +
			"an earlier event of the session already had is reported, once a session, naming the server. When it arrived on a GET " +
			"that resumed a stream (Last-Event-ID), the message says the server replayed an event the client had already " +
			"received. Events without data (priming events, keep-alives) carry no message and are not seen; a session's ids are " +
			"remembered up to a bound.",
		Why: "An event id is the cursor a client resumes from: after a dropped connection it sends the last id it received, and the " +
			"server replays what followed, on that stream. Two events with one id make the cursor ambiguous: the server may resume " +
			"the wrong stream, deliver a response to the wrong request's stream (which the spec forbids), or replay what the " +
			"client already handled, so a tool call runs its side effects twice or a notification is processed twice.",
		Fix: "Server: make event ids unique in the session and encode the stream in them (the spec's advice: \"Event IDs SHOULD " +
			"encode sufficient information to identify the originating stream\"); keep a per-stream log, and on a GET with " +
			"Last-Event-ID send only the events after that id on that stream.",
		Bad: `POST /mcp tools/call id=2  ->  id: 1  data: {"jsonrpc":"2.0","method":"notifications/progress",...}
POST /mcp tools/call id=3  ->  id: 1  data: {"jsonrpc":"2.0","id":3,"result":{...}}`,
		Good: `POST /mcp tools/call id=2  ->  id: s2_1  data: {"jsonrpc":"2.0","method":"notifications/progress",...}
POST /mcp tools/call id=3  ->  id: s3_1  data: {"jsonrpc":"2.0","id":3,"result":{...}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250326, Page: "basic/transports#resumability-and-redelivery", Says: "Servers MAY attach an id field to their SSE events. If present, the ID MUST be globally unique across all streams within that session, or all streams with that specific client, if session management is not in use."},
			{Revision: spec.Rev20250326, Page: "basic/transports#resumability-and-redelivery", Says: "The server MAY use this header to replay messages that would have been sent after the last event ID, on the stream that was disconnected, and to resume the stream from that point. The server MUST NOT replay messages that would have been delivered on a different stream."},
		},
	},
	New: func() rule.Checker { return &eventIDChecker{} },
}

// maxEventIDs bounds the event ids a session's checker remembers.
const maxEventIDs = 4096

// eventAt is where an event id was first seen: its exchange and the request it
// answered.
type eventAt struct {
	exchange int
	where    string // "POST /mcp (entry 3)"
}

type eventIDChecker struct {
	seen     map[string]eventAt
	reported bool
}

func (c *eventIDChecker) Message(p *rule.Pass, m *session.Message) {
	h := m.HTTP
	if c.reported || h == nil || !h.InResponse || m.EventID == "" || m.Dir != spec.S2C || m.Batch != nil || m.Contract == nil ||
		spec.HTTPTransport(m.Revision(), h.Endpoint != "") != spec.TransportStreamableHTTP {
		return
	}
	here := eventAt{exchange: h.Exchange, where: exchangeName(h)}
	first, ok := c.seen[m.EventID]
	if !ok {
		if c.seen == nil {
			c.seen = map[string]eventAt{}
		}
		if len(c.seen) < maxEventIDs {
			c.seen[m.EventID] = here
		}
		return
	}
	c.reported = true
	id := rule.As(rule.ValueID, m.EventID)
	if h.LastEventID != "" && first.exchange != h.Exchange {
		p.Report(rule.At(m), rule.Sprintf("the server replayed event %s (%s) on %s, which resumed the stream from event %s, but the "+
			"client had already received that event on %s: a resumed stream carries only the events after its Last-Event-ID",
			id, rule.Describe(m), here.where, rule.As(rule.ValueID, h.LastEventID), first.where).By(spec.Server))
		return
	}
	same := "on " + first.where
	if first.exchange == h.Exchange {
		same = "earlier on the same stream"
	}
	p.Report(rule.At(m), rule.Sprintf("the server sent event id %s again (%s, on %s), after an event with that id %s: event ids must be "+
		"unique across all the streams of a session, or a client that resumes from one gets the wrong stream replayed",
		id, rule.Describe(m), here.where, rule.Text(same)).By(spec.Server))
}

func (c *eventIDChecker) End(*rule.Pass) {}

// exchangeName names an HTTP exchange for a message: "POST /mcp (entry 3)".
func exchangeName(h *frame.HTTP) string {
	return h.Method + " " + h.Path + " (" + h.Where() + ")"
}
