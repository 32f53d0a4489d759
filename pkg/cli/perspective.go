package cli

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// perspectiveCheck watches a run whose --perspective was given for what
// contradicts it: an initialize request read as sent by the server. A log
// written by the client writes its initialize, one written by the server reads
// it; the wrong side turns every direction around, and the session then shows
// no handshake at all.
type perspectiveCheck struct {
	side     spec.Side
	analysis *rule.Analysis
}

// newPerspectiveCheck returns the check for an explicit --perspective (nil when
// the flag was not given: the reader infers the side from initialize).
func newPerspectiveCheck(fopt frame.Options) *perspectiveCheck {
	if fopt.Perspective == 0 {
		return nil
	}
	return &perspectiveCheck{side: fopt.Perspective, analysis: &rule.Analysis{
		Name: "perspective",
		New:  func(*session.Session, rule.Results) rule.Computation { return &contradiction{} },
	}}
}

// apply adds the check to a run.
func (p *perspectiveCheck) apply(opt *driver.RunOptions) {
	if p != nil {
		opt.Analyses = append(opt.Analyses, p.analysis)
	}
}

// contradiction is the first initialize of a session read as sent by the server.
type contradiction struct{ line int }

func (c *contradiction) Message(m *session.Message) {
	if c.line == 0 && m.Kind == frame.KindRequest && m.Method == "initialize" && m.Dir == spec.S2C {
		c.line = m.Line
	}
}

func (c *contradiction) Result() any { return c.line }

// contradicted returns what the session says against --perspective ("" when
// nothing does).
func (p *perspectiveCheck) contradicted(sr *rule.SessionResult) string {
	if p == nil {
		return ""
	}
	line, _ := sr.ResultOf(p.analysis).(int)
	if line == 0 {
		return ""
	}
	other := spec.Client
	if p.side == spec.Client {
		other = spec.Server
	}
	return fmt.Sprintf("--perspective %s contradicts the capture: with it, the initialize request at line %d reads as sent by the server, so this session has no handshake; "+
		"a log that writes initialize was written by the client, one that reads it by the server: use --perspective %s, or leave the flag out (the side is inferred from initialize)",
		p.side, line, other)
}

// note adds the contradiction, if any, to the session's notes.
func (p *perspectiveCheck) note(sr *rule.SessionResult) {
	if text := p.contradicted(sr); text != "" {
		sr.Notes = append(sr.Notes, text)
	}
}
