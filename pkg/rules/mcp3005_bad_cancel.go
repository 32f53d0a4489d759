package rules

import (
	"fmt"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// cancelRaceFrames is how many frames a response may precede a cancellation of its
// request and still count as a race (the canceller had not seen it yet), in a
// capture without times.
const cancelRaceFrames = 3

// The option of MCP3005: how long before a cancellation a response may have been
// captured and still count as a race, in a capture with times.
const (
	cancelRaceOption = "cancel-race"
	// DefaultCancelRace is longer than a canceller takes to act on a response it
	// has read (a scheduler's tick, a collector's pause), and shorter than a timer
	// left running after the answer (LangChain's MCP adapter cancels 82 ms after
	// the response arrived).
	DefaultCancelRace = 50 * time.Millisecond
)

// BadCancel reports cancellations of requests that are not in flight from the
// canceller, and cancellations of initialize.
var BadCancel = &rule.Rule{
	ID:       "MCP3005",
	Name:     "bad-cancel",
	Severity: rule.SeverityWarning,
	Title:    "notifications/cancelled for a request not in flight from the same side, or for initialize",
	Anchor:   "the notifications/cancelled",
	Hint:     "cancel only your own requests that are still unanswered, never initialize; in 2026-07-28 a server cancels only to end a client's subscriptions/listen stream",
	Doc: rule.Doc{
		Sees: fmt.Sprintf("Each notifications/cancelled and the request its params.requestId names. Reported (warning): an id the sender "+
			"never used for a request; a request the sender's own side did not send (a side may cancel only its own requests); a request already "+
			"answered before the cancellation, beyond a race; and in 2026-07-28, a server cancellation of anything but the client's "+
			"subscriptions/listen request. Reported as an error: a cancellation of initialize. A response captured at most --cancel-race "+
			"(default %s) before the cancellation is a race the specification tolerates (both were in flight at once: the canceller had not "+
			"read the response yet) and is not reported; one captured earlier had reached the canceller, whatever came between (a timer left "+
			"running after the answer). In a capture without times the race is told by frames: a response at most %d frames before the "+
			"cancellation.", DefaultCancelRace, cancelRaceFrames),
		Why: "A receiver may ignore a cancellation it cannot match, so a wrong requestId usually means the work the sender wanted stopped keeps " +
			"running (and is billed, or changes data). Worse, when the id matches another request, the wrong work is stopped. A cancelled " +
			"initialize leaves the session without a contract. In 2026-07-28 a server cancellation has one meaning only: the end of a " +
			"subscriptions/listen stream.",
		Fix: "Keep the id of each request you send until its response arrives, and cancel only with that id, only while it is unanswered. " +
			"Never cancel initialize: close the connection instead. A server that wants to stop work the client asked for simply answers " +
			"(an error if needed); it does not send notifications/cancelled for the client's request.",
		Bad: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{}}}
{"jsonrpc":"2.0","id":4,"result":{"content":[]}}
(ten frames later, long after the answer)
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"user cancelled"}}`,
		Good: `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"slow","arguments":{}}}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"user cancelled"}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic/utilities/cancellation#behavior-requirements", Says: "Cancellation notifications MUST only reference requests that were previously issued in the same direction and are believed to still be in-progress. The initialize request MUST NOT be cancelled by clients."},
			{Revision: spec.Rev20250618, Page: "basic/utilities/cancellation#timing-considerations", Says: "Due to network latency, cancellation notifications may arrive after request processing has completed: both parties MUST handle these race conditions gracefully."},
			{Revision: spec.Rev20260728, Page: "basic/patterns/cancellation", Says: "Server-sent cancellation notifications MUST reference a subscriptions/listen request."},
		},
	},
	Options: []rule.Option{
		{Name: cancelRaceOption, Usage: "a response captured at most this long before its request's cancellation crossed it on the wire (MCP3005 bad-cancel)", Default: DefaultCancelRace},
	},
	Kinds: rule.KindsOf(frame.KindNotification),
	New:   rule.PerMessage(cancelWatch{}.Message),
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"notifications/cancelled"},
}

// maxAnsweredRemembered bounds the answered requests remembered per session (at
// least the latest half are, see bounded.Recent).
// cancelWatch judges each cancellation against the session's table of requests:
// those in flight (Session.Pending) and those that have left it (Session.Past). It
// keeps nothing of its own: every session shares one (rule.PerMessage).
type cancelWatch struct{}

func (w cancelWatch) Message(p *rule.Pass, m *session.Message) {
	if m.Kind == frame.KindNotification && m.Method == "notifications/cancelled" {
		w.cancel(p, m)
	}
}

// answered returns the latest answered request sent in direction d with this id
// that has left the session's outstanding table.
func answered(s *session.Session, d spec.Direction, id string) (session.Past, bool) {
	a, ok := s.Past(d, id)
	return a, ok && a.ResponseLine > 0
}

