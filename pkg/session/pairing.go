// This file holds the pairing of requests with their responses in each direction:
// outstanding requests, orphan responses that arrive before their request, and
// responses without a direction that could answer either side.

package session

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Request is what a session remembers of one request, until its response and beyond
// (a Message that answers it points here).
type Request struct {
	Method string
	ID     string // raw JSON token
	// Key is the id as requests and responses are paired by it: frame.IDKey(ID), so
	// that 1.0 answers 1 and "\u0037" answers "7".
	Key string
	Dir spec.Direction
	// method is one more than the spec's index of Method (spec.MethodRef.Index): 0
	// when the spec does not define it, or for a record not made by a session.
	method int32
	Line   int
	// Entry is the document entry that carried the request (frame.Frame.Entry, 0 for
	// line formats); Seq its frame's position in the session (Message.Seq).
	Entry int
	Seq   int
	Time  time.Time
	// Batch is set when the request travelled inside a JSON-RPC batch.
	Batch bool
	// ProgressToken is the raw JSON token of params._meta.progressToken ("" if none);
	// ProgressKey is frame.IDKey(ProgressToken), what progress is matched by.
	ProgressToken string
	ProgressKey   string
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
	// HTTPExchange is the number of that exchange (frame.HTTP.Exchange; 0 otherwise):
	// a recording settles HTTPStatus by a later record of the exchange.
	HTTPExchange int
	// StreamOpened is set when the exchange answered the request with an event
	// stream that ended (a HAR keeps it whole; a recording writes its end),
	// StreamLastID then the id of its last event ("" when it carried none):
	// where a client resumes it from.
	StreamOpened bool
	StreamLastID string

	// Cancelled is set by the first notifications/cancelled its sender sent for it
	// while it was in flight: at CancelLine, CancelSeq (Message.Seq) and CancelTime
	// (zero when the capture has no times).
	Cancelled    bool
	CancelLine   int
	CancelSeq    int
	CancelTime   time.Time
	ResponseLine int // 0 while no response was seen
	ResponseTime time.Time
	ResponseErr  bool
	// AmbiguousResponse is the line of a response whose direction is unknown and
	// that answers either this request or the other side's outstanding request with
	// the same id (0 when there is none): which one stays open is not known.
	AmbiguousResponse int
	// Raw is the request frame, at most MaxRequestRaw bytes, while the request is
	// outstanding: the evidence for a finding on a request never answered, reported
	// after the frame has gone. It is the frame's own bytes until Tracker.Settle,
	// then a copy if the request is still outstanding; nil once the request left
	// the outstanding table (answered, or dropped when it was full).
	Raw []byte
	// waiting says the request is in its session's outstanding table.
	waiting bool
}

// MaxRequestRaw bounds the copy of a request kept with it.
const MaxRequestRaw = 2 << 10

// MethodIndex is the index of the request's method among the spec's methods
// (spec.MethodRef.Index), -1 for a method the spec does not define: a key for the
// method that is cheaper to compare and hash than its name.
func (r *Request) MethodIndex() int { return int(r.method) - 1 }

// Answered reports whether a response was seen.
func (r *Request) Answered() bool { return r.ResponseLine > 0 }

// Past is what a session remembers of a request that left its outstanding table
// (answered, or dropped while more than MaxOutstanding were waiting), so that a
// later request or cancellation with its id can be judged against it: the latest
// MaxPast of them, one per sender and id.
type Past struct {
	Method string
	Line   int
	Seq    int // its frame's position in the session (Message.Seq)
	// ResponseLine is the line of its response, 0 when it left unanswered (dropped);
	// AnsweredSeq is the position at which the session paired the two: the
	// response's, or the request's when the response came first.
	ResponseLine int
	AnsweredSeq  int
	// ResponseTime is when its response was captured (zero when the capture has
	// no times, or it left unanswered).
	ResponseTime time.Time
	Cancelled    bool
	// InputRequired: answered with a 2026-07-28 InputRequiredResult (MRTR), so the
	// request is to be retried, and the retry takes a new id.
	InputRequired bool
}

// Done reports whether the request was answered or cancelled.
func (p *Past) Done() bool { return p.ResponseLine > 0 || p.Cancelled }

