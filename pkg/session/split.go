// This file holds the Tracker: how the frames of an input are grouped into sessions,
// stream by stream, and when a frame starts a new one.

package session

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Tracker follows the sessions of one input, stream by stream.
type Tracker struct {
	input   string
	streams map[string]*Session
	order   []string
	next    int
	onStart func(*Session)
	onEnd   func(*Session)
	msg     Message // the message of the frame being visited
	// spare holds the tables of the latest ended session, cleared, for the next
	// one (Session.Release).
	spare *following
	// borrowed are the requests whose Raw is still their frame's bytes (Settle).
	borrowed []*Request
	// declarations are capability objects read, by their bytes, for the contracts
	// that declare the same (Session.declare): at most maxDeclarations.
	declarations map[string]frame.Node
	// attempt is the latest refused request for an event stream without a session
	// (see StreamRefusal) that no session has started after yet, and attempted the
	// session its own message joined (nil when it carried none).
	attempt   *StreamRefusal
	attempted *Session
	// gone are the open sessions the server answered 404 for, until a session
	// starts after (Session.Gone); deleted are the stream keys whose session a
	// DELETE ended, and where (bounded by maxDeleted).
	gone []*Session
	// assigned is the latest session whose id the server assigned in its answer
	// to an initialize POSTed without one (Streamable HTTP).
	assigned     *Session
	deleted      map[string]HTTPAt
	deletedOrder []string
}

// Settle makes the requests of the frames fed since the last Settle independent of
// those frames' bytes: a request still outstanding keeps a copy of its bytes (the
// evidence if it is never answered), the others none. A caller that reuses the
// memory of the frames it fed (a batch's arena) calls Settle first; in a healthy
// capture most requests are answered before, and their bytes are never copied.
func (t *Tracker) Settle() {
	for i, r := range t.borrowed {
		if r.waiting {
			r.Raw = bytes.Clone(r.Raw)
		} else {
			r.Raw = nil
		}
		t.borrowed[i] = nil
	}
	t.borrowed = t.borrowed[:0]
}

// NewTracker starts tracking an input; onStart and onEnd are called as sessions begin and end.
func NewTracker(input string, onStart, onEnd func(*Session)) *Tracker {
	return &Tracker{input: input, streams: map[string]*Session{}, onStart: onStart, onEnd: onEnd}
}

// Close ends every open session, in order of their first frame.
func (t *Tracker) Close() {
	t.Settle()
	t.closeAttempt()
	open := make([]*Session, 0, len(t.streams))
	for _, k := range t.order {
		if s := t.streams[k]; s != nil {
			open = append(open, s)
		}
	}
	sort.Slice(open, func(i, j int) bool { return open[i].Index < open[j].Index })
	for _, s := range open {
		t.onEnd(s)
	}
	t.streams = map[string]*Session{}
	t.order = nil
}

func (t *Tracker) start(key string, f *frame.Frame) *Session {
	t.attempt, t.attempted = nil, nil // the client went on after a refused stream
	t.restarted(f.Line)
	if old := t.streams[key]; old != nil {
		old.EndedBy = f.Line
		t.onEnd(old)
	}
	s := t.begin(key, f.Line, f.Entry, f.Time)
	t.afterDelete(key, f, s)
	t.noteAssigned(f, s)
	return s
}

// begin opens a session on a stream with no session open.
func (t *Tracker) begin(key string, line, entry int, at time.Time) *Session {
	s := &Session{Input: t.input, Index: t.next, StreamKey: key, FirstLine: line, StartLine: line, StartEntry: entry, FirstTime: at, probeOnly: true, tracker: t}
	if t.spare != nil {
		s.following, t.spare = *t.spare, nil // an ended session's tables, cleared
	}
	if _, ok := t.streams[key]; !ok {
		t.order = append(t.order, key)
	}
	t.next++
	t.streams[key] = s
	t.onStart(s)
	return s
}

