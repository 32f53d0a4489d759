package rules

import (
	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/bounded"
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
			"revision shares. Ids of a dual-era probe (server/discover before initialize) do not count against the legacy session. At most " +
			"100000 ids are remembered per session; beyond that the oldest are forgotten and the report says so.",
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
	New: func() rule.Checker { return &duplicateIDWatch{} },
}

// maxRememberedIDs bounds the request ids one session remembers (both senders):
// twice the requests a session follows in flight (session.MaxOutstanding), so that
// a flood of requests keeps memory bounded; past it the oldest are forgotten (at
// least the latest half are always remembered, see bounded.Recent) and counted.
const maxRememberedIDs = 2 * session.MaxOutstanding

type idKey struct {
	dir spec.Direction
	id  string
}

// idUse is the latest request that used an id.
type idUse struct {
	line   int
	method string
	done   bool // answered or cancelled: no longer in flight
	// inputRequired: answered with a 2026-07-28 InputRequiredResult, so the request
	// will be retried, and the retry must take a new id.
	inputRequired bool
}

type duplicateIDWatch struct {
	ids       bounded.Recent[idKey, idUse]
	forgotten int
}

func (w *duplicateIDWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest:
		w.request(p, m)
	case m.Kind.IsResponse() && m.Request != nil:
		inputRequired := m.Kind == frame.KindResult && m.Contract != nil && m.Contract.Era == session.EraModern &&
			m.ResultGet("resultType").Str == "input_required"
		w.finished(idKey{m.Request.Dir, m.Request.Key}, m.Request.Line, inputRequired)
	case m.Kind == frame.KindNotification && m.Method == "notifications/cancelled" && m.Dir != spec.DirUnknown:
		id := frame.IDKey(gjson.GetBytes(m.Params, "requestId").Raw)
		if u, ok := w.ids.Get(idKey{m.Dir, id}); ok {
			w.finished(idKey{m.Dir, id}, u.line, false)
		}
	}
}

func (w *duplicateIDWatch) request(p *rule.Pass, m *session.Message) {
	if m.ID == "" || m.ID == "null" {
		return // MCP3004's
	}
	if m.Method == "initialize" && m.Dir != spec.S2C {
		w.reset() // a dual-era probe before it is another session's business
	}
	if m.Dir == spec.DirUnknown {
		p.CannotJudge(reasonDirectionUnknown)
		return
	}
	key := idKey{m.Dir, frame.IDKey(m.ID)} // ids equal in value are the same id
	prev, seen := w.ids.Get(key)
	if seen {
		legacy := m.Contract != nil && m.Contract.Era == session.EraLegacy
		switch {
		case legacy:
			state := "answered"
			if !prev.done {
				state = "still unanswered"
			}
			p.Report(rule.At(m), rule.Sprintf("the %s reused id %s for %s: its %s at line %d already used it (%s), and a legacy session (%s) forbids reusing a request id anywhere in the session",
				m.Sender(), m.ID, m.Method, prev.method, prev.line, state, revisionName(m)), rule.Related{Line: prev.line, Note: "first request with id " + m.ID})
		case !prev.done:
			p.Report(rule.At(m), rule.Sprintf("the %s reused id %s for %s while its %s with the same id (line %d) was still in flight: ids must be unique among a sender's unanswered requests",
				m.Sender(), m.ID, m.Method, prev.method, prev.line), rule.Related{Line: prev.line, Note: "request with id " + m.ID + ", not yet answered"})
		case prev.inputRequired && isRetry(m.Params):
			p.Report(rule.At(m), rule.Sprintf("the %s retried %s with inputResponses under the same id %s as the request answered with an InputRequiredResult (line %d): a retry must use a new JSON-RPC id",
				m.Sender(), m.Method, m.ID, prev.line), rule.Related{Line: prev.line, Note: "the first request, answered input_required"})
		}
	}
	if m.Request == nil {
		return
	}
	// The frame's strings alias the reader's buffer: keep the request's copies.
	key.id = m.Request.Key
	use := idUse{line: m.Line, method: m.Request.Method, done: m.Request.Answered() || m.Request.Cancelled}
	w.forgotten += w.ids.Put(key, use, maxRememberedIDs)
}

// finished marks the request at line with this key as no longer in flight.
func (w *duplicateIDWatch) finished(key idKey, line int, inputRequired bool) {
	if u, ok := w.ids.Get(key); ok && u.line == line {
		u.done, u.inputRequired = true, inputRequired
		w.ids.Put(key, u, maxRememberedIDs) // remembered: updated where it is
	}
}

// isRetry reports whether request params carry a 2026-07-28 MRTR retry's fields.
func isRetry(params []byte) bool {
	r := gjson.GetManyBytes(params, "inputResponses", "requestState")
	return r[0].Exists() || r[1].Exists()
}

// reset forgets every id: what preceded an initialize (a dual-era probe) is not
// its session's.
func (w *duplicateIDWatch) reset() { w.ids.Clear() }

func (w *duplicateIDWatch) End(p *rule.Pass) {
	p.CannotJudgeN(because(reasonTooManyIDsf, maxRememberedIDs), w.forgotten)
}

// revisionName names a message's governing revision for a message text.
func revisionName(m *session.Message) string {
	if r := m.Revision(); r != "" {
		return string(r)
	}
	return "revision unknown"
}
