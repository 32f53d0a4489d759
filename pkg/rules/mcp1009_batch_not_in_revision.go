package rules

import (
	"fmt"
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
			p.ReportSeverity(rule.SeverityError, rule.At(m), fmt.Sprintf("initialize inside a JSON-RPC batch (%s): initialize must be sent alone, in every revision", list))
			return
		}
		rev := m.Revision()
		switch {
		case rev == "":
			p.CannotJudge("no governing revision")
		case rev.Batching():
			return
		case rev == spec.Rev20241105:
			p.ReportSeverity(rule.SeverityWarning, rule.At(m), fmt.Sprintf("JSON-RPC batch of %d messages (%s) in a 2024-11-05 session: that revision does not define batching (2025-03-26 added it)", len(m.Members), list))
		default:
			p.Report(rule.At(m), fmt.Sprintf("JSON-RPC batch of %d messages (%s) in a %s session: batching was removed in 2025-06-18", len(m.Members), list, rev))
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
