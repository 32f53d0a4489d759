package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// InitializedMissing reports a client that never sent notifications/initialized.
var InitializedMissing = &rule.Rule{
	ID:       "MCP1005",
	Name:     "initialized-missing",
	Severity: rule.SeverityError,
	Title:    "The client never sent notifications/initialized after a successful initialize",
	Anchor:   "the initialize result after which the notification was due",
	Hint:     "send notifications/initialized right after the initialize result: servers may hold back requests (and some hold back everything) until it arrives",
	New: func() rule.Checker {
		var clientAfter, firstLine int
		return rule.Funcs{
			OnMessage: func(p *rule.Pass, m *session.Message) {
				c := p.Session.Legacy
				if c == nil || c.ResultLine == 0 || m.Line <= c.ResultLine || m.Dir != spec.C2S || m.Kind == frame.KindBatch {
					return
				}
				clientAfter++
				if firstLine == 0 {
					firstLine = m.Line
				}
			},
			OnEnd: func(p *rule.Pass) {
				s := p.Session
				c := s.Legacy
				if c == nil || c.ResultLine == 0 || s.InitializedLine > 0 {
					return
				}
				if clientAfter == 0 {
					p.CannotJudge("the capture ends before the client sent anything after the initialize result")
					return
				}
				p.Report(rule.Anchor{Line: c.ResultLine, Revision: c.Revision, Dir: spec.S2C, Method: "initialize"},
					fmt.Sprintf("the client never sent notifications/initialized after the initialize result (line %d), yet sent %d other messages from line %d on", c.ResultLine, clientAfter, firstLine))
			},
		}
	},
}