// MaxPast bounds the past requests a session remembers: twice as many as it
// follows in flight.
const MaxPast = 2 * MaxOutstanding

func (r *Request) past() Past {
	return Past{Method: r.Method, Line: r.Line, Seq: r.Seq, ResponseLine: r.ResponseLine, ResponseTime: r.ResponseTime, Cancelled: r.Cancelled}
}

// rememberPast keeps a request that left the outstanding table in the history;
// key must be the request's own (r.Key, kept), not one that aliases a frame.
func (s *Session) rememberPast(key requestKey, r *Request, answeredSeq int, inputRequired bool) {
	p := r.past()
	p.AnsweredSeq, p.InputRequired = answeredSeq, inputRequired
	s.Forgotten += s.history.Put(key, p, MaxPast)
}

// Orphan is a response that arrived when no outstanding request had its id. Logs
// written by concurrent goroutines (the Go SDK LoggingTransport logs a write after it
// completed) can show a response a few lines before its request: a request that
// arrives soon after, from the other side, with the same id, pairs with it.
type Orphan struct {
	Line int
	// Seq is the response's position in the session (Message.Seq).
	Seq     int
	Time    time.Time
	Dir     spec.Direction
	ID      string
	IsError bool
	key     string // frame.IDKey(ID)
	// AfterUntracked is set when the session had already dropped requests from its
	// full outstanding table: the response may answer one of them.
	AfterUntracked bool
	// Paired is set when a later request claimed the response; RequestLine is its line.
	Paired      bool
	RequestLine int

	raw []byte // the response frame, kept for the results that build a contract
}

// Limits of orphan pairing: how many orphans wait, and how many frames later the
// request may come (frames, not lines: the lines of a document entry's frames are
// as far apart as the document's layout puts them).
const (
	maxOrphans   = 256
	orphanWindow = 64
)

// ambiguousResponse is a response without a direction whose id both sides had
// outstanding: it answers one of the two requests, and which one is known only once
// the other is answered.
type ambiguousResponse struct {
	line  int
	seq   int
	time  time.Time
	isErr bool
}

type requestKey struct {
	dir spec.Direction
	id  string
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
	if m.Method == "server/discover" && m.Dir != spec.S2C {
		s.probed = true
	}
	r := &Request{Method: keptMethod(m), method: int32(m.Spec().Index() + 1), Dir: m.Dir, Line: m.Line, Entry: m.Entry, Seq: m.Seq, Time: m.Time, Batch: m.Batch != nil}
	r.LongLived = m.Method == "subscriptions/listen"
	if h := m.HTTP; h != nil && !h.InResponse {
		r.HTTPStatus, r.HTTPExchange = h.Status, h.Exchange
		if !h.Live && h.Status >= 200 && h.Status < 300 && h.ContentType == spec.EventStreamType && h.BodyAs == "" {
			r.StreamOpened, r.StreamLastID = true, strings.Clone(h.StreamLastID)
		}
	}
	meta := readParams(m, r)
	raw := m.Raw[:min(len(m.Raw), MaxRequestRaw)]
	r.Raw = raw[:len(raw):len(raw)]
	s.borrow(r)
	r.ID, r.ProgressToken = keepIDs(m.ID, meta.progressToken)
	r.Key = frame.IDKey(r.ID) // r.ID itself when it is canonical
	r.ProgressKey = frame.IDKey(r.ProgressToken)
	// fresh: a numeric id above every numeric id its sender used in the session
	// (a counter's next), so no request of the session had it: the tables need not
	// be asked (a string id never equals a number).
	fresh := false
	if m.Dir != spec.DirUnknown {
		s.sentReqs[m.Dir]++
		if n, err := strconv.ParseInt(r.Key, 10, 64); err == nil {
			s.lastID[m.Dir] = n
			if fresh = !s.numbered[m.Dir] || n > s.maxID[m.Dir]; fresh {
				s.maxID[m.Dir], s.numbered[m.Dir] = n, true
			}
		}
	}
	switch {
	case m.Method == "initialize" && m.Dir != spec.S2C:
		c := &Contract{Era: EraLegacy, RequestLine: m.Line, RequestRaw: bytes.Clone(r.Raw)}
		p := m.ParamsNode()
		c.Requested = strings.Clone(member(p, "protocolVersion").Text())
		if caps := member(p, "capabilities"); caps.Exists() {
			s.declare(c, spec.Client, caps)
		}
		c.Client = implementation(member(p, "clientInfo"))
		c.Revision = provisionalRevision(c.Requested)
		s.newTerms(c)
		s.Era, s.Legacy = EraLegacy, c
	case meta.version.Exists() && m.Dir != spec.S2C:
		if s.Era == EraUnknown {
			s.Era = EraModern
		}
		s.lastModern = s.modernContract(m, meta, bytes.Clone(r.Raw))
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
			s.unplaced[r.Key] = r
		}
		return
	}
	key := requestKey{m.Dir, r.Key}
	var old *Request
	if !fresh {
		old = s.outstanding.get(key)
		if old != nil {
			earlier := old.past()
			m.Earlier = &earlier
		} else if p, ok := s.history.Get(key); ok {
			earlier := p // allocated here, when there is one: &p would be, for every request
			m.Earlier = &earlier
		}
	}
	if o := s.orphans[key]; o != nil && m.Seq-o.Seq <= orphanWindow {
		s.forgetOrphan(o)
		o.Paired, o.RequestLine = true, m.Line
		if o.Dir == spec.DirUnknown {
			o.Dir = m.Dir.Opposite()
		}
		r.ResponseLine, r.ResponseTime, r.ResponseErr = o.Line, o.Time, o.IsError
		if answers(r.Method) {
			var msg frame.Node
			if o.raw != nil {
				// The copy of a response that came before its request (an initialize
				// or server/discover result): read again, the one time it is needed.
				msg, _ = frame.Parse(o.raw)
			}
			s.answered(r, o.Line, o.IsError, msg, o.raw)
		}
		s.rememberToken(r)
		s.rememberPast(key, r, m.Seq, false)
		o.raw = nil
		return
	}
	s.addOutstanding(key, r, old)
}

