package rules

import (
	"slices"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Reactions follows the notifications that ask their receiver to act: a
// list_changed asks it to list that kind again (spec.ListChangeOf: tools/list for
// tools, resources/list or resources/templates/list for resources), a
// resources/updated to read that resource again. It is the one judgement of
// whether a reaction was owed and came: MCP2007 reports from it, and the timeline
// marks each notification with it.
//
// Notifications of one kind (of one URI, for resources/updated) that follow each
// other before the receiver acts form a run; the receiver's first fitting request
// after them is the reaction of the whole run. A run is owed a reaction when its
// notifications were declared by their sender and, for a list_changed, the
// receiver had listed that kind before (a client that holds no list holds no stale
// one: servers announce at start-up what they register before the client first
// asks). A run still open when the session ends got no reaction, unless the
// session ended too soon after it to tell (refetchGrace, or right after it when the
// capture has no times).
var Reactions = &rule.Analysis{
	Name:     "reactions",
	Apart:    true, // a session's own state
	Requires: []*rule.Analysis{Gates},
	New: func(s *session.Session, r rule.Results) rule.Computation {
		return &ReactionLog{session: s, gates: r.ResultOf(Gates).(*GateLog)}
	},
}

// refetchGrace is how long a receiver is given to act before the capture ends.
const refetchGrace = time.Second

// maxOpenRuns caps the runs waiting for a reaction at once (updates of many URIs):
// past it the oldest is no longer followed (Reaction.Unjudged).
const maxOpenRuns = 1024

// ReactionLog is the result of Reactions for one session.
type ReactionLog struct {
	session *session.Session
	gates   *GateLog
	// current is the reaction asked by the message being visited (nil: none).
	current *Reaction
	// open are the runs waiting for a reaction, oldest first.
	open []*ReactionRun
	// listed says which list requests each direction sent (by method).
	listed map[listedKey]bool
	// ended lists the runs still open when the session ended, oldest first.
	ended []*ReactionRun
}

type listedKey struct {
	dir    spec.Direction
	method string
}

// Reaction is what one notification asked of its receiver (a list_changed or a
// resources/updated).
type Reaction struct {
	// Line, Entry and Seq place the notification (Line: its batch's, for a member).
	Line, Entry, Seq int
	Method           string
	// Expected are the requests that would count as acting on it ("resources/list",
	// "resources/templates/list").
	Expected []string
	// Receiver is the side that should act.
	Receiver spec.Side
	// Undeclared says why the receiver may drop the notification: its sender's own
	// declaration does not cover it ("" when it does, or when that is unknown).
	Undeclared string
	// Cannot says why the notification cannot be judged ("" when it can): no
	// direction, no contract, the sender's capabilities unknown.
	Cannot rule.Reason
	// Run is the run the notification belongs to (nil when it opened none: a
	// notification that cannot be judged).
	Run *ReactionRun
}

// ReactionRun is a run of notifications of one kind (one URI) before the receiver
// acted on them.
type ReactionRun struct {
	// Key is the notification's method, or "updated:" and the URI.
	Key string
	// First is the notification that opened the run, as a finding anchors it (its
	// bytes copied); Count the notifications in it.
	First rule.Anchor
	Count int
	// Kind is the list kind of a list_changed run ("" for resources/updated).
	Kind string
	// Owed is set when the receiver owed a reaction: the notifications were
	// declared and, for a list_changed, the receiver had listed that kind before.
	Owed bool
	// ReactionLine is the line of the request that acted on the run (0: none came),
	// By its method.
	ReactionLine int
	By           string
	// Unjudged is set when too many runs waited at once and this one was no longer
	// followed.
	Unjudged bool
	// Cannot says why a run still open when the session ended cannot be judged
	// (it ended too soon after it): "" when it can.
	Cannot rule.Reason
	from   spec.Direction // the direction the reaction travels
	expect []string
}

// Missing reports whether the run got no reaction it owed.
func (r *ReactionRun) Missing() bool {
	return r != nil && r.Owed && r.ReactionLine == 0 && !r.Unjudged && r.Cannot == ""
}

// Missing reports whether the notification got no reaction it owed (its run's).
func (r *Reaction) Missing() bool { return r != nil && r.Run.Missing() }

// Current is the reaction the message being visited asks for (nil when it asks
// for none): valid while the message is, and updated as the session goes on.
func (l *ReactionLog) Current() *Reaction { return l.current }

// Missing lists the runs that got no reaction they owed, oldest first: complete
// once the session ended.
func (l *ReactionLog) Missing() []*ReactionRun {
	var out []*ReactionRun
	for _, r := range l.ended {
		if r.Missing() {
			out = append(out, r)
		}
	}
	return out
}

// Ended lists the runs still open when the session ended (owed or not), oldest
// first.
func (l *ReactionLog) Ended() []*ReactionRun { return l.ended }

func (l *ReactionLog) Result() any { return l }

func (l *ReactionLog) Message(m *session.Message) {
	l.current = nil
	switch m.Kind {
	case frame.KindRequest:
		l.request(m)
	case frame.KindNotification:
		l.notification(m)
	}
}

// request closes the runs the request acts on, and remembers a list request.
func (l *ReactionLog) request(m *session.Message) {
	if _, ok := spec.ListChangeFetchedBy(m.Method); ok {
		if l.listed == nil {
			l.listed = map[listedKey]bool{}
		}
		if k := (listedKey{m.Dir, m.Method}); !l.listed[k] {
			k.method = strings.Clone(m.Method) // the frame's bytes are borrowed
			l.listed[k] = true
		}
	}
	if len(l.open) == 0 {
		return
	}
	updated := ""
	if m.Method == "resources/read" {
		updated = updatedKey(get(m.ParamsNode(), "uri").Text())
	}
	kept := l.open[:0]
	for _, r := range l.open {
		if (m.Dir == r.from || m.Dir == spec.DirUnknown) && slices.Contains(r.expect, m.Method) && (r.Kind != "" || r.Key == updated) {
			r.ReactionLine, r.By = lineOf(m), strings.Clone(m.Method)
			continue
		}
		kept = append(kept, r)
	}
	clear(l.open[len(kept):])
	l.open = kept
}

// updatedKey is the key of a run of resources/updated of uri.
func updatedKey(uri string) string { return "updated:" + uri }

func lineOf(m *session.Message) int {
	if m.Batch != nil {
		return m.Batch.Line
	}
	return m.Line
}

// notification records what a notification asks, and opens or extends its run.
func (l *ReactionLog) notification(m *session.Message) {
	var expected []string
	kind, key := "", m.Method
	if lc, ok := spec.ListChangeOf(m.Method); ok {
		expected, kind = lc.Lists(), lc.Kind
	}
	if m.Method == "notifications/resources/updated" {
		expected = []string{"resources/read"}
		key = updatedKey(get(m.ParamsNode(), "uri").Text())
	}
	if expected == nil {
		return
	}
	undeclared, cannot := l.senderDeclared()
	if kind != "" && cannot != "" && cannot != reasonDirectionUnknown && cannot != reasonNoContract && !l.listedBefore(m.Dir.Opposite(), expected) {
		cannot = "" // the receiver holds no list: nothing is owed, whatever was declared
	}
	a := rule.At(m)
	r := &Reaction{Line: a.Line, Entry: a.Entry, Seq: m.Seq, Method: strings.Clone(m.Method), Expected: expected, Receiver: spec.Receiver(m.Dir), Undeclared: undeclared, Cannot: cannot}
	l.current = r
	if m.Dir == spec.DirUnknown {
		return
	}
	from := m.Dir.Opposite()
	for _, run := range l.open {
		if run.Key == key && run.from == from {
			run.Count++
			r.Run = run
			return
		}
	}
	owed := cannot == "" && undeclared == ""
	if kind != "" {
		owed = owed && l.listedBefore(from, expected)
	}
	a.Raw = slices.Clone(m.Raw[:min(len(m.Raw), session.MaxRequestRaw)])
	a.ID, a.Method = strings.Clone(a.ID), strings.Clone(a.Method)
	run := &ReactionRun{Key: strings.Clone(key), First: a, Count: 1, Kind: kind, Owed: owed, from: from, expect: expected}
	if len(l.open) >= maxOpenRuns {
		l.open[0].Unjudged = true
		l.open = l.open[1:]
	}
	l.open = append(l.open, run)
	r.Run = run
}

// senderDeclared says whether the notification's sender declared it (Gates):
// why the receiver may drop it ("" when declared), or why that cannot be told.
func (l *ReactionLog) senderDeclared() (undeclared string, cannot rule.Reason) {
	v := l.gates.Current()
	return v.Lacking, v.Cannot
}

// listedBefore reports whether the side sending in direction d sent one of the
// list requests before.
func (l *ReactionLog) listedBefore(d spec.Direction, methods []string) bool {
	for _, method := range methods {
		if l.listed[listedKey{d, method}] || l.listed[listedKey{spec.DirUnknown, method}] {
			return true
		}
	}
	return false
}

// End settles the runs still open: those the session ended too soon after to
// judge say so.
func (l *ReactionLog) End(*rule.SessionResult) {
	l.current = nil
	s := l.session
	for _, r := range l.open {
		a, kind := r.First, r.Kind
		switch {
		case !r.Owed || kind == "":
			// A resources/updated has no grace: its read is owed at once.
		case !a.Time.IsZero() && !s.LastTime.IsZero() && s.LastTime.Sub(a.Time) < refetchGrace:
			r.Cannot = because(reasonEndsWithinGracef, refetchGrace, kind)
		case (a.Time.IsZero() || s.LastTime.IsZero()) && s.LastLine <= a.Line:
			r.Cannot = because(reasonEndsAtChangef, kind)
		}
	}
	l.ended, l.open = l.open, nil
}
