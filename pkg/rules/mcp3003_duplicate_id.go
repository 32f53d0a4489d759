package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// DuplicateID reports a sender reusing a request id.
var DuplicateID = &rule.Rule{
	ID:       "MCP3003",
	Name:     "duplicate-id",
	Severity: rule.SeverityError,
	Title:    "A sender reused a request id within a session",
	Anchor:   "the second request with the id (a batch member: its batch)",
	Hint:     "give every request a fresh id (a per-connection counter is enough): in legacy sessions never reuse one within the session, in 2026-07-28 never while the first request is still unanswered",
	Doc: rule.Doc{
		Sees: "Request ids per sender: the client's ids and the server's ids are separate spaces, so the same id from the other side is not a " +
			"duplicate. Legacy sessions (2024-11-05 .. 2025-11-25): any earlier request of the same sender in the session with the same id " +
			"(compared by value: 1 and 1.0 are one id, the string \"1\" and the number 1 differ). Modern sessions (2026-07-28): an earlier request with that id " +
			"that is still in flight (neither answered nor cancelled), or an MRTR retry (params.inputResponses or requestState) sent under the " +
			"id of the request that was answered with an InputRequiredResult. Requests before any handshake are held to the in-flight rule, which every " +
			"revision shares. Ids of a dual-era probe (server/discover before initialize) do not count against the legacy session. The session remembers " +
			fmt.Sprintf("the requests in flight (up to %d) and the latest %d that have left that table (answered, or dropped when it was full); ", session.MaxOutstanding, session.MaxPast) +
			"beyond that the oldest are forgotten and the report says so.",
		Why: "The receiver matches responses, cancellations and progress to requests by id. With two requests sharing an id, a response is paired " +
			"with the wrong request (one caller gets another call's result, the other waits forever), a cancellation may stop the wrong work, and " +
			"some implementations reject the second request outright.",
		Fix: "Number requests from a per-connection counter that only increases, or use unique strings. After a reconnect or a new initialize, " +
			"a new session starts and the counter may restart; within one session it must not. In 2026-07-28 an MRTR retry (a request resent " +
			"with inputResponses) must also take a new id.",
		Bad: `{"jsonrpc":"2.0","id":3,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		Good: `{"jsonrpc":"2.0","id":3,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"result":{"tools":[]}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic#requests", Says: "Requests MUST include a string or integer ID. The request ID MUST NOT have been previously used by the requestor within the same session."},
			{Revision: spec.Rev20260728, Page: "basic#requests", Says: "The request ID MUST NOT match the ID of any other request the sender has issued and not yet received a response for (uniqueness relaxed to in-flight requests)."},
			{Revision: spec.Rev20260728, Page: "basic/patterns/mrtr", Says: "The retried request carries inputResponses (and echoes requestState); its JSON-RPC id MUST be different from the initial request's."},
		},
	},
	Kinds: rule.KindsOf(frame.KindRequest),
	New:   func() rule.Checker { return &duplicateIDWatch{} },
}

// maxRememberedIDs bounds the request ids one session remembers (both senders):
// twice the requests a session follows in flight (session.MaxOutstanding), so that
// a flood of requests keeps memory bounded; past it the oldest are forgotten (at
// least the latest half are always remembered, see bounded.Recent) and counted.
// duplicateIDWatch judges each request against the earlier request with its id
// that the session remembers (session.Message.Earlier): the session's one table of
// requests, in flight and past, is what it reads; it keeps none of its own.
type duplicateIDWatch struct {
	// since is the position of the latest initialize: the ids of a dual-era probe
	// before it do not count against the legacy session.
	since int
}

func (w *duplicateIDWatch) Message(p *rule.Pass, m *session.Message) {
	if m.Kind != frame.KindRequest || m.ID == "" || m.ID == "null" {
		return // an id-less request is MCP3004's
	}
	if m.Method == "initialize" && m.Dir != spec.S2C {
		w.since = m.Seq // a dual-era probe before it is another session's business
	}
	if m.Dir == spec.DirUnknown {
		p.CannotJudge(reasonDirectionUnknown)
		return
	}
	prev := m.Earlier
	if prev == nil || prev.Seq < w.since {
		return
	}
	legacy := m.Contract != nil && m.Contract.Era == session.EraLegacy
	switch {
	case legacy:
		state := "answered"
		if !prev.Done() {
			state = "still unanswered"
		}
		p.Report(rule.At(m), rule.Sprintf("the %s reused id %s for %s: its %s at line %d already used it (%s), and a legacy session (%s) forbids reusing a request id anywhere in the session",
			m.Sender(), m.ID, m.Method, prev.Method, prev.Line, state, revisionName(m)), rule.Related{Line: prev.Line, Note: "first request with id " + m.ID})
	case !prev.Done():
		p.Report(rule.At(m), rule.Sprintf("the %s reused id %s for %s while its %s with the same id (line %d) was still in flight: ids must be unique among a sender's unanswered requests",
			m.Sender(), m.ID, m.Method, prev.Method, prev.Line), rule.Related{Line: prev.Line, Note: "request with id " + m.ID + ", not yet answered"})
	case prev.InputRequired && isRetry(m.ParamsNode()):
		p.Report(rule.At(m), rule.Sprintf("the %s retried %s with inputResponses under the same id %s as the request answered with an InputRequiredResult (line %d): a retry must use a new JSON-RPC id",
			m.Sender(), m.Method, m.ID, prev.Line), rule.Related{Line: prev.Line, Note: "the first request, answered input_required"})
	}
}

func isRetry(params frame.Node) bool {
	_, responses := params.Get("inputResponses")
	_, state := params.Get("requestState")
	return responses || state
}

// reset forgets every id: what preceded an initialize (a dual-era probe) is not
// its session's.
func (w *duplicateIDWatch) End(p *rule.Pass) {
	if n := p.Session.Forgotten; n > 0 { // the reason is formatted only then: most sessions have none
		p.CannotJudgeN(because(reasonTooManyIDsf, session.MaxPast), n)
	}
}

// revisionName names a message's governing revision for a message text.
func revisionName(m *session.Message) string {
	if r := m.Revision(); r != "" {
		return string(r)
	}
	return "revision unknown"
}
