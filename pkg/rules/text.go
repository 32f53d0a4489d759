package rules

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// after describes how much traffic followed a request before its session ended:
// at the end of the capture, when the client initialized again, or at the DELETE
// that ended it.
func after(s *session.Session, r *session.Request) string {
	if s.DeletedLine > 0 {
		// The DELETE is where the session ended, not its last frame: how far the
		// request was from it is the DELETE's entry, which EndText names.
		return s.EndText()
	}
	lines := s.LastLine - r.Line
	var parts []string
	if !r.Time.IsZero() && !s.LastTime.IsZero() && s.LastTime.After(r.Time) {
		parts = append(parts, roundDuration(s.LastTime.Sub(r.Time))+" later")
	}
	switch {
	case lines <= 0 && s.StreamKey != "":
		parts = append(parts, "with it (its last frame on stream "+s.StreamKey+")")
	case lines <= 0:
		parts = append(parts, "with it (its last frame)")
	case lines == 1:
		parts = append(parts, "1 line later")
	default:
		parts = append(parts, fmt.Sprintf("%d lines later", lines))
	}
	return s.EndText() + " " + strings.Join(parts, ", ")
}

func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	default:
		return d.Round(100 * time.Microsecond).String()
	}
}

// kept copies what an anchor borrows from its frame (the raw bytes, capped at
// session.MaxRequestRaw, the id and the method alias the reader's buffer), for a
// finding reported after the frame has gone.
func kept(a rule.Anchor) rule.Anchor {
	a.Raw = bytes.Clone(a.Raw[:min(len(a.Raw), session.MaxRequestRaw)])
	a.ID, a.Method = strings.Clone(a.ID), strings.Clone(a.Method)
	return a
}

// quotedList quotes captured values for a message, separated by commas.
func quotedList(kind rule.ValueKind, values []string) rule.Message {
	parts := make([]rule.Message, len(values))
	for i, v := range values {
		parts[i] = rule.Sprintf("%s", rule.Quote(kind, v))
	}
	return rule.Join(parts, ", ")
}
