package report

import (
	"bytes"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Limits of what an Observer keeps per session.
const (
	// DefaultMaxFrames caps the frame summaries kept for one session (about 250
	// bytes each, so about 60 MB at most); frames beyond it are counted, not kept.
	DefaultMaxFrames = 250_000
	// maxMethods caps the distinct (direction, method) pairs counted per session.
	maxMethods = 512
	// maxUseLines is how many lines of each method's use are remembered.
	maxUseLines = 5
	// maxDeclaring caps the declaring frames (initialize, discover) kept per session.
	maxDeclaring = 8
	// maxContextText cuts a kept context line.
	maxContextText = 512
	// maxSubject cuts a kept tool name, error message or problem.
	maxSubject = 160
	// maxWaiting caps the notifications waiting for a reaction (updates of many URIs).
	maxWaiting = 1024
	// maxPreamble caps the context lines kept before the first session.
	maxPreamble = 200
)

// ObserveOptions say what an Observer keeps.
type ObserveOptions struct {
	// Frames keeps a summary of each frame until its session ends (the timeline and
	// the Markdown sequence diagram need them); memory grows with the session's
	// length, never with the input's, and stops at MaxFrames.
	Frames bool
	// MaxFrames caps the summaries per session (0 = DefaultMaxFrames).
	MaxFrames int
	// Keep, when set, selects the frames whose summaries are kept (the timeline's
	// filters): line is the frame's line, method its method (for a response, the
	// method of the request it answers). Frames not kept are counted.
	Keep func(line int, method string) bool
	// Context keeps the non-frame lines (stderr, banners) that Keep accepts.
	Context bool
	// Diagram reduces each ended session's summaries to the frames the Markdown
	// sequence diagram draws (handshake, flagged frames and their neighbours).
	Diagram bool
}

// Observer watches every session next to the rules and keeps what the Markdown
// report and the timeline show beyond findings: which methods each side used, the
// frames that declared the contract, and (optionally) a summary of each frame with
// what happened after it (response latency, no response, no reaction). It runs as
// one more checker (Rule) in the same pass, so nothing is parsed twice.
type Observer struct {
	opt    ObserveOptions
	traces map[*session.Session]*Trace
	last   *Trace
	// Preamble holds context lines seen before the first frame.
	Preamble        []FrameSummary
	PreambleOmitted int
}

// NewObserver prepares an observer.
func NewObserver(opt ObserveOptions) *Observer {
	if opt.MaxFrames <= 0 {
		opt.MaxFrames = DefaultMaxFrames
	}
	return &Observer{opt: opt, traces: map[*session.Session]*Trace{}}
}

// Rule is the observer as a checker to run with the catalogue (append it last:
// its End then runs after every rule's End). It never reports.
func (o *Observer) Rule() *rule.Rule {
	return &rule.Rule{ID: "MCP0000", Name: "observer", Severity: rule.SeverityInfo,
		Title: "not a rule: keeps frame summaries for the reports", New: func() rule.Checker { return &sessionObserver{o: o} }}
}

// Trace returns what was kept of a session (nil when the observer did not see it).
func (o *Observer) Trace(s *session.Session) *Trace {
	if o == nil {
		return nil
	}
	return o.traces[s]
}

// forget drops a session's trace.
func (o *Observer) forget(s *session.Session) {
	delete(o.traces, s)
}

// context records a non-frame line under the session that saw the last frame.
func (o *Observer) context(line int, text []byte) {
	if !o.opt.Context || (o.opt.Keep != nil && !o.opt.Keep(line, "")) {
		return
	}
	fs := FrameSummary{Line: line, Context: true, Text: cut(string(text), maxContextText)}
	if o.last == nil {
		if len(o.Preamble) >= maxPreamble {
			o.PreambleOmitted++
			return
		}
		o.Preamble = append(o.Preamble, fs)
		return
	}
	o.last.add(fs, o.opt.MaxFrames)
}

// Trace is what an Observer kept of one session.
type Trace struct {
	// Uses counts the requests and notifications each side sent, by method.
	Uses []MethodUse
	// OtherMethods counts messages of methods beyond the counted ones.
	OtherMethods int
	// Declaring holds copies of the frames that declared the contract (initialize
	// request and result, server/discover result), by line.
	Declaring map[int][]byte
	// Frames are the kept summaries in capture order (frames and context lines);
	// with ObserveOptions.Diagram, only the frames the diagram draws, with Gap
	// entries standing for the frames left out.
	Frames []FrameSummary
	// Omitted counts the frames not kept (filters, or the MaxFrames cap); Capped
	// is set when the cap was reached, CappedAt is the first line not kept then.
	Omitted  int
	Capped   bool
	CappedAt int
	// Total counts the session's frames.
	Total int

	uses    map[useKey]int
	pending map[*session.Request]int
	waiting []waitingReaction
	// listed records the list methods each side has requested: a list_changed asks
	// for a new list only from a receiver that fetched the list before.
	listed map[listKey]bool
	// methods interns method names (bounded like uses): one copy per name, not per frame.
	methods map[string]string
}

// intern returns a copy of a method name that the trace keeps, shared by its frames.
func (t *Trace) intern(method string) string {
	if method == "" {
		return ""
	}
	if m, ok := t.methods[method]; ok {
		return m
	}
	m := strings.Clone(method)
	if len(t.methods) < maxMethods {
		t.methods[m] = m
	}
	return m
}

type useKey struct {
	dir    spec.Direction
	method string
}

// MethodUse counts one method sent in one direction.
type MethodUse struct {
	Dir    spec.Direction
	Method string
	Count  int
	// Lines are the first lines it was seen on.
	Lines []int
}

// FrameSummary is one line of the timeline: a frame, a context line, or (in a
// diagram) a gap standing for frames left out.
type FrameSummary struct {
	Line int
	// Seq is the frame's position in its session (1-based; 0 for context lines).
	Seq  int
	Time time.Time
	Dir  spec.Direction
	Kind frame.Kind
	// Context marks a non-frame line; Text holds it.
	Context bool
	Text    string
	// Gap, when > 0, stands for that many frames left out, from Line to LastLine.
	Gap      int
	LastLine int

	// Method is the method of a request or notification, or for a response the
	// method of the request it answers ("" when unknown).
	Method string
	ID     string
	Size   int
	// Members counts the messages of a batch.
	Members int
	// Subject is the tool or prompt name of tools/call and prompts/get, the
	// message of an error, the problem of an invalid frame.
	Subject   string
	ErrorCode int64

	// Responses: the request's line and the time since it (HasLatency).
	RequestLine int
	Latency     time.Duration
	HasLatency  bool

	// Requests: what became of them.
	ResponseLine int
	Cancelled    bool
	CancelLine   int
	LongLived    bool
	Unanswered   bool

	// Notifications: a reaction the receiver owed or may skip.
	Reaction *Reaction
}

// Reaction says what a notification asked of its receiver and whether it came.
type Reaction struct {
	// Expected is what would count as acting on it ("resources/list").
	Expected string
	// Line is the line of the reaction (0: none came), By its method.
	Line int
	By   string
	// Until is the line of the next notification of the same kind that closed
	// the window (0: the session ended first).
	Until int
	// Undeclared says why the receiver may drop it ("" when it was declared).
	Undeclared string
	// Unjudged is set when too many notifications waited for a reaction at once
	// and this one was no longer followed.
	Unjudged bool
	// Receiver is the side that should have reacted.
	Receiver spec.Side
	// Optional is set when no reaction was owed: a list_changed to a receiver that
	// had not fetched that list yet.
	Optional bool
}

// Missing reports whether the notification got no reaction it owed.
func (r *Reaction) Missing() bool {
	return r != nil && r.Expected != "" && r.Line == 0 && !r.Unjudged && !r.Optional
}

type waitingReaction struct {
	key      string // the notification's method, or "updated:" and the URI
	expected []string
	from     spec.Direction // direction the reaction travels
	reaction *Reaction
}

// reactions maps a list_changed notification to the requests that act on it.
var reactions = map[string][]string{
	"notifications/tools/list_changed":     {"tools/list"},
	"notifications/prompts/list_changed":   {"prompts/list"},
	"notifications/resources/list_changed": {"resources/list", "resources/templates/list"},
	"notifications/roots/list_changed":     {"roots/list"},
}

func (t *Trace) add(fs FrameSummary, maxFrames int) int {
	if len(t.Frames) >= maxFrames {
		if !t.Capped {
			t.Capped, t.CappedAt = true, fs.Line
		}
		if !fs.Context {
			t.Omitted++
		}
		return -1
	}
	t.Frames = append(t.Frames, fs)
	return len(t.Frames) - 1
}

// sessionObserver is the observer's checker for one session.
type sessionObserver struct {
	o *Observer
	t *Trace
}

func (so *sessionObserver) trace(s *session.Session) *Trace {
	if so.t == nil {
		so.t = &Trace{uses: map[useKey]int{}, pending: map[*session.Request]int{}, Declaring: map[int][]byte{}, methods: map[string]string{}}
		so.o.traces[s] = so.t
	}
	return so.t
}

func (so *sessionObserver) Message(p *rule.Pass, m *session.Message) {
	t := so.trace(p.Session)
	so.o.last = t
	if m.Batch == nil {
		t.Total++
	}
	so.countUse(t, m)
	so.keepDeclaring(t, m)
	if !so.o.opt.Frames {
		return
	}
	if m.Batch != nil {
		so.react(t, m, -1)
		return
	}
	fs := summarize(m, t)
	fs.Seq = t.Total
	idx := -1
	if so.o.opt.Keep == nil || so.o.opt.Keep(fs.Line, fs.Method) {
		idx = t.add(fs, so.o.opt.MaxFrames)
	} else {
		t.Omitted++
	}
	so.react(t, m, idx)
}

// summarize builds the summary of a frame-level message.
func summarize(m *session.Message, t *Trace) FrameSummary {
	fs := FrameSummary{Line: m.Line, Time: m.Time, Dir: m.Dir, Kind: m.Kind, ID: strings.Clone(m.ID), Size: m.Size()}
	switch m.Kind {
	case frame.KindRequest:
		fs.Method = t.intern(m.Method)
		if m.Method == "tools/call" || m.Method == "prompts/get" {
			fs.Subject = cut(gjson.GetBytes(m.Params, "name").String(), maxSubject)
		}
		fs.LongLived = m.Request != nil && m.Request.LongLived
	case frame.KindNotification:
		fs.Method = t.intern(m.Method)
	case frame.KindResult, frame.KindError:
		if r := m.Request; r != nil {
			fs.Method, fs.RequestLine = t.intern(r.Method), r.Line
			if !r.Time.IsZero() && !m.Time.IsZero() {
				fs.Latency, fs.HasLatency = m.Time.Sub(r.Time), true
			}
		}
		if m.Kind == frame.KindError {
			fs.ErrorCode = m.ErrorCode
			fs.Subject = cut(m.ErrorMessage, maxSubject)
		}
	case frame.KindBatch:
		fs.Members = len(m.Members)
	case frame.KindInvalid:
		fs.Subject = cut(m.Detail, maxSubject)
	}
	return fs
}

// countUse counts the requests and notifications each side sent.
func (so *sessionObserver) countUse(t *Trace, m *session.Message) {
	if m.Kind == frame.KindResult && m.Session.Era == session.EraModern && bytes.Contains(m.Result, []byte(`"inputRequests"`)) {
		// 2026-07-28: roots/list, sampling/createMessage, elicitation/create travel
		// as entries of an InputRequiredResult.
		gjson.GetBytes(m.Result, "inputRequests").ForEach(func(_, entry gjson.Result) bool {
			if method := entry.Get("method").String(); method != "" {
				t.use(spec.S2C, method, lineOf(m))
			}
			return true
		})
		return
	}
	if m.Kind != frame.KindRequest && m.Kind != frame.KindNotification {
		return
	}
	t.use(m.Dir, m.Method, lineOf(m))
}

func (t *Trace) use(d spec.Direction, method string, line int) {
	k := useKey{d, method}
	i, ok := t.uses[k]
	if !ok {
		if len(t.Uses) >= maxMethods {
			t.OtherMethods++
			return
		}
		k.method = strings.Clone(method)
		i = len(t.Uses)
		t.uses[k] = i
		t.Uses = append(t.Uses, MethodUse{Dir: d, Method: k.method})
	}
	u := &t.Uses[i]
	u.Count++
	if len(u.Lines) < maxUseLines {
		u.Lines = append(u.Lines, line)
	}
}

func lineOf(m *session.Message) int {
	if m.Batch != nil {
		return m.Batch.Line
	}
	return m.Line
}

// keepDeclaring copies the frames that declare a contract: initialize requests, and
// results that carry protocolVersion or supportedVersions (initialize and
// server/discover results, even when logged before their request).
func (so *sessionObserver) keepDeclaring(t *Trace, m *session.Message) {
	declaring := false
	switch m.Kind {
	case frame.KindRequest:
		declaring = m.Method == "initialize" || (m.Session.Era == session.EraModern && len(t.Declaring) == 0 && bytes.Contains(m.Params, []byte("io.modelcontextprotocol/clientCapabilities")))
	case frame.KindResult:
		declaring = (m.Request != nil && (m.Request.Method == "initialize" || m.Request.Method == "server/discover")) ||
			(m.Request == nil && (bytes.Contains(m.Result, []byte(`"protocolVersion"`)) || bytes.Contains(m.Result, []byte(`"supportedVersions"`))))
	}
	if !declaring {
		return
	}
	if len(t.Declaring) >= maxDeclaring {
		oldest := 0
		for line := range t.Declaring {
			if oldest == 0 || line < oldest {
				oldest = line
			}
		}
		delete(t.Declaring, oldest)
	}
	raw := m.Raw
	if len(raw) > rule.MaxEvidence {
		raw = raw[:rule.MaxEvidence]
	}
	t.Declaring[lineOf(m)] = bytes.Clone(raw)
}

// react follows requests to their responses and notifications to the reactions
// they ask for. idx is the message's summary index (-1 when not kept).
func (so *sessionObserver) react(t *Trace, m *session.Message, idx int) {
	switch m.Kind {
	case frame.KindRequest:
		if m.Request != nil && idx >= 0 && m.Batch == nil {
			t.pending[m.Request] = idx
		}
		so.reacted(t, m)
	case frame.KindResult, frame.KindError:
		if i, ok := t.pending[m.Request]; ok && m.Request != nil {
			t.Frames[i].ResponseLine = m.Line
			delete(t.pending, m.Request)
		}
	case frame.KindNotification:
		if m.Batch != nil {
			idx = -1
		}
		so.notification(t, m, idx)
	}
}

// notification opens the wait for the reaction a notification asks for: a
// list_changed asks the receiver to list again before the next list_changed of the
// same kind; a resources/updated asks it to read that URI again before the next
// update of it.
func (so *sessionObserver) notification(t *Trace, m *session.Message, idx int) {
	undeclared := undeclaredReason(m)
	expected := reactions[m.Method]
	key := m.Method
	if m.Method == "notifications/resources/updated" {
		expected = []string{"resources/read"}
		key = "updated:" + gjson.GetBytes(m.Params, "uri").String()
	}
	// A declared list_changed to a receiver that never fetched the list asks for
	// nothing: a fetch that follows is shown, its absence is not "no reaction". (An
	// undeclared one is always followed: whether the receiver acted on it is the
	// evidence that it dropped it.)
	optional := m.Method != "notifications/resources/updated" && expected != nil && undeclared == "" && !listedBefore(t, m.Dir.Opposite(), expected)
	if expected == nil && undeclared == "" {
		return
	}
	r := &Reaction{Undeclared: undeclared, Receiver: spec.Receiver(m.Dir), Expected: strings.Join(expected, " or "), Optional: optional}
	if idx >= 0 {
		t.Frames[idx].Reaction = r
	}
	if expected == nil {
		return
	}
	from := m.Dir.Opposite()
	kept := t.waiting[:0]
	for _, w := range t.waiting {
		if w.key == key && w.from == from {
			w.reaction.Until = m.Line // the window of the earlier one closes here
			continue
		}
		kept = append(kept, w)
	}
	t.waiting = kept
	if len(t.waiting) >= maxWaiting {
		// Too many open waits (updates of many URIs): the oldest is no longer judged.
		t.waiting[0].reaction.Unjudged = true
		t.waiting = t.waiting[1:]
	}
	t.waiting = append(t.waiting, waitingReaction{key: strings.Clone(key), expected: expected, from: from, reaction: r})
}

type listKey struct {
	dir    spec.Direction
	method string
}

// reacted closes the waits that a request acts on.
func (so *sessionObserver) reacted(t *Trace, m *session.Message) {
	if strings.HasSuffix(m.Method, "/list") {
		if t.listed == nil {
			t.listed = map[listKey]bool{}
		}
		t.listed[listKey{m.Dir, strings.Clone(m.Method)}] = true
	}
	if len(t.waiting) == 0 {
		return
	}
	updated := ""
	if m.Method == "resources/read" {
		updated = "updated:" + gjson.GetBytes(m.Params, "uri").String()
	}
	kept := t.waiting[:0]
	for _, w := range t.waiting {
		if w.from == m.Dir && slicesContain(w.expected, m.Method) && (!strings.HasPrefix(w.key, "updated:") || w.key == updated) {
			w.reaction.Line, w.reaction.By = lineOf(m), strings.Clone(m.Method)
			continue
		}
		kept = append(kept, w)
	}
	t.waiting = kept
}

// listedBefore reports whether the side sending in direction d requested one of the
// list methods before.
func listedBefore(t *Trace, d spec.Direction, methods []string) bool {
	for _, method := range methods {
		if t.listed[listKey{d, method}] {
			return true
		}
	}
	return false
}

func slicesContain(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// undeclaredReason says why the receiver may drop a notification: its sender's
// own declaration does not cover it ("" when it does, or when unknown).
func undeclaredReason(m *session.Message) string {
	c := m.Contract
	if c == nil || m.Dir == spec.DirUnknown || c.Revision == "" {
		return ""
	}
	facts, ok := spec.Facts(m.Method, c.Revision, m.Dir)
	if !ok || facts.Gate.None() || facts.Gate.Extension != "" {
		return ""
	}
	declared, known := c.Declares(facts.Gate.Side, facts.Gate.Path, facts.Gate.Boolean())
	if !known || declared {
		return ""
	}
	top, sub, hasSub := strings.Cut(facts.Gate.Path, ".")
	if d, _ := c.Declares(facts.Gate.Side, top, false); hasSub && d {
		return "the " + facts.Gate.Side.String() + " declared " + top + " without " + sub
	}
	return "the " + facts.Gate.Side.String() + " declared no " + top
}

func (so *sessionObserver) End(p *rule.Pass) {
	t := so.trace(p.Session)
	for r, i := range t.pending {
		fs := &t.Frames[i]
		switch {
		case r.Answered():
			fs.ResponseLine = r.ResponseLine
		case r.Cancelled:
			fs.Cancelled, fs.CancelLine = true, r.CancelLine
		default:
			fs.Unanswered = true
		}
	}
	t.pending = nil
	t.waiting, t.uses, t.methods = nil, nil, nil
	sort.SliceStable(t.Uses, func(i, j int) bool {
		if t.Uses[i].Lines[0] != t.Uses[j].Lines[0] {
			return t.Uses[i].Lines[0] < t.Uses[j].Lines[0]
		}
		return t.Uses[i].Method < t.Uses[j].Method
	})
}

// finish runs when a session's result is complete: with ObserveOptions.Diagram
// the summaries shrink to the frames the sequence diagram draws.
func (o *Observer) finish(sr *rule.SessionResult) {
	t := o.traces[sr.Session]
	if t == nil || !o.opt.Diagram {
		return
	}
	t.Frames = diagramFrames(t, anchorsOf(sr.Findings))
}

// cut shortens captured text to at most n bytes on a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// MethodFilter matches methods against a --method list: exact names or shell
// patterns ("tools/*"), comma-separated.
func MethodFilter(list []string) func(string) bool {
	var patterns []string
	for _, item := range list {
		for _, p := range strings.Split(item, ",") {
			if p = strings.TrimSpace(p); p != "" {
				patterns = append(patterns, p)
			}
		}
	}
	if len(patterns) == 0 {
		return nil
	}
	return func(method string) bool {
		for _, p := range patterns {
			if ok, _ := path.Match(p, method); ok || p == method || (strings.HasSuffix(p, "/") && strings.HasPrefix(method, p)) {
				return true
			}
		}
		return false
	}
}

// lineList renders lines as "8, 11" (with "…" when more were seen than listed).
func lineList(lines []int, count int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	s := strings.Join(parts, ", ")
	if count > len(lines) {
		s += ", …"
	}
	return s
}