func (w cancelWatch) cancel(p *rule.Pass, m *session.Message) {
	requestID, ok := m.ParamsNode().Get("requestId")
	if !ok {
		p.CannotJudge(reasonNoRequestID)
		return
	}
	id := rawText(requestID) // requests are remembered by the value of their id; a lookup key, never kept
	s := m.Session
	if m.Dir == spec.DirUnknown {
		w.cancelUnknownDirection(p, m, id)
		return
	}
	sender, other := m.Sender(), spec.Sender(m.Dir.Opposite())
	modern := m.Contract != nil && m.Contract.Era == session.EraModern
	if r := s.Pending(m.Dir, id); r != nil {
		if r.Method == "initialize" {
			w.cancelledInitialize(p, m, r.Line)
		}
		return // in flight: a proper cancellation
	}
	if theirs := s.Pending(m.Dir.Opposite(), id); theirs != nil {
		switch {
		case modern && m.Dir == spec.S2C && theirs.LongLived:
			return // 2026-07-28: the server ends the client's subscriptions/listen stream
		case modern && m.Dir == spec.S2C:
			p.Report(rule.At(m), rule.Sprintf("the server cancelled the client's %s id=%s (line %d): in 2026-07-28 a server may send notifications/cancelled only to end a subscriptions/listen stream; to stop other work it answers the request",
				theirs.Method, id, theirs.Line), rule.Related{Line: theirs.Line, Note: "the client's " + theirs.Method})
		default:
			p.Report(rule.At(m), rule.Sprintf("the %s cancelled requestId %s, but the only request in flight with that id is the %s's %s (line %d): a side may cancel only requests it sent itself (the two sides' ids are separate)",
				sender, rule.QuoteJSON(rule.ValueID, id), other, theirs.Method, theirs.Line), rule.Related{Line: theirs.Line, Note: "the " + other.String() + "'s " + theirs.Method})
		}
		return
	}
	if a, ok := answered(s, m.Dir, id); ok {
		w.cancelledAnswered(p, m, a, sender, id)
		return
	}
	if a, ok := answered(s, m.Dir.Opposite(), id); ok {
		if m.Seq-a.AnsweredSeq <= cancelRaceFrames && modern && m.Dir == spec.S2C && a.Method == "subscriptions/listen" {
			return
		}
		p.Report(rule.At(m), rule.Sprintf("the %s cancelled requestId %s, which only the %s used, for %s (line %d, answered at line %d): a side may cancel only requests it sent itself, and only while they are in flight",
			sender, rule.QuoteJSON(rule.ValueID, id), other, a.Method, a.Line, a.ResponseLine), rule.Related{Line: a.Line, Note: "the " + other.String() + "'s " + a.Method})
		return
	}
	p.Report(rule.At(m), rule.Sprintf("the %s cancelled requestId %s, but it has no request with that id in flight (none sent, or answered too long ago to remember): the receiver will ignore it, and the work meant to stop goes on",
		sender, rule.QuoteJSON(rule.ValueID, id)))
}

// cancelledAnswered judges a cancellation of the sender's own request that was
// already answered: a race when the response came just before.
func (w cancelWatch) cancelledAnswered(p *rule.Pass, m *session.Message, a session.Past, sender spec.Side, id string) {
	if a.Method == "initialize" {
		w.cancelledInitialize(p, m, a.Line)
		return
	}
	related := rule.Related{Line: a.ResponseLine, Note: "the response to " + a.Method}
	if !m.Time.IsZero() && !a.ResponseTime.IsZero() {
		gap := m.Time.Sub(a.ResponseTime)
		if race := p.Option(cancelRaceOption).(time.Duration); gap <= race {
			return // the response crossed the cancellation on the wire
		}
		p.Report(rule.At(m), rule.Sprintf("the %s cancelled its %s id=%s (line %d) %s after its response arrived (line %d): the response had reached it, so this is no race; a cancellation must reference a request still in flight (a timeout timer left running after the answer?)",
			sender, a.Method, rule.QuoteJSON(rule.ValueID, id), a.Line, rule.Text(roundGap(gap)), a.ResponseLine), related)
		return
	}
	ago := m.Seq - a.AnsweredSeq
	if ago <= cancelRaceFrames {
		return // the response crossed the cancellation on the wire
	}
	p.Report(rule.At(m), rule.Sprintf("the %s cancelled its %s id=%s (line %d), which had been answered at line %d, %d frames earlier: a cancellation must reference a request still in flight",
		sender, a.Method, rule.QuoteJSON(rule.ValueID, id), a.Line, a.ResponseLine, ago), related)
}

// roundGap writes a time between two frames to a precision that reads well: whole
// milliseconds under ten seconds, tenths of a second above.
func roundGap(d time.Duration) string {
	if d < 10*time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

func (w cancelWatch) cancelledInitialize(p *rule.Pass, m *session.Message, line int) {
	p.ReportSeverity(rule.SeverityError, rule.At(m), rule.Sprintf("notifications/cancelled names the initialize request (line %d): initialize must never be cancelled; close the connection instead", line),
		rule.Related{Line: line, Note: "initialize request"})
}

// cancelUnknownDirection judges a cancellation whose sender the log does not show:
// the session could not place it, so no request of either side with that id is in
// flight (or both are). id is the raw requestId.
func (w cancelWatch) cancelUnknownDirection(p *rule.Pass, m *session.Message, id string) {
	s := m.Session
	if s.Pending(spec.C2S, id) != nil || s.Pending(spec.S2C, id) != nil {
		p.CannotJudge(reasonDirectionBothInFlight)
		return
	}
	c, cok := answered(s, spec.C2S, id)
	sv, sok := answered(s, spec.S2C, id)
	switch {
	case cok && c.Method == "initialize":
		w.cancelledInitialize(p, m, c.Line)
		return
	case (cok && m.Seq-c.AnsweredSeq <= cancelRaceFrames) || (sok && m.Seq-sv.AnsweredSeq <= cancelRaceFrames):
		return // a race with a response
	}
	last := 0
	switch {
	case cok && sok:
		last = max(c.ResponseLine, sv.ResponseLine)
	case cok:
		last = c.ResponseLine
	case sok:
		last = sv.ResponseLine
	}
	text := rule.Sprintf("notifications/cancelled for requestId %s, but no request with that id is in flight on either side", rule.QuoteJSON(rule.ValueID, id))
	if last > 0 {
		text = rule.Sprintf("%s (the last one was answered at line %d)", text, last)
	}
	p.Report(rule.At(m), rule.Sprintf("%s: a cancellation must reference a request its sender still has in flight", text))
}
