// This file holds what the Tracker follows of an HTTP session's lifecycle beyond
// its messages: a connection refused before any handshake, a session the server
// answered 404 for, and traffic on a session after a DELETE ended it.

package session

import (
	"net/http"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// HTTPAt is the HTTP exchange at which something happened to a session: where its
// record is (Entry 0 for line formats), when, and the exchange.
type HTTPAt struct {
	Line, Entry int
	Time        time.Time
	HTTP        *frame.HTTP
}

// StreamRefusal is a GET for an event stream without a session (Accept:
// text/event-stream, no Mcp-Session-Id) that the server refused with 400, 404 or
// 405, and after which no session started before the capture ended: a client that
// opens its session as the 2024-11-05 HTTP+SSE transport does, talking to a server
// that does not serve it (a Streamable HTTP server wants an initialize POST). A
// probe before an initialize (mcp-remote, mcp-lite's clients) is followed by a
// session, and is none.
type StreamRefusal struct {
	HTTPAt
	key string // the stream the refusal was on
}

// maxDeleted bounds the deleted stream keys a tracker remembers.
const maxDeleted = 1024

// Started is the number of sessions the tracker has started.
func (t *Tracker) Started() int { return t.next }

// connected reports whether the session reached a handshake (an initialize
// request or a modern request).
func (s *Session) connected() bool {
	return s.Legacy != nil || s.Discover != nil || s.ModernRevision != ""
}

// refusedStream reports whether h is the response to a GET for an event stream
// without a session that the server refused as a server of the other transport
// does.
func refusedStream(h *frame.HTTP) bool {
	return h != nil && h.Endpoint == "" && h.OpensStream() && spec.FallbackStatus(h.Status)
}

// noteHTTP follows what an exchange (or a message's) status says of the session s
// open on its stream key (nil when none is).
func (t *Tracker) noteHTTP(key string, line, entry int, at time.Time, h *frame.HTTP, s *Session) {
	if h.Status == 0 {
		return // a recording's request, before its status
	}
	where := HTTPAt{Line: line, Entry: entry, Time: at}
	if s != nil && h.LastEventID != "" && h.Method == http.MethodGet {
		s.noteResumed(h.LastEventID, where)
	}
	if refusedStream(h) && (s == nil || !s.connected()) {
		// The latest refused stream request counts (a client with a session open
		// that asks for a stream it may not have is none).
		c := *h
		where.HTTP = &c
		t.attempt, t.attempted = &StreamRefusal{HTTPAt: where, key: key}, s
		return
	}
	if s != nil && s.Gone == nil && h.Status == http.StatusNotFound && h.SessionID != "" && !spec.WellKnownPath(h.Path) {
		c := *h
		where.HTTP = &c
		s.Gone = &where
		t.gone = append(t.gone, s)
	}
}

// restarted records, as a session starts at line, that the client started anew
// after the 404s the open sessions got.
func (t *Tracker) restarted(line int) {
	for i, s := range t.gone {
		s.RestartedLine = line
		t.gone[i] = nil
	}
	t.gone = t.gone[:0]
}

// noteDeleted remembers that a DELETE ended the session on stream key.
func (t *Tracker) noteDeleted(key string, at HTTPAt) {
	if key == "" {
		return
	}
	if t.deleted == nil {
		t.deleted = map[string]HTTPAt{}
	}
	if _, ok := t.deleted[key]; !ok {
		t.deletedOrder = append(t.deletedOrder, key)
	}
	c := *at.HTTP
	at.HTTP = &c
	t.deleted[key] = at
	if len(t.deletedOrder) > maxDeleted {
		delete(t.deleted, t.deletedOrder[0])
		t.deletedOrder = t.deletedOrder[1:]
	}
}

// afterDelete marks the session f starts on stream key when a DELETE ended the
// session the key named and f is no new initialize: the client sent it on a
// session it had ended.
func (t *Tracker) afterDelete(key string, f *frame.Frame, s *Session) {
	at, ok := t.deleted[key]
	if !ok {
		return
	}
	if f.Kind == frame.KindRequest && f.Method == "initialize" {
		return // a server that reuses ids: a new session
	}
	s.AfterDelete = &at
}

// closeAttempt gives the refused stream request nothing followed a session: the
// one its message joined, or one of its own.
func (t *Tracker) closeAttempt() {
	a := t.attempt
	if a == nil {
		return
	}
	s := t.attempted
	if s == nil || t.streams[s.StreamKey] != s {
		if old := t.streams[a.key]; old != nil {
			t.end(a.key, old)
		}
		s = t.begin(a.key, a.Line, a.Entry, a.Time)
	}
	if !s.connected() {
		s.Unconnected = a
	}
	t.attempt, t.attempted = nil, nil
}

// Assignment is the session the server assigned an id to, which a client message
// sent without Mcp-Session-Id left off: the id, and the initialize whose answer
// assigned it.
type Assignment struct {
	ID          string
	Line, Entry int
}

// opensConnection reports whether f is (or, as a batch, holds) a request a client
// opens a connection with: an initialize, or a dual-era client's server/discover
// probe.
func opensConnection(f *frame.Frame) bool {
	if f.Kind == frame.KindBatch {
		for i := range f.Members {
			if opensConnection(&f.Members[i]) {
				return true
			}
		}
		return false
	}
	return f.Kind == frame.KindRequest && (f.Method == "initialize" || f.Method == "server/discover")
}

// noteAssigned remembers the session s that f starts when the server assigned its
// id: an initialize (or a probe) POSTed without Mcp-Session-Id to a Streamable HTTP endpoint,
// whose stream key is the id the response carried.
func (t *Tracker) noteAssigned(f *frame.Frame, s *Session) {
	h := f.HTTP
	if h != nil && !h.InResponse && h.SessionID == "" && h.Endpoint == "" && s.StreamKey != "" && opensConnection(f) {
		t.assigned = s
	}
}

// unassigned returns the assignment a client message f sent without
// Mcp-Session-Id left off, when the session the server assigned an id to is still
// open (the server answered no 404 for it) and f opens no new connection (nil
// otherwise). s is the session open on f's
// stream: one older than the assignment (a probe before the initialize) is no
// session f can belong to.
func (t *Tracker) unassigned(f *frame.Frame, s *Session) *Assignment {
	h, a := f.HTTP, t.assigned
	if h == nil || h.InResponse || f.StreamKey != "" || h.SessionID != "" || h.Endpoint != "" || a == nil ||
		t.streams[a.StreamKey] != a || a.Gone != nil || opensConnection(f) || spec.WellKnownPath(h.Path) {
		return nil
	}
	if s != nil && s.Index > a.Index {
		return nil // the session the first such message opened
	}
	return &Assignment{ID: a.StreamKey, Line: a.StartLine, Entry: a.StartEntry}
}

// fellBack notes the initialize f (in session s) on the sessions it is the
// fallback of: s itself when it sent a server/discover probe and has no
// contract yet, and, over HTTP (an initialize sent without Mcp-Session-Id), the
// open session without a session id whose probe got no DiscoverResult.
func (t *Tracker) fellBack(s *Session, f *frame.Frame) {
	note := func(p *Session) {
		if p.probed && p.Legacy == nil && p.FallbackLine == 0 {
			p.FallbackLine = f.Line
			if f.HTTP != nil {
				p.FallbackEntry = f.Entry // a HAR names its exchanges by entry
			}
		}
	}
	note(s)
	if f.HTTP == nil || f.HTTP.SessionID != "" {
		return
	}
	if p := t.streams[""]; p != nil && p != s && p.Discover == nil {
		note(p)
	}
}

// maxResumed bounds the Last-Event-IDs a session remembers.
const maxResumed = 256

// noteResumed remembers that a GET of the session resumed a stream from the
// event id (the first GET that did).
func (s *Session) noteResumed(id string, at HTTPAt) {
	if _, ok := s.resumed[id]; ok || len(s.resumed) >= maxResumed {
		return
	}
	if s.resumed == nil {
		s.resumed = map[string]HTTPAt{}
	}
	s.resumed[strings.Clone(id)] = at
}

// ResumedFrom reports where a GET of the session resumed a stream with
// Last-Event-ID id, if one did.
func (s *Session) ResumedFrom(id string) (HTTPAt, bool) {
	at, ok := s.resumed[id]
	return at, ok
}
