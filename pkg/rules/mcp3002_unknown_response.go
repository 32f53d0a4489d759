package rules

import (
	"fmt"

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
		p.CannotJudge("direction unknown and both sides have a request with that id outstanding")
		return
	}
	w.orphans = append(w.orphans, orphanResponse{orphan: m.Orphan, anchor: rule.At(m)})
}

func (w *orphanWatch) End(p *rule.Pass) {
	for _, o := range w.orphans {
		if o.orphan.Paired {
			continue
		}
		if o.orphan.Dir == spec.DirUnknown {
			p.Report(o.anchor, fmt.Sprintf("response id=%s answers no request: neither side has an outstanding request with id %s", o.orphan.ID, o.orphan.ID))
			continue
		}
		asker := spec.Sender(o.orphan.Dir.Opposite())
		p.Report(o.anchor, fmt.Sprintf("response id=%s from the %s answers no request: the %s has no outstanding request with id %s (ids of the two sides are separate)",
			o.orphan.ID, spec.Sender(o.orphan.Dir), asker, o.orphan.ID))
	}
}
