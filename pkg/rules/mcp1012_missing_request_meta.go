package rules

import (
	"fmt"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// MissingRequestMeta reports modern-era client requests without the per-request
// protocol fields.
var MissingRequestMeta = &rule.Rule{
	ID:       "MCP1012",
	Name:     "missing-request-meta",
	Severity: rule.SeverityError,
	Title:    "A 2026-07-28 client request without _meta protocolVersion or clientCapabilities",
	Anchor:   "the request",
	Hint:     "in the 2026-07-28 era every client request carries params._meta[\"io.modelcontextprotocol/protocolVersion\"] and [\"io.modelcontextprotocol/clientCapabilities\"]; set them on every request, not only on the first",
	Doc: rule.Doc{
		Sees: "Client requests of a modern (2026-07-28/draft) session: one whose requests carry _meta io.modelcontextprotocol/protocolVersion, or that " +
			"has a server/discover. Each client request must carry both params._meta[\"io.modelcontextprotocol/protocolVersion\"] and " +
			"params._meta[\"io.modelcontextprotocol/clientCapabilities\"]. Requests seen before the session shows its era are judged once it does; " +
			"legacy sessions (initialize handshake) never need these fields.",
		Why: "The 2026-07-28 protocol is stateless: there is no handshake, so a request that does not say its protocol version and the client's " +
			"capabilities has no contract at all. The server cannot know which revision governs it nor whether it may ask the client for input, " +
			"and the specification tells it to reject the request as malformed (-32602, HTTP 400). Behind a load balancer the next request may " +
			"land on another server instance that never saw the earlier ones, so the fields cannot be sent once and remembered.",
		Fix: "In the client, add both _meta fields to every request (SDKs do this for you; a hand-built request or a request sent through a " +
			"lower-level transport API often forgets). An empty capability object {} is a valid declaration; omitting it is not.",
		Bad: `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{}}`,
		Good: `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{
  "io.modelcontextprotocol/protocolVersion":"2026-07-28",
  "io.modelcontextprotocol/clientCapabilities":{}}}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20260728, Page: "basic#per-request-protocol-fields", Says: "Every client request carries params._meta io.modelcontextprotocol/protocolVersion (required) and io.modelcontextprotocol/clientCapabilities (required); clientInfo SHOULD be included."},
			{Revision: spec.Rev20260728, Page: "basic/versioning", Says: "There is no negotiation handshake. Every request carries its protocol version; a request missing the required _meta fields is malformed and is answered -32602 (HTTP 400)."},
		},
	},
	New: func() rule.Checker { return &requestMetaWatch{} },
}

// maxMetaPending bounds the requests held while a session's era is unknown.
const maxMetaPending = 64

type metaPending struct {
	anchor rule.Anchor
	text   string
}

type requestMetaWatch struct {
	pending []metaPending // requests without the fields, before the era was known
	dropped int
}

func (w *requestMetaWatch) Message(p *rule.Pass, m *session.Message) {
	if len(w.pending) > 0 || w.dropped > 0 {
		w.settle(p, m.Session.Era)
	}
	if m.Kind != frame.KindRequest || m.Dir == spec.S2C {
		return
	}
	modern := m.Contract != nil && m.Contract.Era == session.EraModern
	unknownEra := m.Contract == nil && m.Session.Era == session.EraUnknown
	if !modern && !unknownEra {
		return // legacy: the initialize handshake carries the contract
	}
	missing := missingMeta(m.ParamsNode())
	if missing == "" {
		return
	}
	if rev := m.Revision(); modern && rev != "" && m.Spec().Known() && m.Dir != spec.DirUnknown {
		if _, ok := m.Spec().Facts(rev, m.Dir); !ok {
			return // a method the revision lacks (a modern ping): MCP1008's finding, one cause
		}
	}
	if m.Dir == spec.DirUnknown {
		p.CannotJudge(reasonDirectionUnknown)
		return
	}
	text := fmt.Sprintf("the client's %s carries no %s: every 2026-07-28 client request must carry both io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities in params._meta, and the server must reject it as malformed (-32602)",
		rule.Describe(m), missing)
	switch {
	case modern:
		p.Report(rule.At(m), rule.Text(text))
	default:
		if len(w.pending) >= maxMetaPending {
			w.dropped++
			return
		}
		w.pending = append(w.pending, metaPending{anchor: kept(rule.At(m)), text: text})
	}
}

// settle reports the held requests once the session turns out modern, and drops
// them when it turns out legacy.
func (w *requestMetaWatch) settle(p *rule.Pass, era session.Era) {
	switch era {
	case session.EraUnknown:
		return
	case session.EraModern:
		for _, r := range w.pending {
			r.anchor.Revision = p.Session.ModernRevision
			p.Report(r.anchor, rule.Text(r.text+" (sent before the session showed it was 2026-07-28)"))
		}
		for range w.dropped {
			p.CannotJudge(because(reasonTooManyPendingf, maxMetaPending))
		}
	}
	w.pending, w.dropped = nil, 0
}

// missingMeta names the required per-request fields absent from params._meta
// ("" when both are there).
func missingMeta(params frame.Node) string {
	meta := get(params, "_meta")
	_, version := meta.Get("io.modelcontextprotocol/protocolVersion")
	_, caps := meta.Get("io.modelcontextprotocol/clientCapabilities")
	var missing []string
	if !version {
		missing = append(missing, "_meta io.modelcontextprotocol/protocolVersion")
	}
	if !caps {
		missing = append(missing, "_meta io.modelcontextprotocol/clientCapabilities")
	}
	return strings.Join(missing, " and no ")
}

func (w *requestMetaWatch) End(p *rule.Pass) {
	if len(w.pending) > 0 || w.dropped > 0 {
		if p.Session.Era == session.EraUnknown {
			for range len(w.pending) + w.dropped {
				p.CannotJudge(reasonEraNeverShown)
			}
			return
		}
		w.settle(p, p.Session.Era)
	}
}
