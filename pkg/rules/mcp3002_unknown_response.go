package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UnknownResponse reports a response whose id matches no outstanding request.
var UnknownResponse = &rule.Rule{
	ID:       "MCP3002",
	Name:     "unknown-response",
	Severity: rule.SeverityWarning,
	Title:    "A response whose id matches no outstanding request of the other side",
	Anchor:   "the response",
	Hint:     "responses must carry the id of a request the peer sent and has not had answered; look for a reused or rewritten id, a second response, or a proxy that mixes up connections",
	Doc: rule.Doc{
		Sees: `A response (result or error) whose id matches no outstanding request of the other side: the request was already answered (a second response), was never sent, or carried a different id. Ids are compared by value (7, 7.0 and 7e0 are one id, and so are "7" and "\u0037"), but the string "7" and the number 7 are different ids, and the client's and the server's ids are separate spaces. The rule waits for the end of the session before reporting, because logs written by concurrent goroutines (the Go SDK LoggingTransport, for one) can show a response a few lines before its request: a request from the other side with that id arriving within 64 lines claims it. Error responses with a null or missing id (for a request whose id could not be read) and late responses to cancelled requests (a legal race) are not reported.`,
		Why:  "The receiver has nothing to match the response with: SDKs log and drop it, and some close the connection. Meanwhile the request it was meant to answer, if there is one, is still waiting (MCP3001): an id echoed with the wrong type or value turns a good answer into a hang. A second response to one request means the peer's bookkeeping is confused, and a proxy or multiplexer that routes responses to the wrong connection shows up the same way.",
		Fix:  `On the side that responded: copy the request's id into the response exactly as received, same JSON type and value (do not turn "7" into 7 or renumber), and answer each request once. Proxies and gateways that rewrite ids keep the mapping per connection and restore the original id on the way back.`,
		Bad: `c->s {"jsonrpc":"2.0","id":"7","method":"tools/list"}
# the server answers the number 7, not the string "7"
s->c {"jsonrpc":"2.0","id":7,"result":{"tools":[]}}`,
		Good: `c->s {"jsonrpc":"2.0","id":"7","method":"tools/list"}
s->c {"jsonrpc":"2.0","id":"7","result":{"tools":[]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic#responses", Says: "Responses MUST include the same ID as the request they correspond to."},
			{Revision: "2025-06-18", Page: "basic#requests", Says: "Requests MUST include a string or integer ID, and the ID MUST NOT have been previously used by the requestor within the same session: each side numbers its own requests."},
			{Revision: "2025-06-18", Page: "basic/utilities/cancellation#timing-considerations", Says: "A cancellation may arrive after the response was sent, and both parties MUST handle these race conditions gracefully: a response to a cancelled request is not an unknown response."},
		},
	},
	Kinds: rule.KindsOf(frame.KindResult, frame.KindError),
	New: func() rule.Checker {
		return &orphanWatch{}
	},
}

type orphanResponse struct {
	orphan *session.Orphan
	anchor rule.Anchor
}

// orphanWatch judges orphans at the end of the session: a request logged a few
// lines after its response (concurrent loggers) claims it in the meantime.
type orphanWatch struct {
	orphans []orphanResponse
}

func (w *orphanWatch) Message(p *rule.Pass, m *session.Message) {
	if !m.Kind.IsResponse() || m.Request != nil {
		return
	}
	if (m.ID == "" || m.ID == "null") && m.Kind == frame.KindError {
		return // an error about a request whose id could not be read
	}
	if m.Orphan == nil {
		p.CannotJudge(reasonDirectionBothOutstanding)
		return
	}
	w.orphans = append(w.orphans, orphanResponse{orphan: m.Orphan, anchor: kept(rule.At(m))})
}

func (w *orphanWatch) End(p *rule.Pass) {
	for _, o := range w.orphans {
		if o.orphan.Paired {
			continue
		}
		if o.orphan.AfterUntracked {
			p.CannotJudge(because(reasonAnswersUntrackedf, session.MaxOutstanding))
			continue
		}
		if o.orphan.Dir == spec.DirUnknown {
			p.Report(o.anchor, rule.Sprintf("response id=%s answers no request: neither side has an outstanding request with id %s", o.orphan.ID, o.orphan.ID))
			continue
		}
		asker := spec.Sender(o.orphan.Dir.Opposite())
		p.Report(o.anchor, rule.Sprintf("response id=%s from the %s answers no request: the %s has no outstanding request with id %s (ids of the two sides are separate)",
			o.orphan.ID, spec.Sender(o.orphan.Dir), asker, o.orphan.ID))
	}
}
