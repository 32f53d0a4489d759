package session

import (
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// ProcessEnd is how the server process of a stdio session ended, as a recording
// tells it (frame.Lifecycle records): what the lifecycle page's shutdown order
// is judged by.
type ProcessEnd struct {
	// StdinClosed is where the client closed the server's stdin (nil: the capture
	// does not show it).
	StdinClosed *ProcessEvent
	// Signals are the signals sent to the server, in order (at most maxSignals).
	Signals []ProcessEvent
	// Exit is where the server exited (nil: the capture does not show it).
	Exit *ProcessEvent
}

// ProcessEvent is one event of the server process: where its record is, when,
// and for a signal its name and who sent it ("client" or "recorder").
type ProcessEvent struct {
	Line       int
	Time       time.Time
	Signal, By string
}

// maxSignals bounds the signals a session keeps.
const maxSignals = 16

// Lifecycle notes an event of a stdio server's process that a record at line
// tells: it belongs to the session open on the capture's one stream (a stdio
// recording has no other), and is ignored when none is open.
func (t *Tracker) Lifecycle(line int, l *frame.Lifecycle) {
	s := t.streams[""]
	if s == nil || l == nil {
		return
	}
	if s.Process == nil {
		s.Process = &ProcessEnd{}
	}
	ev := ProcessEvent{Line: line, Time: l.Time}
	switch p := s.Process; l.Event {
	case "client-closed":
		if p.StdinClosed == nil {
			p.StdinClosed = &ev
		}
	case "signal":
		if len(p.Signals) < maxSignals {
			ev.Signal, ev.By = strings.Clone(l.Signal), strings.Clone(l.By)
			p.Signals = append(p.Signals, ev)
		}
	case "exit":
		if p.Exit == nil {
			p.Exit = &ev
		}
	}
}