// Frame feeds one frame: it picks (or starts) the session, infers missing directions,
// pairs responses with requests, updates the contract, and calls visit for each
// message: first the batch frame itself, then each member. The request records it
// makes hold on to the frame's bytes until Settle.
func (t *Tracker) Frame(f *frame.Frame, visit func(*Message)) {
	s := t.streams[f.StreamKey]
	unassigned := t.unassigned(f, s)
	if s == nil || unassigned != nil || t.startsSession(s, f) {
		s = t.start(f.StreamKey, f)
		s.Unassigned = unassigned
	}
	if f.HTTP != nil {
		t.noteHTTP(f.StreamKey, f.Line, f.Entry, f.Time, f.HTTP, s)
		if f.HTTP.InResponse {
			s.settleStatus(f.HTTP) // a refusal whose body a recording kept as a message (a JSON-RPC error with a null id)
		}
	}
	if f.Kind == frame.KindRequest && f.Method == "initialize" && f.Dir != spec.S2C {
		t.fellBack(s, f)
	}
	s.Frames++
	// The lines the session spans: frames come in time order, which is not line
	// order where the reader sorted them (HAR entries by startedDateTime).
	s.FirstLine, s.LastLine = min(s.FirstLine, f.Line), max(s.LastLine, f.Line)
	s.Unordered = s.Unordered || f.Unordered
	if !f.Time.IsZero() {
		if s.FirstTime.IsZero() {
			s.FirstTime = f.Time
		}
		s.LastTime = f.Time
	}
	switch f.Kind {
	case frame.KindInvalid:
		s.Invalid++
		s.probeOnly = false
		visit(&Message{Frame: f, Session: s, Contract: s.current(), Seq: s.Frames})
		return
	case frame.KindBatch:
		msgs := make([]Message, len(f.Members))
		dir := spec.DirUnknown
		for i := range f.Members {
			msgs[i] = Message{Frame: &f.Members[i], Batch: f, Session: s, Seq: s.Frames}
			if msgs[i].Dir == spec.DirUnknown {
				s.inferDirection(&msgs[i])
			}
			if msgs[i].Dir != spec.DirUnknown {
				dir = msgs[i].Dir
			}
		}
		for i := range msgs {
			if msgs[i].Dir == spec.DirUnknown && dir != spec.DirUnknown {
				msgs[i].Dir, msgs[i].DirReason = dir, "inferred: travelled in a batch sent "+dir.String()
			}
			s.track(&msgs[i])
		}
		if f.Dir == spec.DirUnknown && dir != spec.DirUnknown {
			f.Dir, f.DirReason = dir, "inferred from the batch's members"
		}
		visit(&Message{Frame: f, Session: s, Contract: s.current(), Seq: s.Frames})
		for i := range msgs {
			visit(&msgs[i])
		}
	default:
		// One Message reused for every frame: like the frame it wraps, it is valid
		// only during visit (rules copy what they keep: rule.At, kept anchors).
		t.msg = Message{Frame: f, Session: s, Seq: s.Frames}
		s.track(&t.msg)
		visit(&t.msg)
	}
}

// Exchange feeds an HTTP exchange that carried no MCP message (a context record at
// line and entry): visit sees it with the session open on its stream, if any (an
// exchange starts no session and is no frame of one). An error status settles the
// HTTP status of the requests in flight that the exchange's request carried (a
// recording writes the status after the message).
func (t *Tracker) Exchange(line, entry int, x *frame.Exchange, visit func(*Exchange)) {
	s := t.streams[x.StreamKey]
	if x.HTTP == nil {
		return
	}
	t.noteHTTP(x.StreamKey, line, entry, x.Time, x.HTTP, s)
	if s == nil {
		return
	}
	s.settleStatus(x.HTTP)
	if h := x.HTTP; h.StreamEnded && h.Exchange > 0 && h.Status >= 200 && h.Status < 300 {
		// A recording's end of the event stream that answered a request still
		// outstanding: the stream ended without its response.
		for r := range s.outstanding.all() {
			if r.HTTPExchange == h.Exchange {
				r.StreamOpened, r.StreamLastID = true, strings.Clone(h.StreamLastID)
			}
		}
	}
	visit(&Exchange{HTTP: x.HTTP, Line: line, Entry: entry, Time: x.Time, Session: s, Contract: s.current()})
	if h := x.HTTP; h.Method == "DELETE" && h.Status >= 200 && h.Status < 300 {
		// The client ended the session and the server agreed: its id names no
		// session any more, and what it still owed is owed no more. A HAR has
		// the status on the request's entry; a recording writes it when the
		// response's headers cross, and the status of every plain body the
		// same way, so a refusal the client ended the session over is before
		// it.
		s.DeletedLine, s.DeletedEntry = line, entry
		t.noteDeleted(x.StreamKey, HTTPAt{Line: line, Entry: entry, Time: x.Time, HTTP: h})
		t.end(x.StreamKey, s)
	}
}

