package rules

import (
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// BatchNotInRevision reports JSON-RPC batches where the revision has none.
var BatchNotInRevision = &rule.Rule{
	ID:       "MCP1009",
	Name:     "batch-not-in-revision",
	Severity: rule.SeverityError,
	Title:    "A JSON-RPC batch in a revision without batching",
	Anchor:   "the batch",
	Hint:     "send the messages one by one: batching exists only in 2025-03-26 (removed in 2025-06-18, absent from 2024-11-05), and initialize must never be batched",
	Doc: rule.Doc{
		Sees: "A JSON-RPC batch (a frame that is a JSON array of messages, requests or responses) in a session whose revision has no batching. Only 2025-03-26 has batches: one in a 2025-06-18, 2025-11-25 or 2026-07-28 session is an error, one in a 2024-11-05 session a warning (that revision's schema has no batch type, although it says messages follow JSON-RPC 2.0, which has batches). A batch that contains initialize is an error in every revision, 2025-03-26 included.",
		Why:  "From 2025-06-18 an array is not a valid MCP message: a receiver that follows the negotiated revision answers a single error or drops the frame, and every request inside stays unanswered; to the sender it looks like a transport problem. Many 2024-11-05 implementations never learned to read arrays at all. initialize must travel alone because nothing else is valid before initialization completes, and a peer that does not speak 2025-03-26 cannot even open the array to find it.",
		Fix:  "On the sending side: send each message on its own (one JSON object per line on stdio, per POST on HTTP). If you support several revisions, enable batching only when the negotiated revision is 2025-03-26, and never put initialize in a batch.",
		Bad: `# negotiated 2025-06-18, which removed batching
c->s [{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"prompts/list"}]
s->c [{"jsonrpc":"2.0","id":2,"result":{"tools":[]}},{"jsonrpc":"2.0","id":3,"result":{"prompts":[]}}]`,
		Good: `c->s {"jsonrpc":"2.0","id":2,"method":"tools/list"}
c->s {"jsonrpc":"2.0","id":3,"method":"prompts/list"}
s->c {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
s->c {"jsonrpc":"2.0","id":3,"result":{"prompts":[]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-03-26", Page: "basic#batching", Says: "MCP implementations MAY support sending JSON-RPC batches, but MUST support receiving JSON-RPC batches."},
			{Revision: "2025-03-26", Page: "basic/lifecycle#initialization", Says: "The initialize request MUST NOT be part of a JSON-RPC batch, as other requests and notifications are not possible until initialization has completed."},
			{Revision: "2025-06-18", Page: "changelog#major-changes", Says: "Item 1: remove support for JSON-RPC batching."},
			{Revision: "2024-11-05", Page: "basic/messages", Says: "Defines three message types (requests, responses and notifications) and no batches; the 2025-03-26 changelog lists batching as an addition."},
		},
	},
	Kinds: rule.KindsOf(frame.KindBatch),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindBatch {
			return
		}
		members := make([]string, 0, len(m.Members))
		initialize := false
		for i := range m.Members {
			mm := &m.Members[i]
			if mm.Method == "initialize" {
				initialize = true
			}
			members = append(members, describeFrame(mm))
		}
		list := strings.Join(members, ", ")
		if initialize {
			p.ReportSeverity(rule.SeverityError, rule.At(m), rule.Sprintf("initialize inside a JSON-RPC batch (%s): initialize must be sent alone, in every revision", list))
			return
		}
		rev := m.Revision()
		switch {
		case rev == "":
			p.CannotJudge(reasonNoRevisionShort)
		case rev.Has(spec.FeatureBatching):
			return
		case rev.Before(spec.FeatureBatching.Since):
			// A revision before batching: its schema has no batch, though JSON-RPC 2.0 does.
			p.ReportSeverity(rule.SeverityWarning, rule.At(m), rule.Sprintf("JSON-RPC batch of %s (%s) in a %s session: that revision does not define batching (%s added it)", count(len(m.Members), "message"), list, rev, spec.FeatureBatching.Since))
		default:
			p.Report(rule.At(m), rule.Sprintf("JSON-RPC batch of %s (%s) in a %s session: batching was removed in %s", count(len(m.Members), "message"), list, rev, spec.FeatureBatching.Until))
		}
	}),
}

func describeFrame(f *frame.Frame) string {
	s := f.Kind.String()
	if f.Method != "" {
		s = f.Method
	}
	if f.ID != "" {
		s += " id=" + f.ID
	}
	return s
}
