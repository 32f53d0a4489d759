package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// FieldNotInRevision reports members a message carries that its governing revision
// does not define while a later revision does: the list of such fields is derived
// from the official schemas of every revision, not kept by hand.
var FieldNotInRevision = &rule.Rule{
	ID:       "MCP1010",
	Name:     "field-not-in-revision",
	Severity: rule.SeverityInfo,
	Title:    "A field the governing revision does not define (a later revision does)",
	Anchor:   "the frame that carries the field",
	Hint:     "a peer that speaks only the negotiated revision may drop these fields: do not rely on them in this session, or negotiate the revision that defines them",
	Doc: rule.Doc{
		Sees: "Every request, notification, result and error, walked member by member alongside the definition its governing revision gives it in schema.json, and alongside the definitions of the same message in every later revision. A member that the governing revision's definition does not list, while a later revision's definition lists it at the same place, is reported with the first revision that defines it: structuredContent, outputSchema or title before 2025-06-18, icons and the tasks capability before 2025-11-25, ttlMs, cacheScope and resultType before 2026-07-28. So is a variant the revision lacks, by its discriminating value: content of type \"audio\" before 2025-03-26, \"resource_link\" before 2025-06-18. Each place is reported once per session. Members no revision defines (vendor extensions) and free-form objects (arguments, structuredContent, experimental) are left alone.",
		Why:  "A peer that negotiated an older revision was written against that revision's types: it may drop a member it does not know, or, with strict decoding, reject the message. The session then silently loses what the member carried: a structured result the client never sees, a tool output schema that is never enforced, a cache lifetime that is ignored. Sending newer fields is usually harmless, but relying on them under an older revision is not.",
		Fix:  "Either negotiate the revision that defines the field (answer the client's protocolVersion when you support it), or keep the field out of sessions that negotiated an older revision and carry its information in members that revision defines (for example a text content block next to structuredContent). SDKs that copy one struct to every session should gate version-specific members on the negotiated revision.",
		Bad: `c->s {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
s->c {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","id":1,"method":"tools/list"}
s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_invoice","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]}}`,
		Good: `c->s {"jsonrpc":"2.0","id":1,"method":"tools/list"}
s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_invoice","description":"Returns the invoice as JSON text","inputSchema":{"type":"object"}}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#operation", Says: "During operation both parties MUST respect the negotiated protocol version: a peer is bound to the messages and fields that revision defines."},
			{Revision: "2025-06-18", Page: "changelog", Says: "Lists what 2025-06-18 added, such as structured tool output (structuredContent, outputSchema), resource links in tool results and title fields."},
			{Revision: "2025-11-25", Page: "changelog", Says: "Lists what 2025-11-25 added, such as icons, tasks and URL elicitation."},
		},
	},
	New:        func() rule.Checker { return &laterFieldWatch{} },
	WireShapes: true,
	Shared:     func() any { return schema.NewLaterFieldsOf(maxRunShapes) },
}

// maxReportedPlaces bounds the places remembered as already reported in a session.
const maxReportedPlaces = 4096

// laterFieldWatch is MCP1010's per-session state: the places already reported.
// What a shape of frame carries is the run's (Pass.Shared).
type laterFieldWatch struct {
	reported map[string]bool // revision, definition and pattern already reported
}

func (w *laterFieldWatch) End(*rule.Pass) {}

func (w *laterFieldWatch) Message(p *rule.Pass, m *session.Message) {
	var msg schema.Message
	switch m.Kind {
	case frame.KindRequest:
		msg = schema.Message{Kind: frame.KindRequest, Method: m.Method, Sender: m.Sender()}
	case frame.KindNotification:
		msg = schema.Message{Kind: frame.KindNotification, Method: m.Method, Sender: m.Sender()}
	case frame.KindError:
		msg = schema.Message{Kind: frame.KindError}
	case frame.KindResult:
		if m.Request == nil {
			return // which definition applies is unknown (MCP4001 notes it)
		}
		msg = schema.Message{Kind: frame.KindResult, Method: m.Request.Method, Sender: spec.Sender(m.Request.Dir)}
	default:
		return
	}
	rev := m.Revision()
	if rev == "" {
		if m.Contract == nil {
			p.CannotJudge(reasonNoContract)
		} else {
			p.CannotJudge(reasonUnknownVersion)
		}
		return
	}
	msg.Raw, msg.Value = m.Raw, m.Node()
	var fields []schema.LaterField
	cache, cached := p.Shared().(*schema.LaterFieldsOf)
	if cached {
		fields = cache.Fields(m.Shape(), rev, msg)
	} else {
		fields = schema.LaterFields(rev, msg)
	}
	if len(fields) == 0 {
		p.Settled() // the fields come from the wire shape: none for the class either
		return
	}
	place := string(rev) + " " + m.Kind.String() + " " + msg.Method + " " + msg.Sender.String()
	if cached && w.allReported(place, fields) {
		return
	}
	if cached {
		// The cache gives the places of the shape (see LaterFieldsOf): the
		// pointers of this message's own, for a report.
		fields = schema.LaterFields(rev, msg)
	}
	var fresh []schema.LaterField
	for _, f := range fields {
		key := place + " " + f.Pattern + " " + f.Value
		if w.reported[key] {
			continue
		}
		if len(w.reported) >= maxReportedPlaces {
			clear(w.reported)
		}
		if w.reported == nil {
			w.reported = map[string]bool{} // made on first use: most sessions never need it
		}
		w.reported[key] = true
		fresh = append(fresh, f)
	}
	if len(fresh) == 0 {
		return
	}
	p.Report(rule.At(m), rule.Sprintf("%s (line %d) carries %s that %s does not define: %s; a peer that speaks only %s may drop %s",
		rule.Describe(m), m.Line, laterFieldCount(len(fresh)), rev, schema.FieldList(fresh, 6), rev, laterFieldPronoun(len(fresh))))
}

// allReported reports whether every place of fields was reported in the session.
func (w *laterFieldWatch) allReported(place string, fields []schema.LaterField) bool {
	for _, f := range fields {
		if !w.reported[place+" "+f.Pattern+" "+f.Value] {
			return false
		}
	}
	return true
}

func laterFieldCount(n int) string {
	if n == 1 {
		return "a field"
	}
	return fmt.Sprintf("%d fields", n)
}

func laterFieldPronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
