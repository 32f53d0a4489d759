package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// NoHandshake reports frames seen before any initialize or modern request.
var NoHandshake = &rule.Rule{
	ID:       "MCP0004",
	Name:     "no-handshake",
	Severity: rule.SeverityInfo,
	Title:    "Frames before any handshake: the contract is unknown",
	Anchor:   "the first frame of the session",
	Hint:     "start the capture before the client connects, so that the initialize exchange (or the first modern request) is in it",
	New: func() rule.Checker {
		return rule.Funcs{OnEnd: func(p *rule.Pass) {
			s := p.Session
			if s.PreHandshake == 0 {
				return
			}
			what := "no initialize and no request carrying a modern _meta contract"
			if s.Legacy != nil || s.Era != 0 {
				what = "they came before the handshake"
			}
			p.Report(rule.Anchor{Line: s.FirstLine, Time: s.FirstTime},
				fmt.Sprintf("%d messages with no contract to judge them by (%s): capability and revision rules could not judge them", s.PreHandshake, what))
		}}
	},
}
