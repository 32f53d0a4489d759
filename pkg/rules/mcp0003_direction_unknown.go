package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// DirectionUnknown reports messages whose direction could not be determined.
var DirectionUnknown = &rule.Rule{
	ID:       "MCP0003",
	Name:     "direction-unknown",
	Severity: rule.SeverityInfo,
	Title:    "A frame's direction could not be determined",
	Anchor:   "the frame whose direction is unknown",
	Hint:     "capture with a recorder that writes the direction (an envelope with dir), or give the log's side with --perspective",
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Dir != spec.DirUnknown || m.Kind == frame.KindInvalid || m.Kind == frame.KindBatch {
			return
		}
		reason := m.DirReason
		if reason == "" {
			reason = "the capture does not say"
		}
		p.Reportf(rule.At(m), "direction of %s unknown: %s; rules that depend on who sent it could not judge it", rule.Describe(m), reason)
	}),
}
