package driver

import (
	"fmt"
	"slices"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// perspective watches a run read with an explicit side (frame.Options.Perspective:
// the side that wrote a read/write log) for what contradicts it: an initialize
// request read as sent by the server. A log written by the client writes its
// initialize, one written by the server reads it; the wrong side turns every
// direction around, and the session then shows no handshake at all. Run adds it
// when the side was given, and notes the contradiction in the session's notes,
// for every command alike.
var perspective = &rule.Analysis{
	Name: "perspective",
	New:  func(*session.Session, rule.Results) rule.Computation { return &contradiction{} },
}

// contradiction is the first initialize of a session read as sent by the server.
type contradiction struct{ line int }

func (c *contradiction) Message(m *session.Message) {
	if c.line == 0 && m.Kind == frame.KindRequest && m.Method == "initialize" && m.Dir == spec.S2C {
		c.line = m.Line
	}
}

func (c *contradiction) Result() any { return c.line }

// Contradiction returns what a session read with the side given says against it
// ("" when nothing does, or when no side was given).
func Contradiction(sr *rule.SessionResult, opt frame.Options) string {
	line, _ := sr.ResultOf(perspective).(int)
	if line == 0 || opt.Perspective == 0 {
		return ""
	}
	other := spec.Client
	if opt.Perspective == spec.Client {
		other = spec.Server
	}
	return fmt.Sprintf("--perspective %s contradicts the capture: with it, the initialize request at line %d reads as sent by the server, so this session has no handshake; "+
		"a log that writes initialize was written by the client, one that reads it by the server: use --perspective %s, or leave the flag out (the side is inferred from initialize)",
		opt.Perspective, line, other)
}

// notePerspective makes a run read with an explicit side check it: each session
// that contradicts it says so in its notes, before OnSession sees it.
func notePerspective(opt *RunOptions) {
	if opt.Frame.Perspective == 0 {
		return
	}
	opt.Analyses = append(slices.Clip(opt.Analyses), perspective) // never into the caller's array
	onSession, fopt := opt.OnSession, opt.Frame
	opt.OnSession = func(sr *rule.SessionResult) {
		if text := Contradiction(sr, fopt); text != "" {
			sr.Notes = append(sr.Notes, text)
		}
		if onSession != nil {
			onSession(sr)
		}
	}
}
