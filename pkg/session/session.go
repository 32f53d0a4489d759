package session

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Request is what a session remembers of one request, until its response and beyond
// (a Message that answers it points here).
type Request struct {
	Method string
	ID     string // raw JSON token
	Dir    spec.Direction
	Line   int
	Time   time.Time
	// Batch is set when the request travelled inside a JSON-RPC batch.
	Batch bool
	// ProgressToken is the raw JSON token of params._meta.progressToken ("" if none).
	ProgressToken string
	// Paginated is set when the request carried params.cursor.
	Paginated bool
	// TaskAugmented is set when the request carried params.task (2025-11-25): its
	// result may be a CreateTaskResult.
	TaskAugmented bool
	// Contract governs the request and its response.
	Contract *Contract
	// LongLived requests (subscriptions/listen) are answered only on graceful close.
	LongLived bool
	// HTTPStatus is the status of the HTTP exchange whose request body carried the
	// request (HTTP captures; 0 otherwise). A status of 400 or more answered the
	// request at the transport: there may be no JSON-RPC response to pair.
	HTTPStatus int

	Cancelled    bool
	CancelLine   int
	ResponseLine int // 0 while no response was seen
	ResponseTime time.Time
	ResponseErr  bool
	// AmbiguousResponse is the line of a response whose direction is unknown and
	// that answers either this request or the other side's outstanding request with
	// the same id (0 when there is none): which one stays open is not known.
	AmbiguousResponse int
	// Raw is a copy of the request frame, at most MaxRequestRaw bytes (evidence for
	// findings reported after the frame has gone, such as an unanswered request).
	Raw []byte
}

// MaxRequestRaw bounds the copy of a request kept with it.
const MaxRequestRaw = 2 << 10

// Answered reports whether a response was seen.
func (r *Request) Answered() bool { return r.ResponseLine > 0 }

// Orphan is a response that arrived when no outstanding request had its id. Logs
// written by concurrent goroutines (the Go SDK LoggingTransport logs a write after it
// completed) can show a response a few lines before its request: a request that
// arrives soon after, from the other side, with the same id, pairs with it.
type Orphan struct {
	Line    int
	Time    time.Time
	Dir     spec.Direction
	ID      string
	IsError bool
	// Paired is set when a later request claimed the response; RequestLine is its line.
	Paired      bool
	RequestLine int

	raw []byte // the response frame, kept for the results that build a contract
}

// Limits of orphan pairing: how many orphans wait, and how many lines later the
// request may come.
const (
	maxOrphans = 256
	// maxDoneTokens bounds the progress tokens of finished requests remembered.
	maxDoneTokens = 1024
	orphanWindow  = 64
)

// Session is one connection between one client and one server: from an initialize
// (or the first modern request) to the next initialize on the same stream, or the end.
type Session struct {
	Input     string
	Index     int // order of appearance in the input
	StreamKey string
	FirstLine int
	LastLine  int
	FirstTime time.Time
	LastTime  time.Time
	Era       Era
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
	// PreHandshake counts frames seen before any initialize or modern request.
	PreHandshake int

	Frames        int
	Requests      int
	Notifications int
	Responses     int
	Invalid       int

	outstanding map[requestKey]*Request
	lastID      [3]int64 // last numeric request id per direction, for inferring ping's direction
	sentReqs    [3]int   // requests seen per direction
	lastModern  *Contract
	orphans     map[requestKey]*Orphan // keyed by the request they would answer
	unplaced    map[string]*Request    // requests whose direction is unknown, by id
	ambiguous   map[string]*ambiguousResponse
	doneTokens  map[string]spec.Direction
	doneOrder   []string
	orphanOrder []*Orphan
	// taskSenders holds, for the tasks created by a CreateTaskResult, the direction
	// of that result: the task's receiver sends its notifications/tasks/status the
	// same way. Bounded like doneTokens.
	taskSenders map[string]spec.Direction
	taskOrder   []string
	// probeOnly stays true while the session holds nothing but server/discover
	// requests and their responses (a dual-era client's probe).
	probeOnly bool
}