// keptMethod is the message's method as a request record keeps it: the spec
// table's own string for a method the spec defines (no copy), a copy otherwise.
func keptMethod(m *Message) string {
	if name := m.Spec().Name(); name != "" {
		return name
	}
	return strings.Clone(m.Method)
}

// keepIDs copies a request's id and progress token for its record, in one string
// (the two alias it).
func keepIDs(id, token string) (string, string) {
	var ids string
	if token == "" {
		ids = strings.Clone(id)
	} else {
		ids = id + token
	}
	return ids[:len(id)], ids[len(id):]
}

// borrow notes that r.Raw is its frame's bytes, until the tracker settles it
// (Tracker.Settle). A session no longer tracked copies them at once.
func (s *Session) borrow(r *Request) {
	if s.tracker == nil {
		r.Raw = bytes.Clone(r.Raw)
		return
	}
	s.tracker.borrowed = append(s.tracker.borrowed, r)
}

// MaxOutstanding bounds the requests a session follows while they wait for a
// response: beyond it the oldest is dropped (and counted in Untracked), so that a
// capture of a million unanswered requests costs bounded memory.
const MaxOutstanding = 16384

type outstandingEntry struct {
	key  requestKey
	line int
}

// addOutstanding puts r in the outstanding table, in the place of old (the
// outstanding request with its key, nil if none).
func (s *Session) addOutstanding(key requestKey, r, old *Request) {
	if old != nil {
		s.leave(old) // r takes its place
	}
	for s.outstanding.len() >= MaxOutstanding && len(s.outOrder) > 0 {
		e := s.outOrder[0]
		s.outOrder = s.outOrder[1:]
		if old := s.outstanding.get(e.key); old != nil && old.Line == e.line {
			s.removeOutstanding(e.key)
			s.rememberPast(e.key, old, 0, false)
			s.Untracked++
		}
	}
	s.outstanding.put(key, r)
	r.waiting = true
	s.outOrder = append(s.outOrder, outstandingEntry{key, r.Line})
	if len(s.outOrder) > 2*s.outstanding.len()+1024 {
		live := s.outOrder[:0]
		for _, e := range s.outOrder {
			if r := s.outstanding.get(e.key); r != nil && r.Line == e.line {
				live = append(live, e)
			}
		}
		clear(s.outOrder[len(live):])
		s.outOrder = live // its room is kept for the entries to come
	}
	if r.ProgressKey != "" && s.tokensCounted {
		s.countToken(r, 1)
	}
	if r.TaskAugmented {
		s.augmentedOut[r.Dir]++
	}
}

