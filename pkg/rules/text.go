package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// after says how much traffic followed a request before its session ended: at the
// end of the capture, when the client initialized again, or at the DELETE that
// ended it.
func after(s *session.Session, r *session.Request) rule.Message {
	return sessionEndAfter(s, r.Line, r.Time)
}

// sessionEndAfter says, in one clause, how the session ended after the frame at
// line (sent at t): "the capture ends 4s and 4 lines later", "the session ends with
// it, before a new initialize at line 9", "the client ends the session with a
// DELETE at entry 6".
func sessionEndAfter(s *session.Session, line int, t time.Time) rule.Message {
	if s.DeletedLine > 0 {
		// The DELETE is where the session ended, not its last frame: how far the
		// frame was from it is the DELETE's place, which EndText names.
		return rule.Text(s.EndText())
	}
	ends, next := "the capture ends", ""
	if s.EndedBy > 0 {
		ends, next = "the session ends", fmt.Sprintf(", before a new initialize at line %d", s.EndedBy)
	}
	lines := s.LastLine - line
	switch {
	case lines <= 0 && s.EndedBy == 0 && s.StreamKey != "":
		return rule.Sprintf("the capture ends with no frame after it on stream %s", rule.As(streamKeyKind(s.StreamKey), s.StreamKey))
	case lines <= 0:
		return rule.Text(ends + " with it" + next)
	}
	span := "1 line later"
	if lines > 1 {
		span = fmt.Sprintf("%d lines later", lines)
	}
	if !t.IsZero() && !s.LastTime.IsZero() && s.LastTime.After(t) {
		span = roundDuration(s.LastTime.Sub(t)) + " and " + span
	}
	return rule.Text(ends + " " + span + next)
}

// count writes a count of things for a message: "1 message", "2 messages".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// sessionIDLike matches stream keys that look like session identifiers (an HTTP
// Mcp-Session-Id, bearer-like), as redact.StreamKey tells them from the names
// other captures key their streams by (a server's name).
var sessionIDLike = regexp.MustCompile(`^[A-Za-z0-9._~+/=-]{20,}$`)

// streamKeyKind is what a stream key quoted in a message is: a credential when it
// looks like a session identifier, else a name.
func streamKeyKind(key string) rule.ValueKind {
	if sessionIDLike.MatchString(key) {
		return rule.ValueCredential
	}
	return rule.ValueName
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

// place names a frame by its entry in a document, else its line.
func place(line, entry int) string {
	if entry > 0 {
		return "entry " + strconv.Itoa(entry)
	}
	return "line " + strconv.Itoa(line)
}