// settleStatus gives an error status that a record of a recording's exchange
// brings to the requests still in flight that the exchange's request carried (a
// recording writes the request before its status).
func (s *Session) settleStatus(h *frame.HTTP) {
	if h.Status < 400 || h.Exchange == 0 {
		return
	}
	for r := range s.outstanding.all() {
		if r.HTTPExchange == h.Exchange && r.HTTPStatus == 0 {
			r.HTTPStatus = h.Status
		}
	}
}

// end ends the session open on the stream key: the stream has none after it.
func (t *Tracker) end(key string, s *Session) {
	t.onEnd(s)
	delete(t.streams, key)
	if i := slices.Index(t.order, key); i >= 0 {
		t.order = slices.Delete(t.order, i, i+1)
	}
}

// Boundary reports whether f, fed next, would start tracking afresh: it would
// start a session on its stream and leave no other session open, and the Tracker
// keeps nothing of the frames before that the frames to come would read (no
// HTTP state: a refused stream, a 404, an assigned id or a DELETE). Then a new
// Tracker fed f and what follows tracks them as this one would, the numbering
// of sessions aside (it starts at 0, this one at Started): what lets the regions
// of a file be tracked apart (driver). An HTTP message is never a boundary.
func (t *Tracker) Boundary(f *frame.Frame) bool {
	if f.HTTP != nil || t.attempt != nil || len(t.gone) > 0 || t.assigned != nil || len(t.deleted) > 0 {
		return false
	}
	for k, s := range t.streams {
		if s != nil && k != f.StreamKey {
			return false
		}
	}
	s := t.streams[f.StreamKey]
	return s == nil || t.startsSession(s, f)
}

// CloseBefore ends tracking as feeding f, a Boundary, would begin: the session
// open on f's stream ends with f (Session.EndedBy), then every session is
// closed (Close), which leaves none.
func (t *Tracker) CloseBefore(f *frame.Frame) {
	t.Settle()
	t.restarted(f.Line)
	if old := t.streams[f.StreamKey]; old != nil {
		old.EndedBy = f.Line
		t.end(f.StreamKey, old)
	}
	t.Close()
}

// startsSession decides whether f opens a new session on the stream.
func (t *Tracker) startsSession(s *Session, f *frame.Frame) bool {
	first := f
	if f.Kind == frame.KindBatch && len(f.Members) > 0 {
		first = &f.Members[0]
		for i := range f.Members {
			if m := &f.Members[i]; m.Kind == frame.KindRequest && m.Method == "initialize" {
				first = m
				break
			}
		}
	}
	if first.Kind != frame.KindRequest || first.Dir == spec.S2C {
		return false
	}
	if first.Method == "initialize" && s.Legacy == nil {
		// Its result was logged first (concurrent loggers): it belongs here.
		if o := s.orphans[requestKey{spec.C2S, frame.IDKey(first.ID)}]; o != nil && s.Frames+1-o.Seq <= orphanWindow {
			return false
		}
	}
	switch first.Method {
	case "initialize":
		// A dual-era probe (server/discover refused, then initialize) stays one session.
		return s.Legacy != nil || (s.Frames > 0 && !(s.probeOnly && s.Discover == nil))
	case "server/discover":
		return s.Legacy != nil
	}
	return false
}