// countToken adds n to the count of outstanding requests sent r's way with r's
// progress token.
func (s *Session) countToken(r *Request, n int) {
	if s.tokenOut == nil {
		s.tokenOut = map[string][3]int{}
	}
	c := s.tokenOut[r.ProgressKey]
	c[r.Dir] += n
	if c[0]+c[1]+c[2] <= 0 {
		delete(s.tokenOut, r.ProgressKey)
	} else {
		s.tokenOut[r.ProgressKey] = c
	}
}

// outstandingTokens returns, per progress token, how many outstanding requests
// carry it in each direction. The counts are kept only once direction inference
// first asks for them (a capture whose directions are known never does): they are
// made then from the outstanding table, which holds what they would have counted.
func (s *Session) outstandingTokens() map[string][3]int {
	if !s.tokensCounted {
		s.tokensCounted = true
		for r := range s.outstanding.all() {
			if r.ProgressKey != "" {
				s.countToken(r, 1)
			}
		}
	}
	return s.tokenOut
}

// removeOutstanding takes a request out of the outstanding table (answered,
// closed or dropped); nil when none has that key.
func (s *Session) removeOutstanding(key requestKey) *Request {
	r := s.outstanding.get(key)
	if r == nil {
		return nil
	}
	s.outstanding.remove(key)
	s.leave(r)
	return r
}

// leave undoes what the outstanding table keeps of a request that leaves it: its
// place in the token counts, and its bytes (only a request never answered, which
// stays, quotes them).
func (s *Session) leave(r *Request) {
	s.unindex(r)
	r.Raw, r.waiting = nil, false
}

func (s *Session) unindex(r *Request) {
	if r.ProgressKey != "" && s.tokensCounted {
		s.countToken(r, -1)
	}
	if r.TaskAugmented {
		s.augmentedOut[r.Dir]--
	}
}