// ambiguousResponse is a response without a direction whose id both sides had
// outstanding: it answers one of the two requests, and which one is known only once
// the other is answered.
type ambiguousResponse struct {
	line  int
	time  time.Time
	isErr bool
}

type requestKey struct {
	dir spec.Direction
	id  string
}

// Release drops the state kept to follow the session (pairing, orphans, remembered
// tokens) once it has ended and its rules have run, so that a run over many sessions
// keeps only their contracts and counts.
func (s *Session) Release() {
	s.outstanding, s.orphans, s.orphanOrder, s.doneTokens, s.doneOrder, s.unplaced, s.ambiguous = nil, nil, nil, nil, nil, nil, nil
	s.taskSenders, s.taskOrder = nil, nil
}

// Tracked counts the items the session holds to follow traffic (outstanding
// requests, orphans, remembered tokens): bounded while it runs, 0 after Release.
func (s *Session) Tracked() int {
	return len(s.outstanding) + len(s.orphanOrder) + len(s.doneOrder) + len(s.unplaced) + len(s.ambiguous) + len(s.taskOrder)
}

// Outstanding returns the requests without a response, in line order.
func (s *Session) Outstanding() []*Request {
	out := make([]*Request, 0, len(s.outstanding))
	for _, r := range s.outstanding {
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

// Pending returns the outstanding request sent in direction d with this raw id.
func (s *Session) Pending(d spec.Direction, id string) *Request {
	return s.outstanding[requestKey{d, id}]
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
	if h == nil || !h.InResponse {
		return false
	}
	if h.Method == "GET" || h.McpMethod == "subscriptions/listen" {
		return true
	}
	return m.Kind == frame.KindNotification && gjson.GetBytes(m.Params, `_meta.io\.modelcontextprotocol/subscriptionId`).Exists()
}

// Sender is the side that sent the message (0 when the direction is unknown).
func (m *Message) Sender() spec.Side { return spec.Sender(m.Dir) }

// Tracker follows the sessions of one input, stream by stream.
type Tracker struct {
	input   string
	streams map[string]*Session
	order   []string
	next    int
	onStart func(*Session)
	onEnd   func(*Session)
}

// NewTracker starts tracking an input; onStart and onEnd are called as sessions begin and end.
func NewTracker(input string, onStart, onEnd func(*Session)) *Tracker {
	return &Tracker{input: input, streams: map[string]*Session{}, onStart: onStart, onEnd: onEnd}
}

// Close ends every open session, in order of their first frame.
func (t *Tracker) Close() {
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
	if old := t.streams[key]; old != nil {
		old.EndedBy = f.Line
		t.onEnd(old)
	} else {
		t.order = append(t.order, key)
	}
	s := &Session{Input: t.input, Index: t.next, StreamKey: key, FirstLine: f.Line, FirstTime: f.Time, outstanding: map[requestKey]*Request{}, probeOnly: true}
	t.next++
	t.streams[key] = s
	t.onStart(s)
	return s
}

// Frame feeds one frame: it picks (or starts) the session, infers missing directions,
// pairs responses with requests, updates the contract, and calls visit for each
// message: first the batch frame itself, then each member.
func (t *Tracker) Frame(f *frame.Frame, visit func(*Message)) {
	s := t.streams[f.StreamKey]
	if s == nil || t.startsSession(s, f) {
		s = t.start(f.StreamKey, f)
	}
	s.Frames++
	s.LastLine = f.Line
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
		visit(&Message{Frame: f, Session: s, Contract: s.current()})
		return
	case frame.KindBatch:
		msgs := make([]Message, len(f.Members))
		dir := spec.DirUnknown
		for i := range f.Members {
			msgs[i] = Message{Frame: &f.Members[i], Batch: f, Session: s}
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
		visit(&Message{Frame: f, Session: s, Contract: s.current()})
		for i := range msgs {
			visit(&msgs[i])
		}
	default:
		m := Message{Frame: f, Session: s}
		s.track(&m)
		visit(&m)
	}
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
		if o := s.orphans[requestKey{spec.C2S, first.ID}]; o != nil && f.Line-o.Line <= orphanWindow {
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

// track updates the session with one message and fills m.Request and m.Contract.
func (s *Session) track(m *Message) {
	if m.Dir == spec.DirUnknown {
		s.inferDirection(m)
	}
	switch m.Kind {
	case frame.KindRequest:
		s.Requests++
		s.trackRequest(m)
	case frame.KindNotification:
		s.Notifications++
		s.trackNotification(m)
	case frame.KindResult, frame.KindError:
		s.Responses++
		if s.Era == EraUnknown {
			s.PreHandshake++
		}
		s.trackResponse(m)
	case frame.KindInvalid:
		s.Invalid++
		m.Contract = s.current()
	}
	if m.Method != "server/discover" && (m.Request == nil || m.Request.Method != "server/discover") {
		s.probeOnly = false
	}
}

func (s *Session) trackRequest(m *Message) {
	r := &Request{Method: strings.Clone(m.Method), ID: strings.Clone(m.ID), Dir: m.Dir, Line: m.Line, Time: m.Time, Batch: m.Batch != nil}
	r.Raw = bytes.Clone(m.Raw[:min(len(m.Raw), MaxRequestRaw)])
	r.LongLived = m.Method == "subscriptions/listen"
	if h := m.HTTP; h != nil && !h.InResponse {
		r.HTTPStatus = h.Status
	}
	meta := readParams(m.Params, r)
	if m.Dir != spec.DirUnknown {
		s.sentReqs[m.Dir]++
		if n, err := strconv.ParseInt(m.ID, 10, 64); err == nil {
			s.lastID[m.Dir] = n
		}
	}
	switch {
	case m.Method == "initialize" && m.Dir != spec.S2C:
		c := &Contract{Era: EraLegacy, RequestLine: m.Line, RequestRaw: r.Raw}
		p := gjson.ParseBytes(m.Params)
		c.Requested = p.Get("protocolVersion").String()
		if caps := p.Get("capabilities"); caps.Exists() {
			c.ClientCaps = []byte(caps.Raw)
		}
		c.Client = implementation(p.Get("clientInfo"))
		c.Revision = provisionalRevision(c.Requested)
		s.Era, s.Legacy = EraLegacy, c
	case meta.version.Exists() && m.Dir != spec.S2C:
		if s.Era == EraUnknown {
			s.Era = EraModern
		}
		s.lastModern = s.modernContract(m, meta, r.Raw)
	}
	if s.Era == EraUnknown {
		s.PreHandshake++
	}
	switch {
	case s.Era == EraModern && s.lastModern != nil && s.lastModern.RequestLine == m.Line:
		r.Contract = s.lastModern
	case s.Era == EraModern:
		r.Contract = s.withoutMeta(m)
	default:
		r.Contract = s.Legacy
	}
	m.Request, m.Contract = r, r.Contract
	if m.ID == "" || m.ID == "null" {
		return
	}
	if m.Dir == spec.DirUnknown {
		// Neither side can be named: a response with this id still answers it.
		if s.unplaced == nil {
			s.unplaced = map[string]*Request{}
		}
		if len(s.unplaced) < maxOrphans {
			s.unplaced[r.ID] = r
		}
		return
	}
	key := requestKey{m.Dir, r.ID}
	if o := s.orphans[key]; o != nil && m.Line-o.Line <= orphanWindow {
		s.forgetOrphan(o)
		o.Paired, o.RequestLine = true, m.Line
		if o.Dir == spec.DirUnknown {
			o.Dir = m.Dir.Opposite()
		}
		r.ResponseLine, r.ResponseTime, r.ResponseErr = o.Line, o.Time, o.IsError
		s.answered(r, o.Line, o.IsError, o.raw)
		s.rememberToken(r)
		o.raw = nil
		return
	}
	s.outstanding[key] = r
}

// orphanKeys are the requests an orphan could answer: the other side's request with
// its id, or either side's when its own direction is unknown.
func orphanKeys(o *Orphan) []requestKey {
	if o.Dir == spec.DirUnknown {
		return []requestKey{{spec.C2S, o.ID}, {spec.S2C, o.ID}}
	}
	return []requestKey{{o.Dir.Opposite(), o.ID}}
}

func (s *Session) forgetOrphan(o *Orphan) {
	for _, k := range orphanKeys(o) {
		if s.orphans[k] == o {
			delete(s.orphans, k)
		}
	}
}

// orphan remembers a response that matched no outstanding request, for a request
// that may still come (bounded: the oldest waiting orphans are forgotten first).
func (s *Session) orphan(m *Message) {
	o := &Orphan{Line: m.Line, Time: m.Time, Dir: m.Dir, ID: strings.Clone(m.ID), IsError: m.Kind == frame.KindError}
	if m.Kind == frame.KindResult && m.Dir == spec.S2C {
		if res := gjson.ParseBytes(m.Result); res.Get("protocolVersion").Exists() || res.Get("supportedVersions").Exists() {
			o.raw = bytes.Clone(m.Raw)
		}
	}
	m.Orphan = o
	if s.orphans == nil {
		s.orphans = map[requestKey]*Orphan{}
	}
	for _, k := range orphanKeys(o) {
		s.orphans[k] = o
	}
	s.orphanOrder = append(s.orphanOrder, o)
	if len(s.orphanOrder) > maxOrphans {
		s.forgetOrphan(s.orphanOrder[0])
		s.orphanOrder = s.orphanOrder[1:]
	}
}

// requestMeta is what a request's params say about the contract (modern) and progress.
type requestMeta struct {
	version, caps, info, raw gjson.Result
}

// readParams reads params.cursor and params._meta in one pass over params.
func readParams(params []byte, r *Request) requestMeta {
	var meta requestMeta
	if len(params) == 0 {
		return meta
	}
	gjson.ParseBytes(params).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "cursor":
			r.Paginated = v.Type != gjson.Null
		case "task":
			r.TaskAugmented = v.Type != gjson.Null
		case "_meta":
			meta.raw = v
			v.ForEach(func(mk, mv gjson.Result) bool {
				switch mk.Str {
				case "progressToken":
					r.ProgressToken = strings.Clone(mv.Raw)
				case "io.modelcontextprotocol/protocolVersion":
					meta.version = mv
				case "io.modelcontextprotocol/clientCapabilities":
					meta.caps = mv
				case "io.modelcontextprotocol/clientInfo":
					meta.info = mv
				}
				return true
			})
		}
		return true
	})
	return meta
}

// modernContract builds the contract of one modern request from its _meta and the
// latest server/discover result. Consecutive requests with the same _meta share one.
func (s *Session) modernContract(m *Message, meta requestMeta, raw []byte) *Contract {
	version := meta.version.String()
	if prev := s.lastModern; prev != nil && prev.Requested == version && string(prev.ClientCaps) == meta.caps.Raw && s.discoverLine() == prev.ServerCapsLine && prev.RequestLine != 0 {
		c := *prev
		c.RequestLine, c.RequestRaw = m.Line, raw
		return &c
	}
	c := &Contract{Era: EraModern, Requested: strings.Clone(version), RequestLine: m.Line, RequestRaw: raw}
	if meta.caps.Exists() {
		c.ClientCaps = []byte(meta.caps.Raw)
	}
	c.Client = implementation(meta.info)
	if rev, ok := spec.ParseRevision(version); ok {
		c.Revision = rev
		s.ModernRevision = rev
		c.Verdict = VerdictEchoed
	} else {
		c.Verdict = VerdictUnknown
	}
	s.copyDiscover(c)
	return c
}

// withoutMeta is the contract of a modern-session request that carried no _meta:
// the session's latest revision, no client declaration.
func (s *Session) withoutMeta(m *Message) *Contract {
	c := &Contract{Era: EraModern, Revision: s.ModernRevision, RequestLine: m.Line}
	if s.lastModern != nil {
		c.Requested = s.lastModern.Requested
		c.Client = s.lastModern.Client
	}
	s.copyDiscover(c)
	return c
}

func (s *Session) discoverLine() int {
	if s.Discover == nil {
		return 0
	}
	return s.Discover.ServerCapsLine
}

func (s *Session) copyDiscover(c *Contract) {
	if d := s.Discover; d != nil {
		c.ServerCaps, c.ServerCapsLine, c.Server, c.Instructions, c.SupportedVersions = d.ServerCaps, d.ServerCapsLine, d.Server, d.Instructions, d.SupportedVersions
		c.ResultRaw = d.ResultRaw
	}
}

func implementation(v gjson.Result) Implementation {
	return Implementation{Name: v.Get("name").String(), Version: v.Get("version").String()}
}

func (s *Session) trackNotification(m *Message) {
	switch m.Method {
	case "notifications/initialized":
		if m.Dir != spec.S2C && s.InitializedLine == 0 {
			s.InitializedLine = m.Line
		}
	case "notifications/cancelled":
		id := gjson.GetBytes(m.Params, "requestId").Raw
		r := s.outstanding[requestKey{m.Dir, id}]
		if r == nil && m.Dir == spec.S2C {
			// 2026-07-28: a server ends the client's subscriptions/listen stream.
			if l := s.outstanding[requestKey{spec.C2S, id}]; l != nil && l.LongLived {
				r = l
			}
		}
		if r != nil && !r.Cancelled {
			r.Cancelled, r.CancelLine = true, m.Line
		}
	}
	if s.Era == EraUnknown {
		s.PreHandshake++
	}
	m.Contract = s.current()
	if s.Era == EraModern {
		// A notification on a subscriptions/listen stream is governed by that request.
		if sub := gjson.GetBytes(m.Params, `_meta.io\.modelcontextprotocol/subscriptionId`); sub.Exists() {
			if r := s.outstanding[requestKey{m.Dir.Opposite(), sub.Raw}]; r != nil {
				m.Request, m.Contract = r, r.Contract
			}
		}
	}
}

func (s *Session) trackResponse(m *Message) {
	if m.Dir == spec.DirUnknown {
		m.Contract = s.current()
		if r := s.unplaced[m.ID]; r != nil {
			// It answers a request whose direction is unknown too.
			delete(s.unplaced, m.ID)
			r.ResponseLine, r.ResponseTime, r.ResponseErr = m.Line, m.Time, m.Kind == frame.KindError
			m.Request, m.Contract = r, r.Contract
			return
		}
		c2s, s2c := s.outstanding[requestKey{spec.C2S, m.ID}], s.outstanding[requestKey{spec.S2C, m.ID}]
		switch {
		case c2s == nil && s2c == nil:
			s.orphan(m) // no request of either side has its id (yet)
		case c2s != nil && s2c != nil:
			s.ambiguousResponse(m, c2s, s2c)
		}
		return
	}
	key := requestKey{m.Dir.Opposite(), m.ID}
	r := s.outstanding[key]
	if r == nil {
		m.Contract = s.current()
		s.orphan(m)
		return
	}
	delete(s.outstanding, key)
	r.ResponseLine, r.ResponseTime, r.ResponseErr = m.Line, m.Time, m.Kind == frame.KindError
	r.AmbiguousResponse = 0
	m.Request, m.Contract = r, r.Contract
	s.answered(r, m.Line, m.Kind == frame.KindError, m.Raw)
	s.rememberToken(r)
	if r.TaskAugmented && m.Kind == frame.KindResult {
		s.rememberTask(m)
	}
	if a := s.ambiguous[m.ID]; a != nil {
		// An earlier response without a direction answered one of the two requests
		// with this id: not this one, so the other side's.
		delete(s.ambiguous, m.ID)
		if other := s.outstanding[requestKey{r.Dir.Opposite(), m.ID}]; other != nil {
			s.closeAnswered(other, a.line, a.time, a.isErr)
		}
	}
}

// ambiguousResponse handles a response without a direction while both sides have a
// request with its id outstanding (a bare log where a server's request took the
// number of a client request in flight, and the response's shape does not tell):
// the first such response answers one of them, unknown which; a second one answers
// the other, so both are closed.
func (s *Session) ambiguousResponse(m *Message, c2s, s2c *Request) {
	if a := s.ambiguous[m.ID]; a != nil {
		delete(s.ambiguous, m.ID)
		// Both are answered by now: by this line at the latest.
		s.closeAnswered(c2s, m.Line, m.Time, false)
		s.closeAnswered(s2c, m.Line, m.Time, false)
		return
	}
	if len(s.ambiguous) >= maxOrphans {
		return
	}
	if s.ambiguous == nil {
		s.ambiguous = map[string]*ambiguousResponse{}
	}
	s.ambiguous[strings.Clone(m.ID)] = &ambiguousResponse{line: m.Line, time: m.Time, isErr: m.Kind == frame.KindError}
	c2s.AmbiguousResponse, s2c.AmbiguousResponse = m.Line, m.Line
}

// closeAnswered records a response to an outstanding request that no message was
// paired with (its response's direction was unknown).
func (s *Session) closeAnswered(r *Request, line int, t time.Time, isErr bool) {
	delete(s.outstanding, requestKey{r.Dir, r.ID})
	r.ResponseLine, r.ResponseTime, r.ResponseErr, r.AmbiguousResponse = line, t, isErr, 0
	s.rememberToken(r)
}

// rememberToken keeps the progress token of a finished request for a while, so that
// late progress in a log without directions can still be placed.
func (s *Session) rememberToken(r *Request) {
	if r.ProgressToken == "" {
		return
	}
	if s.doneTokens == nil {
		s.doneTokens = map[string]spec.Direction{}
	}
	s.doneTokens[r.ProgressToken] = r.Dir
	s.doneOrder = append(s.doneOrder, r.ProgressToken)
	if len(s.doneOrder) > maxDoneTokens {
		delete(s.doneTokens, s.doneOrder[0])
		s.doneOrder = s.doneOrder[1:]
	}
}

// rememberTask keeps the direction of a CreateTaskResult by its taskId, so that the
// task's status notifications can be placed in a log without directions.
func (s *Session) rememberTask(m *Message) {
	id := gjson.GetBytes(m.Result, "task.taskId")
	if id.Type != gjson.String {
		return
	}
	if s.taskSenders == nil {
		s.taskSenders = map[string]spec.Direction{}
	}
	key := strings.Clone(id.Str)
	if _, ok := s.taskSenders[key]; !ok {
		s.taskOrder = append(s.taskOrder, key)
	}
	s.taskSenders[key] = m.Dir
	if len(s.taskOrder) > maxDoneTokens {
		delete(s.taskSenders, s.taskOrder[0])
		s.taskOrder = s.taskOrder[1:]
	}
}

// provisionalRevision governs an initialize exchange until its result answers: the
// requested revision when it is a legacy one. An initialize always selects legacy
// semantics (2026-07-28 basic/versioning: "An initialize request selects legacy
// semantics ... as specified by the negotiated legacy protocol version"), so a client
// that asks for a modern revision there is answered with a legacy one at most as new
// as the newest legacy revision, which governs the request meanwhile. An unknown
// version gives none.
func provisionalRevision(requested string) spec.Revision {
	rev, ok := spec.ParseRevision(requested)
	if !ok {
		return ""
	}
	if !rev.Modern() {
		return rev
	}
	var newest spec.Revision
	for _, r := range spec.Revisions() {
		if !r.Modern() {
			newest = r
		}
	}
	return newest
}

// answered updates the contract from the response to r (initialize, server/discover).
func (s *Session) answered(r *Request, line int, isErr bool, raw []byte) {
	result := []byte(gjson.GetBytes(raw, "result").Raw)
	switch r.Method {
	case "initialize":
		c := r.Contract
		if c == nil {
			return
		}
		if isErr {
			c.Verdict, c.ErrorLine = VerdictFailed, line
			return
		}
		res := gjson.ParseBytes(result)
		c.Answered = res.Get("protocolVersion").String()
		if caps := res.Get("capabilities"); caps.Exists() {
			c.ServerCaps = []byte(caps.Raw)
		}
		c.Server = implementation(res.Get("serverInfo"))
		c.Instructions = res.Get("instructions").String()
		c.ResultLine, c.ServerCapsLine = line, line
		c.ResultRaw = bytes.Clone(raw[:min(len(raw), MaxContractRaw)])
		c.Revision = ""
		c.judgeVersion()
	case "server/discover":
		if isErr {
			return
		}
		res := gjson.ParseBytes(result)
		d := &Contract{Era: EraModern, ServerCapsLine: line, ResultRaw: bytes.Clone(raw[:min(len(raw), MaxContractRaw)])}
		if caps := res.Get("capabilities"); caps.Exists() {
			d.ServerCaps = []byte(caps.Raw)
		}
		d.Server = implementation(res.Get(`_meta.io\.modelcontextprotocol/serverInfo`))
		d.Instructions = res.Get("instructions").String()
		for _, v := range res.Get("supportedVersions").Array() {
			d.SupportedVersions = append(d.SupportedVersions, v.String())
		}
		s.Discover = d
		if s.Era == EraUnknown {
			s.Era = EraModern
		}
	}
}

// inferDirection fills in the direction of a message whose log did not say
// (DESIGN.md section 3): from the method's direction in the spec table; a response
// takes the opposite direction of the outstanding request with its id; progress and
// cancellation follow the request they refer to.
func (s *Session) inferDirection(m *Message) {
	set := func(d spec.Direction, why string) {
		m.Dir = d
		if d == spec.DirUnknown {
			m.DirReason = why
		} else {
			m.DirReason = "inferred: " + why
		}
	}
	switch m.Kind {
	case frame.KindRequest, frame.KindNotification:
		if d, ok := spec.DirectionIn(m.Method, s.revision()); ok {
			set(d, m.Method+" is sent one way only")
			return
		}
		if d, ok := spec.DirectionIn(m.Method, ""); ok {
			set(d, m.Method+" is sent one way only")
			return
		}
		switch m.Method {
		case "notifications/progress":
			token := gjson.GetBytes(m.Params, "progressToken").Raw
			var sent [3]bool
			for _, r := range s.outstanding {
				if r.ProgressToken == token && token != "" {
					sent[r.Dir] = true
				}
			}
			switch {
			case sent[spec.C2S] && sent[spec.S2C]:
				set(spec.DirUnknown, "progress token "+token+" is outstanding on both sides")
			case sent[spec.C2S]:
				set(spec.S2C, "progress for a request sent c2s")
			case sent[spec.S2C]:
				set(spec.C2S, "progress for a request sent s2c")
			case s.doneTokens[token] != spec.DirUnknown:
				d := s.doneTokens[token]
				set(d.Opposite(), "progress for a finished request sent "+d.String())
			default:
				set(spec.DirUnknown, "progress token "+token+" belongs to no outstanding request")
			}
		case "notifications/cancelled":
			id := gjson.GetBytes(m.Params, "requestId").Raw
			c2s, s2c := s.outstanding[requestKey{spec.C2S, id}], s.outstanding[requestKey{spec.S2C, id}]
			switch {
			case c2s != nil && s2c == nil:
				set(spec.C2S, "cancels a request the client sent")
			case s2c != nil && c2s == nil:
				set(spec.S2C, "cancels a request the server sent")
			default:
				set(spec.DirUnknown, "requestId "+id+" matches no single outstanding request")
			}
		case "notifications/tasks/status":
			// Sent by the side that created the task, the receiver of a task-augmented
			// request: the side whose CreateTaskResult carried the taskId, and a side
			// that received no request has no task to report on.
			d, known := s.taskSenders[gjson.GetBytes(m.Params, "taskId").String()]
			var augmented [3]bool // task-augmented requests in flight, by direction
			if !known {
				for _, r := range s.outstanding {
					augmented[r.Dir] = augmented[r.Dir] || r.TaskAugmented
				}
			}
			switch {
			case known:
				set(d, "the task was created by the CreateTaskResult sent "+d.String())
			case augmented[spec.C2S] != augmented[spec.S2C] && augmented[spec.C2S]:
				set(spec.S2C, "only the client has a task-augmented request in flight")
			case augmented[spec.C2S] != augmented[spec.S2C]:
				set(spec.C2S, "only the server has a task-augmented request in flight")
			case s.sentReqs[spec.S2C] == 0 && s.sentReqs[spec.C2S] > 0:
				set(spec.S2C, "the server has sent no requests, so only it can have tasks")
			case s.sentReqs[spec.C2S] == 0 && s.sentReqs[spec.S2C] > 0:
				set(spec.C2S, "the client has sent no requests, so only it can have tasks")
			default:
				set(spec.DirUnknown, m.Method+" can be sent by either side and the log does not say which")
			}
		default:
			if m.Kind == frame.KindRequest {
				if d, why := s.guessRequestDir(m.ID); d != spec.DirUnknown {
					set(d, why)
					return
				}
			}
			set(spec.DirUnknown, m.Method+" can be sent by either side and the log does not say which")
		}
	case frame.KindResult, frame.KindError:
		c2s, s2c := s.outstanding[requestKey{spec.C2S, m.ID}], s.outstanding[requestKey{spec.S2C, m.ID}]
		switch {
		case c2s != nil && s2c == nil:
			set(spec.S2C, "answers "+c2s.Method+" sent by the client")
		case s2c != nil && c2s == nil:
			set(spec.C2S, "answers "+s2c.Method+" sent by the server")
		case c2s != nil && s2c != nil:
			set(resultShape(m), "both sides have id "+m.ID+" outstanding; judged by the result's shape")
		default:
			set(spec.DirUnknown, "id "+m.ID+" matches no outstanding request")
		}
	}
}

// guessRequestDir infers the direction of a request that either side may send (ping)
// from the id sequences of the two sides.
func (s *Session) guessRequestDir(id string) (spec.Direction, string) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err == nil {
		c, sv := s.sentReqs[spec.C2S] > 0 && n == s.lastID[spec.C2S]+1, s.sentReqs[spec.S2C] > 0 && n == s.lastID[spec.S2C]+1
		switch {
		case c && !sv:
			return spec.C2S, "id " + id + " continues the client's id sequence"
		case sv && !c:
			return spec.S2C, "id " + id + " continues the server's id sequence"
		}
		// SDKs number their requests upwards: an id at or below the last one a side
		// used is not that side's next request (a server's first ping, id 0 or 1, after
		// the client's initialize took the same number).
		cPast, sPast := s.sentReqs[spec.C2S] > 0 && n <= s.lastID[spec.C2S], s.sentReqs[spec.S2C] > 0 && n <= s.lastID[spec.S2C]
		switch {
		case cPast && !sPast:
			return spec.S2C, "id " + id + " does not continue the client's id sequence (its last id was " + strconv.FormatInt(s.lastID[spec.C2S], 10) + ")"
		case sPast && !cPast:
			return spec.C2S, "id " + id + " does not continue the server's id sequence (its last id was " + strconv.FormatInt(s.lastID[spec.S2C], 10) + ")"
		}
	}
	if s.sentReqs[spec.S2C] == 0 {
		return spec.C2S, "the server has sent no requests so far"
	}
	return spec.DirUnknown, ""
}

// resultShape guesses who sent a result from its members.
func resultShape(m *Message) spec.Direction {
	if m.Kind != frame.KindResult {
		return spec.DirUnknown
	}
	d := spec.DirUnknown
	content := false
	gjson.ParseBytes(m.Result).ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "protocolVersion", "capabilities", "tools", "resources", "resourceTemplates", "prompts", "contents", "messages", "completion", "isError", "structuredContent", "supportedVersions", "resultType", "inputRequests", "ttlMs", "cacheScope":
			d = spec.S2C
			return false
		case "roots", "model", "role", "action", "stopReason":
			d = spec.C2S
			return false
		case "content":
			content = true // a tool result, unless a sampling or elicitation member says otherwise
		}
		return true
	})
	if d == spec.DirUnknown && content {
		d = spec.S2C
	}
	return d
}

func (s *Session) revision() spec.Revision {
	if c := s.current(); c != nil {
		return c.Revision
	}
	return ""
}
