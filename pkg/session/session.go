// This file holds the Session and Message types: what a session keeps, what a rule
// sees of one message, and their small accessors.

package session

import (
	"fmt"
	"sort"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/bounded"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Session is one connection between one client and one server: from an initialize
// (or the first modern request) to the next initialize on the same stream, or the end.
type Session struct {
	Input     string
	Index     int // order of appearance in the input
	StreamKey string
	// FirstLine and LastLine are the first and last lines the session's frames are
	// on (the lowest and highest: a reader may hand frames out in time order).
	FirstLine int
	LastLine  int
	// StartLine and StartEntry are where the session's first frame (Seq 1) is: its
	// line, and its document entry (0 for line formats).
	StartLine  int
	StartEntry int
	FirstTime  time.Time
	LastTime   time.Time
	Era        Era
	// Legacy is the initialize contract (legacy era), nil before/without one.
	Legacy *Contract
	// Discover holds the latest server/discover result (modern era): server
	// capabilities, identity, instructions. nil when none was seen.
	Discover *Contract
	// ModernRevision is the latest revision seen in a request's _meta.
	ModernRevision spec.Revision
	// InitializedLine is the line of notifications/initialized (0 if not seen).
	InitializedLine int
	// Unordered is set when the capture's format does not order the two directions
	// causally (see frame.Frame.Unordered): rules that judge cross-direction order
	// must not rely on line order there.
	Unordered bool
	// EndedBy is the line of the initialize that replaced this session on its
	// stream (0 when the session ran to the end of the capture).
	EndedBy int
	// DeletedLine and DeletedEntry are where the HTTP DELETE that ended this session
	// is (a Streamable HTTP client ends its session with a DELETE the server
	// answers 2xx; the session's id is then gone): 0 when none did.
	DeletedLine, DeletedEntry int
	// Process is what a recording of a stdio session says of the end of the
	// server's process (nil when it says nothing): the client closing its stdin,
	// the signals it got, its exit.
	Process *ProcessEnd
	// Unconnected is set on the session of a connection that never reached a
	// handshake: a GET for an event stream without a session, refused, with no
	// session after it in the capture (see StreamRefusal). The session holds the
	// refusal's message when it carried one, else nothing.
	Unconnected *StreamRefusal
	// Gone is set when the server answered a request carrying the session's
	// Mcp-Session-Id with 404 Not Found: the session is gone, and the client must
	// start a new one with an initialize without the header. RestartedLine is the
	// line of the first session started after it (0: none before the capture
	// ended).
	Gone          *HTTPAt
	RestartedLine int
	// AfterDelete is set on a session opened, on the stream key of a session a
	// DELETE ended, by a message other than an initialize: the DELETE.
	AfterDelete *HTTPAt
	// Unassigned is set on a session opened by a client message sent without
	// Mcp-Session-Id while the session the server assigned an id to (in its
	// answer to the initialize) was still open: the client left the id off.
	Unassigned *Assignment
	// FallbackLine and FallbackEntry are where the initialize is that a
	// dual-era client sent after this session's server/discover probe: in the
	// session itself (stdio: the probe and the initialize are one session), or
	// opening a session of its own (HTTP: the initialize's answer names a new
	// Mcp-Session-Id). 0 when the client sent none while the session was open.
	// FallbackEntry is set only for a HAR's initialize (its exchange's entry).
	FallbackLine, FallbackEntry int
	// PreHandshake counts frames seen before any initialize or modern request.
	PreHandshake int

	Frames        int
	Requests      int
	Notifications int
	Responses     int
	Invalid       int

	// following holds the tables kept to follow the traffic while the session runs.
	following
	// augmentedOut counts the outstanding task-augmented requests in each direction
	// (see tokenOut).
	augmentedOut [3]int
	// Untracked counts the requests dropped from the outstanding table because
	// more than MaxOutstanding were waiting for a response at once: whether they
	// were answered is not known (MCP3001 and MCP3002 say they cannot judge).
	Untracked int
	// Forgotten counts the past requests the history forgot to keep within MaxPast:
	// a later use of their ids can no longer be told from a first.
	Forgotten int
	lastID    [3]int64 // last numeric request id per direction, for inferring ping's direction
	// maxID is the highest numeric request id per direction (numbered: one was seen).
	maxID      [3]int64
	numbered   [3]bool
	sentReqs   [3]int // requests seen per direction
	lastModern *Contract
	// tracker is the tracker that started the session: Release hands it the
	// session's tables for the next one.
	tracker *Tracker
	// resumed maps the Last-Event-IDs the session's GETs carried to the first
	// GET that carried each (ResumedFrom).
	resumed map[string]HTTPAt
	// probeOnly stays true while the session holds nothing but server/discover
	// requests and their responses (a dual-era client's probe); probed is set
	// once the client sent a server/discover.
	probeOnly, probed bool
	// terms numbers the contract terms of the session (Contract.Terms).
	terms uint64
}

// following is what a session keeps to follow the traffic while it runs: its
// pairing tables and what it remembers of finished requests. Release drops it.
type following struct {
	outstanding requestTable
	// outOrder lists the outstanding requests in the order they were sent (with
	// entries of requests answered since, skipped and compacted lazily): the oldest
	// is dropped when the table is full.
	outOrder []outstandingEntry
	// tokenOut counts, per progress token, the outstanding requests that carry it
	// in each direction (augmentedOut, on the session, the task-augmented ones):
	// direction inference asks these instead of walking every outstanding request.
	tokenOut map[string][3]int
	// tokensCounted says tokenOut is kept (outstandingTokens).
	tokensCounted bool
	orphans       map[requestKey]*Orphan // keyed by the request they would answer
	unplaced      map[string]*Request    // requests whose direction is unknown, by id
	ambiguous     map[string]*ambiguousResponse
	// doneTokens holds the directions of finished requests' progress tokens.
	doneTokens bounded.Recent[string, spec.Direction]
	// history holds the requests that left the outstanding table (Past).
	history     bounded.Recent[requestKey, Past]
	orphanOrder []*Orphan
	// taskSenders holds, for the tasks created by a CreateTaskResult, the direction
	// of that result: the task's receiver sends its notifications/tasks/status the
	// same way. Bounded like doneTokens.
	taskSenders bounded.Recent[string, spec.Direction]
}

// clear empties the tables and keeps their memory, for another session.
func (f *following) clear() {
	f.outstanding.clear()
	clear(f.outOrder[:cap(f.outOrder)])
	f.outOrder = f.outOrder[:0]
	clear(f.tokenOut)
	f.tokensCounted = false
	clear(f.orphans)
	clear(f.unplaced)
	clear(f.ambiguous)
	f.doneTokens.Clear()
	f.history.Clear()
	clear(f.orphanOrder[:cap(f.orphanOrder)])
	f.orphanOrder = f.orphanOrder[:0]
	f.taskSenders.Clear()
}

// newTerms gives a contract terms of its own: made, or changed.
func (s *Session) newTerms(c *Contract) {
	s.terms++
	c.terms = s.terms
}

// Release drops the state kept to follow the session (pairing, orphans, remembered
// tokens) once it has ended and its rules have run, so that a run over many sessions
// keeps only their contracts and counts. The tables, cleared, go to the tracker's
// next session: a capture of many sessions grows them once, not once a session
// (their growth was a third of what a check allocated).
func (s *Session) Release() {
	f, t := s.following, s.tracker
	s.following, s.tracker = following{}, nil // an ended session keeps neither
	for r := range f.outstanding.all() {
		r.Raw, r.waiting = nil, false // its rules have run: no finding is to come
	}
	if t != nil && t.spare == nil {
		f.clear()
		t.spare = &f
	}
}

// NoneAfter reports whether no session of the input started after s (at the
// capture's end: none ever did), while s is open or as it ends: a connection
// refused before any handshake that the client never followed with another.
func (s *Session) NoneAfter() bool { return s.tracker != nil && s.tracker.next == s.Index+1 }

// Tracked counts the items the session holds to follow traffic (outstanding
// requests, orphans, remembered tokens): bounded while it runs, 0 after Release.
func (s *Session) Tracked() int {
	return s.outstanding.len() + len(s.orphanOrder) + s.doneTokens.Len() + len(s.unplaced) + len(s.ambiguous) + s.taskSenders.Len() + s.history.Len()
}

// Outstanding returns the requests without a response, in line order.
func (s *Session) Outstanding() []*Request {
	out := make([]*Request, 0, s.outstanding.len())
	for r := range s.outstanding.all() {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Line != out[j].Line {
			return out[i].Line < out[j].Line
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Past returns what the session remembers of the latest request sent in direction
// d with this raw id (or one equal to it in value) that has left the outstanding
// table, and whether it remembers one.
func (s *Session) Past(d spec.Direction, id string) (Past, bool) {
	return s.history.Get(requestKey{d, frame.IDKey(id)})
}

// Pending returns the outstanding request sent in direction d with this raw id (or
// one equal to it in value, see frame.IDKey).
func (s *Session) Pending(d spec.Direction, id string) *Request {
	return s.outstanding.get(requestKey{d, frame.IDKey(id)})
}

// Contract is the session's contract as a whole: the initialize contract (legacy),
// or the latest modern request's contract; nil when none is known.
func (s *Session) Contract() *Contract {
	if s.Era != EraModern {
		return s.Legacy
	}
	if s.lastModern == nil {
		if s.Discover == nil {
			return nil
		}
		c := *s.Discover
		return &c
	}
	c := *s.lastModern
	s.copyDiscover(&c)
	return &c
}

// current is the contract for a message that is neither a request nor a response.
func (s *Session) current() *Contract {
	if s.Era == EraModern {
		return s.lastModern
	}
	return s.Legacy
}

// Message is one JSON-RPC message as rules see it: a frame, or one member of a batch.
type Message struct {
	*frame.Frame
	// Batch is the batch frame this message travelled in (nil if none). For the batch
	// itself, Frame is the batch and Batch is nil.
	Batch *frame.Frame
	// Request: for a request, its record; for a response, the request it answers
	// (nil when no outstanding request of the other side has its id).
	Request *Request
	// Contract governs the message; nil when none is known (no handshake yet).
	Contract *Contract
	Session  *Session
	// Orphan is set on a response that matched no outstanding request (yet).
	Orphan *Orphan
	// Earlier is set on a request whose id its sender used before in the session,
	// as far as the session remembers: that earlier request, in flight (this one
	// took its place in the outstanding table) or past (Session.Past).
	Earlier *Past
	// Seq is the position of the message's frame (for a batch member, of its batch)
	// among the frames of its session, from 1: what tells apart frames that share a
	// line (the events of one SSE body, the frames of a one-line document).
	Seq int

	method    spec.MethodRef // Spec's answer, once asked
	hasMethod bool
	// progress is ProgressToken's answer, and tool ToolName's, once asked.
	progress        string
	hasProgress     bool
	tool            string
	toolOK, hasTool bool
}

// ToolName is the name of the tool a tools/call request calls (its params' name,
// unescaped, aliasing the frame's bytes when it has no escapes); ok is false for
// another message, or a call whose name is missing or not a string. Read once
// however many ask: the rules that judge a call by its tool's definition.
func (m *Message) ToolName() (name string, ok bool) {
	if !m.hasTool {
		m.hasTool = true
		if m.Kind == frame.KindRequest && m.Method == "tools/call" {
			m.tool, m.toolOK = member(m.ParamsNode(), "name").Str()
		}
	}
	return m.tool, m.toolOK
}

// ProgressToken is the token of a progress notification (its params'
// progressToken) as its JSON text, aliasing the frame's bytes: "" for another
// message or one without a token. Read once however many ask: the direction
// inference and the rules that follow progress.
func (m *Message) ProgressToken() string {
	if !m.hasProgress {
		m.hasProgress = true
		if m.Kind == frame.KindNotification && m.Method == "notifications/progress" {
			m.progress = view(member(m.ParamsNode(), "progressToken").Raw())
		}
	}
	return m.progress
}

// Spec is the message's method resolved against the spec's method table, once per
// message however many rules ask (the zero MethodRef, unknown, for a response).
func (m *Message) Spec() spec.MethodRef {
	if !m.hasMethod {
		m.method, m.hasMethod = m.Frame.SpecMethod(), true
	}
	return m.method
}

// MethodIndex is the spec's index of the message's method
// (spec.MethodRef.Index): a request's or notification's own, a response's that
// of the request it answers; -1 for a method the spec does not know, a response
// to no known request, a batch or an invalid frame.
func (m *Message) MethodIndex() int {
	switch m.Kind {
	case frame.KindRequest, frame.KindNotification:
		return m.Spec().Index()
	case frame.KindResult, frame.KindError:
		if m.Request != nil {
			return m.Request.MethodIndex()
		}
	}
	return -1
}

// Revision is the governing revision ("" when unknown).
func (m *Message) Revision() spec.Revision {
	if m.Contract == nil {
		return ""
	}
	return m.Contract.Revision
}

// Unplaced reports whether the message's place among the other frames is unknown: a
// server message on a long-lived Streamable HTTP stream, the standalone GET stream
// (legacy: what is not tied to a request, such as list_changed, resources/updated,
// logging, server requests) or the response stream of a 2026-07-28
// subscriptions/listen request. An HTTP capture records the whole stream as one
// exchange at the time its request started, with no time for each event, so such a
// message may have been sent long after the frames that follow it. Rules that judge
// what came before or between (a subscription before an update, a notification
// between two lists) cannot place it.
func (m *Message) Unplaced() bool {
	h := m.HTTP
	if h == nil || !h.InResponse || h.Live {
		return false // a recording proxy wrote each event as it crossed
	}
	if h.Method == "GET" || h.McpMethod == "subscriptions/listen" {
		return true
	}
	if m.Kind != frame.KindNotification {
		return false
	}
	_, sub := m.ParamsNode().Path("_meta", "io.modelcontextprotocol/subscriptionId")
	return sub
}

// Sender is the side that sent the message (0 when the direction is unknown).
func (m *Message) Sender() spec.Side { return spec.Sender(m.Dir) }

// Exchange is an HTTP exchange that carried no MCP message as rules see it (a GET,
// a DELETE, or the status of an exchange that a recording proxy wrote as a record of
// its own): valid only during the visit.
type Exchange struct {
	*frame.HTTP
	// Line and Entry are where its record is (Entry 0 for line formats).
	Line  int
	Entry int
	Time  time.Time
	// Session is the session open on the exchange's stream; Contract governs it
	// (nil when none is known).
	Session  *Session
	Contract *Contract
}

// Revision is the governing revision ("" when unknown).
func (e *Exchange) Revision() spec.Revision {
	if e.Contract == nil {
		return ""
	}
	return e.Contract.Revision
}

// EndText says what ended the session, as findings about what it never saw say
// it: "the capture ends", "the session ends before a new initialize at line 7",
// "the client ends the session with a DELETE at entry 12".
func (s *Session) EndText() string {
	switch {
	case s.EndedBy > 0:
		return fmt.Sprintf("the session ends before a new initialize at line %d", s.EndedBy)
	case s.DeletedEntry > 0:
		return fmt.Sprintf("the client ends the session with a DELETE at entry %d", s.DeletedEntry)
	case s.DeletedLine > 0:
		return fmt.Sprintf("the client ends the session with a DELETE at line %d", s.DeletedLine)
	}
	return "the capture ends"
}