// orphanKeys are the requests an orphan could answer: the other side's request with
// its id, or either side's when its own direction is unknown.
func orphanKeys(o *Orphan) []requestKey {
	if o.Dir == spec.DirUnknown {
		return []requestKey{{spec.C2S, o.key}, {spec.S2C, o.key}}
	}
	return []requestKey{{o.Dir.Opposite(), o.key}}
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
	o := &Orphan{Line: m.Line, Seq: m.Seq, Time: m.Time, Dir: m.Dir, ID: strings.Clone(m.ID), IsError: m.Kind == frame.KindError, AfterUntracked: s.Untracked > 0}
	o.key = frame.IDKey(o.ID)
	if m.Kind == frame.KindResult && m.Dir == spec.S2C {
		if res := m.ResultNode(); member(res, "protocolVersion").Exists() || member(res, "supportedVersions").Exists() {
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

func (s *Session) trackNotification(m *Message) {
	switch m.Method {
	case "notifications/initialized":
		if m.Dir != spec.S2C && s.InitializedLine == 0 {
			s.InitializedLine = m.Line
		}
	case "notifications/cancelled":
		id := frame.IDKey(view(member(m.ParamsNode(), "requestId").Raw()))
		r := s.outstanding.get(requestKey{m.Dir, id})
		if r == nil && m.Dir == spec.S2C {
			// 2026-07-28: a server ends the client's subscriptions/listen stream.
			if l := s.outstanding.get(requestKey{spec.C2S, id}); l != nil && l.LongLived {
				r = l
			}
		}
		if r != nil && !r.Cancelled {
			r.Cancelled, r.CancelLine, r.CancelSeq, r.CancelTime = true, m.Line, m.Seq, m.Time
		}
	}
	if s.Era == EraUnknown {
		s.PreHandshake++
	}
	m.Contract = s.current()
	if s.Era == EraModern {
		// A notification on a subscriptions/listen stream is governed by that request.
		if sub, ok := m.ParamsNode().Path("_meta", spec.MetaSubscriptionID); ok {
			if r := s.outstanding.get(requestKey{m.Dir.Opposite(), frame.IDKey(view(sub.Raw()))}); r != nil {
				m.Request, m.Contract = r, r.Contract
			}
		}
	}
}

func (s *Session) trackResponse(m *Message) {
	id := frame.IDKey(m.ID) // a lookup key, aliasing the frame
	if m.Dir == spec.DirUnknown {
		m.Contract = s.current()
		if r := s.unplaced[id]; r != nil {
			// It answers a request whose direction is unknown too.
			delete(s.unplaced, id)
			r.ResponseLine, r.ResponseTime, r.ResponseErr = m.Line, m.Time, m.Kind == frame.KindError
			m.Request, m.Contract = r, r.Contract
			return
		}
		c2s, s2c := s.outstanding.get(requestKey{spec.C2S, id}), s.outstanding.get(requestKey{spec.S2C, id})
		switch {
		case c2s == nil && s2c == nil:
			s.orphan(m) // no request of either side has its id (yet)
		case c2s != nil && s2c != nil:
			s.ambiguousResponse(m, c2s, s2c)
		}
		return
	}
	key := requestKey{m.Dir.Opposite(), id}
	r := s.outstanding.get(key)
	if r == nil {
		m.Contract = s.current()
		s.orphan(m)
		return
	}
	s.removeOutstanding(key)
	r.ResponseLine, r.ResponseTime, r.ResponseErr = m.Line, m.Time, m.Kind == frame.KindError
	r.AmbiguousResponse = 0
	m.Request, m.Contract = r, r.Contract
	if answers(r.Method) {
		s.answered(r, m.Line, m.Kind == frame.KindError, m.Node(), m.Raw)
	}
	s.rememberToken(r)
	inputRequired := m.Kind == frame.KindResult && r.Contract != nil && r.Contract.Era == EraModern && member(m.ResultNode(), "resultType").EqualString(spec.ResultTypeInputRequired)
	s.rememberPast(requestKey{r.Dir, r.Key}, r, m.Seq, inputRequired) // the request's copy of the id: key aliases the frame
	if r.TaskAugmented && m.Kind == frame.KindResult {
		s.rememberTask(m)
	}
	if a := s.ambiguous[id]; a != nil {
		// An earlier response without a direction answered one of the two requests
		// with this id: not this one, so the other side's.
		delete(s.ambiguous, id)
		if other := s.outstanding.get(requestKey{r.Dir.Opposite(), id}); other != nil {
			s.closeAnswered(other, a.line, a.seq, a.time, a.isErr)
		}
	}
}

// ambiguousResponse handles a response without a direction while both sides have a
// request with its id outstanding (a bare log where a server's request took the
// number of a client request in flight, and the response's shape does not tell):
// the first such response answers one of them, unknown which; a second one answers
// the other, so both are closed.
func (s *Session) ambiguousResponse(m *Message, c2s, s2c *Request) {
	if a := s.ambiguous[c2s.Key]; a != nil {
		delete(s.ambiguous, c2s.Key)
		// Both are answered by now: by this line at the latest.
		s.closeAnswered(c2s, m.Line, m.Seq, m.Time, false)
		s.closeAnswered(s2c, m.Line, m.Seq, m.Time, false)
		return
	}
	if len(s.ambiguous) >= maxOrphans {
		return
	}
	if s.ambiguous == nil {
		s.ambiguous = map[string]*ambiguousResponse{}
	}
	s.ambiguous[c2s.Key] = &ambiguousResponse{line: m.Line, seq: m.Seq, time: m.Time, isErr: m.Kind == frame.KindError}
	c2s.AmbiguousResponse, s2c.AmbiguousResponse = m.Line, m.Line
}

// closeAnswered records a response (at line, position seq) to an outstanding
// request that no message was paired with (its response's direction was unknown).
func (s *Session) closeAnswered(r *Request, line, seq int, t time.Time, isErr bool) {
	key := requestKey{r.Dir, r.Key}
	s.removeOutstanding(key)
	r.ResponseLine, r.ResponseTime, r.ResponseErr, r.AmbiguousResponse = line, t, isErr, 0
	s.rememberToken(r)
	s.rememberPast(key, r, seq, false)
}
