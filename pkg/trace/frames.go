package trace

import (
	"bytes"
	"sort"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Trace is what a Tracer kept of one session.
type Trace struct {
	// Session is the session as plain data (input, lines, contract, counts).
	Session SessionView
	// Uses counts the requests and notifications each side sent, by method
	// (Needs.Uses or Needs.Contract).
	Uses []MethodUse
	// OtherMethods counts messages of methods beyond the MaxMethods counted.
	OtherMethods int
	// Declaring holds copies of the frames that declared the contract (initialize
	// request and result, server/discover result), by line (Needs.Declaring).
	Declaring map[int][]byte
	// Frames are the kept summaries in capture order (frames and context lines);
	// with Needs.Diagram, only the frames the diagram draws, with Gap entries
	// standing for the frames left out.
	Frames []FrameSummary
	// Omitted counts the frames not kept (filters, or the MaxFrames cap); Capped
	// is set when the cap was reached, CappedAt is the first line not kept then;
	// RunCap, when the cap was the run's (Options.MaxRunFrames) and not the
	// session's, is that cap. OmittedOther counts the other entries not kept
	// past the cap: context lines, and HTTP exchanges that carried no message.
	Omitted      int
	OmittedOther int
	Capped       bool
	CappedAt     int
	RunCap       int
	// Total counts the session's frames.
	Total int
	// Contract is the contract table (Needs.Contract): each capability a side
	// declared or a message of the session needed.
	Contract []CapabilityRow
	// Handshake spells out the contract (Needs.Handshake; nil without a contract).
	Handshake *Handshake
	// Redacted holds the values --redact hides in the session's frames
	// (Needs.Redaction; nil without it).
	Redacted *redact.Set
	// Lists are the tools, prompts, resources and resource templates the server
	// listed (Needs.Lists), by kind and name; ListsOmitted counts items beyond
	// the cap.
	Lists        []ListedItem
	ListsOmitted int
	listedAt     map[[2]string]int
	// Account is what the session cost (Needs.Cost; nil without it).
	Account *Account

	uses map[useKey]int
	// pending are the kept requests not answered yet, by request, with their
	// summary's index. A request the session no longer follows (it follows at most
	// session.MaxOutstanding) is settled and let go (see follow).
	pending map[*session.Request]int
	// reactions are the kept notifications' reactions as rules.Reactions follows
	// them (frame index and reaction), written into their summaries at the end.
	reactions []keptReaction
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
	if len(t.methods) < MaxMethods {
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
	// Undeclared counts the messages whose capability gate rules.Gates judged
	// undeclared (what MCP2001 and MCP2002 report), when the contract
	// table is kept.
	Undeclared int
}

// FrameSummary is one line of the timeline: a frame, a context line, or (in a
// diagram) a gap standing for frames left out.
type FrameSummary struct {
	Line int
	// Seq is the frame's position in its session (1-based; 0 for context lines).
	Seq  int
	Time time.Time
	Dir  spec.Direction
	Kind Kind
	// Context marks a non-frame line; Text holds it.
	Context bool
	Text    string
	// Gap, when > 0, stands for that many frames left out, from Line to LastLine;
	// NotKept marks the gap of the frames from Line on that were never kept (the
	// MaxFrames cap).
	Gap      int
	LastLine int
	NotKept  bool

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
	// FromFinding marks a frame whose summary was not kept (the MaxFrames cap),
	// drawn from the finding anchored at it.
	FromFinding bool
	// Raw is a copy of the frame (Needs.Raw), cut at MaxRaw bytes when RawCut.
	Raw    []byte
	RawCut bool

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

	// Exchange, when set, is an HTTP exchange that carried no MCP message (a GET,
	// a DELETE, the status of an exchange written as a record of its own): no
	// frame of the session (Seq 0). With Needs.Context it is set on the context
	// line of its record instead of standing as an entry of its own.
	Exchange *HTTPExchange
}

// HTTPExchange is what the timeline shows of an HTTP exchange without a message.
type HTTPExchange struct {
	// Entry is the HAR entry (0 for a recording); Number the exchange's number.
	Entry  int
	Number int
	// Method and Path are the request's ("" when the record carries only a status).
	Method string
	Path   string
	// Status is the response status (0 when not known yet).
	Status     int
	StatusText string
}

// IsExchange reports whether the summary stands for an HTTP exchange without a
// message, alone (not on a context line).
func (fs FrameSummary) IsExchange() bool { return fs.Exchange != nil && !fs.Context }

// Reaction says what a notification asked of its receiver and whether it came.
type Reaction struct {
	// Expected is what would count as acting on it ("resources/list").
	Expected string
	// Line is the line of the reaction (0: none came), By its method. The reaction
	// of a run of notifications of one kind (one URI) is the receiver's first
	// fitting request after them: every notification of the run shows it.
	Line int
	By   string
	// Undeclared says why the receiver may drop it ("" when it was declared).
	Undeclared string
	// Unjudged is set when too many notifications waited for a reaction at once
	// and this one was no longer followed.
	Unjudged bool
	// Receiver is the side that should have reacted.
	Receiver spec.Side
	// Optional is set when no reaction was owed: a list_changed to a receiver that
	// had not fetched that list yet, or a notification that cannot be judged.
	Optional bool
	// Cannot says why a notification without a reaction cannot be judged (the
	// session ended too soon after it, its direction or contract is unknown).
	Cannot string
	// RunLine is the line of the first notification of its run (the notifications
	// of one kind before the receiver acted): where MCP2007 anchors a run that got
	// no reaction. 0 when it is in none.
	RunLine int
	// missing is rules.Reaction.Missing: no reaction came that was owed.
	missing bool
}

// Missing reports whether the notification got no reaction it owed: the verdict
// of rules.Reactions, which MCP2007 reports from.
func (r *Reaction) Missing() bool { return r != nil && r.missing }

// Dropped reports whether the notification got no reaction and its sender had not
// declared it: the receiver may rightly have dropped it (MCP2001's evidence).
func (r *Reaction) Dropped() bool {
	return r != nil && r.Expected != "" && r.Undeclared != "" && r.Line == 0 && !r.Unjudged
}

type keptReaction struct {
	idx int
	r   *rules.Reaction
}

// reactionOf is the view of a reaction, as rules.Reactions left it.
func reactionOf(r *rules.Reaction) *Reaction {
	v := &Reaction{Expected: strings.Join(r.Expected, " or "), Undeclared: r.Undeclared, Receiver: r.Receiver, Cannot: string(r.Cannot)}
	if run := r.Run; run != nil {
		v.Line, v.By, v.Unjudged, v.RunLine = run.ReactionLine, run.By, run.Unjudged, run.First.Line
		if v.Cannot == "" {
			v.Cannot = string(run.Cannot)
		}
		v.Optional = !run.Owed && r.Undeclared == ""
	} else {
		v.Optional = r.Undeclared == ""
	}
	v.missing = r.Missing()
	return v
}

// add keeps a summary in the session's trace unless the session's cap or the
// run's is reached (then it is counted), and returns its index (-1: not kept).
func (t *Trace) add(fs FrameSummary, tr *Tracer) int {
	if t.pastCap(fs.Line, tr, fs.Context || fs.Exchange != nil) {
		return -1
	}
	if tr.opt.MaxRunFrames > 0 {
		tr.kept++ // only then: the sessions of a run traced apart share nothing else
	}
	t.Frames = append(t.Frames, fs)
	return len(t.Frames) - 1
}

// pastCap reports whether the session's cap of summaries or the run's is
// reached, and then counts the entry at line as not kept (other: a context line
// or an HTTP exchange, else a frame). Callers ask it before they build a summary
// that would be dropped (past the run's cap of an HTML report, that is most of a
// long capture's frames, each with a copy of its JSON).
func (t *Trace) pastCap(line int, tr *Tracer, other bool) bool {
	if !t.capped(line, tr) {
		return false
	}
	if other {
		t.OmittedOther++
	} else {
		t.Omitted++
	}
	return true
}

// capped reports whether the session's cap of summaries or the run's is
// reached, and marks the trace capped at line the first time.
func (t *Trace) capped(line int, tr *Tracer) bool {
	full, runFull := tr.full(t)
	if !full && !runFull {
		return false
	}
	if !t.Capped {
		t.Capped, t.CappedAt = true, line
		if runFull && !full {
			t.RunCap = tr.opt.MaxRunFrames
		}
	}
	return true
}

// full reports whether a session's trace has reached its cap of summaries, and
// whether the run has reached its own.
func (tr *Tracer) full(t *Trace) (session, run bool) {
	return len(t.Frames) >= tr.opt.MaxFrames, tr.opt.MaxRunFrames > 0 && tr.kept >= tr.opt.MaxRunFrames
}

// observation is the tracer's state for one session.
type observation struct {
	tr *Tracer
	t  *Trace
	// gates is the session's rules.Gates; reactions its rules.Reactions (when
	// frames are kept).
	reactions *rules.ReactionLog
	gates     *rules.GateLog
	// lists is the session's rules.Lists (when lists are kept).
	lists *rules.ListLog
}

func (tr *Tracer) start(_ *session.Session, results rule.Results) rule.Computation {
	// Only the tables the views need: a session's trace waits with its result
	// (the regions of a file), and most hold only the redaction set.
	t := &Trace{}
	if tr.opt.Uses || tr.opt.Contract {
		t.uses = map[useKey]int{}
	}
	if tr.opt.Frames {
		t.pending, t.methods = map[*session.Request]int{}, map[string]string{}
	}
	if tr.opt.Declaring {
		t.Declaring = map[int][]byte{}
	}
	if tr.opt.Redaction {
		t.Redacted = redact.NewSeededSet(tr.seed)
	}
	o := &observation{tr: tr, t: t}
	o.gates = results.ResultOf(rules.Gates).(*rules.GateLog)
	if tr.opt.Frames {
		o.reactions = results.ResultOf(rules.Reactions).(*rules.ReactionLog)
	}
	if tr.opt.Lists {
		o.lists = results.ResultOf(rules.Lists).(*rules.ListLog)
	}
	if tr.accounting != nil {
		t.Account, _ = results.ResultOf(tr.accounting).(*Account)
	}
	return o
}

func (o *observation) Message(m *session.Message) {
	t := o.t
	if o.tr.opt.Context {
		o.tr.last = t // where the next context lines go
	}
	if m.Batch == nil {
		t.Total++
	}
	if o.tr.opt.Uses || o.tr.opt.Contract {
		countUse(t, m, o.gates, o.tr.opt.Contract)
	}
	if o.tr.opt.Declaring {
		keepDeclaring(t, m)
	}
	if o.tr.opt.Lists && m.Batch == nil {
		keepListed(t, m, o.lists.Of(m))
	}
	if t.Redacted != nil && m.Batch == nil {
		if c, ok := m.Frame.Ahead.(*redact.Collection); !ok || !t.Redacted.AddCollected(c) {
			c := o.tr.onReplay.Get().(*redact.Collector)
			c.CollectInto(m.Frame, t.Redacted)
			o.tr.onReplay.Put(c)
		}
	}
	if !o.tr.opt.Frames {
		return
	}
	if m.Batch != nil || (o.tr.opt.Keep == nil && t.pastCap(m.Line, o.tr, false)) {
		react(t, m, -1, o.reactions, o.gates) // a batch's member, or a frame past the caps
		return
	}
	fs := summarize(m, t)
	fs.Seq = t.Total
	if o.tr.opt.Raw {
		raw := m.Raw
		if fs.RawCut = len(raw) > MaxRaw; fs.RawCut {
			raw = raw[:MaxRaw]
		}
		fs.Raw = bytes.Clone(raw)
	}
	idx := -1
	if o.tr.opt.Keep == nil || o.tr.opt.Keep(fs.Line, fs.Method) {
		idx = t.add(fs, o.tr)
	} else {
		t.Omitted++
	}
	react(t, m, idx, o.reactions, o.gates)
}

// Exchange records an HTTP exchange that carried no message: on the context line
// of its record when context lines are kept (the line it stands on), else as an
// entry of its own among the frames.
func (o *observation) Exchange(e *session.Exchange) {
	if !o.tr.opt.Frames || e.HTTP == nil {
		return
	}
	t := o.t
	x := &HTTPExchange{Entry: e.HTTP.Entry, Number: e.HTTP.Exchange, Method: cut(e.HTTP.Method, maxSubject), Path: cut(e.HTTP.Path, maxSubject),
		Status: e.HTTP.Status, StatusText: cut(e.HTTP.StatusText, maxSubject)}
	if n := len(t.Frames); n > 0 && t.Frames[n-1].Context && t.Frames[n-1].Line == e.Line && t.Frames[n-1].Exchange == nil {
		t.Frames[n-1].Exchange = x
		return
	}
	if o.tr.opt.Keep != nil && !o.tr.opt.Keep(e.Line, "") {
		return
	}
	t.add(FrameSummary{Line: e.Line, Time: e.Time, Dir: spec.C2S, Exchange: x}, o.tr)
}

// summarize builds the summary of a frame-level message.
func summarize(m *session.Message, t *Trace) FrameSummary {
	fs := FrameSummary{Line: m.Line, Time: m.Time, Dir: m.Dir, Kind: m.Kind, ID: strings.Clone(m.ID), Size: m.Size()}
	switch m.Kind {
	case frame.KindRequest:
		fs.Method = t.intern(m.Method)
		if m.Method == "tools/call" || m.Method == "prompts/get" {
			fs.Subject = cut(child(m.ParamsNode(), "name").Text(), maxSubject)
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
			fs.Subject = cutRedacted(m.ErrorMessage, maxSubject, t.Redacted)
		}
	case frame.KindBatch:
		fs.Members = len(m.Members)
	case frame.KindInvalid:
		fs.Subject = cut(m.Detail, maxSubject)
	}
	return fs
}

// countUse counts the requests and notifications each side sent.
// countUse counts a message among the session's uses of methods: a request, a
// notification, or the entries of an InputRequiredResult (2026-07-28: roots/list,
// sampling/createMessage, elicitation/create travel inside a result). With
// judged, each use that rules.Gates judged undeclared is counted as such.
func countUse(t *Trace, m *session.Message, gates *rules.GateLog, judged bool) {
	switch m.Kind {
	case frame.KindResult:
		for _, e := range gates.InputRequests(m) {
			if e.Method == "" {
				continue
			}
			if u := t.use(spec.S2C, e.Method, lineOf(m)); u != nil && judged && e.Judged && !e.Declared {
				u.Undeclared++
			}
		}
	case frame.KindRequest, frame.KindNotification:
		u := t.use(m.Dir, m.Method, lineOf(m))
		if u == nil || !judged {
			return
		}
		if v := gates.Current(); v.Judged && !v.Declared {
			u.Undeclared++
		}
	}
}

func (t *Trace) use(d spec.Direction, method string, line int) *MethodUse {
	k := useKey{d, method}
	i, ok := t.uses[k]
	if !ok {
		if len(t.Uses) >= MaxMethods {
			t.OtherMethods++
			return nil
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
	return u
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
func keepDeclaring(t *Trace, m *session.Message) {
	declaring := false
	switch m.Kind {
	case frame.KindRequest:
		declaring = m.Method == "initialize" || (m.Session.Era == session.EraModern && len(t.Declaring) == 0 && bytes.Contains(m.Params, []byte(spec.MetaClientCapabilities)))
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

// follow keeps a request until its response. Past twice as many requests as the
// session follows, those it gave up are settled (unanswered, or cancelled) and let
// go: the session pairs nothing more with them, so their end is known, and keeping
// them kept every request alive (100,000 unanswered requests took 35 MB).
func (t *Trace) follow(s *session.Session, r *session.Request, idx int) {
	t.pending[r] = idx
	if len(t.pending) <= 2*session.MaxOutstanding {
		return
	}
	for r, i := range t.pending {
		if s.Pending(r.Dir, r.ID) != r {
			settle(&t.Frames[i], r)
			delete(t.pending, r)
		}
	}
}

// settle writes how a request ended into its summary.
func settle(fs *FrameSummary, r *session.Request) {
	switch {
	case r.Answered():
		fs.ResponseLine = r.ResponseLine
	case r.Cancelled:
		fs.Cancelled, fs.CancelLine = true, r.CancelLine
	default:
		fs.Unanswered = true
	}
}

// react follows requests to their responses and notifications to the reactions
// they ask for. idx is the message's summary index (-1 when not kept).
func react(t *Trace, m *session.Message, idx int, reactions *rules.ReactionLog, gates *rules.GateLog) {
	switch m.Kind {
	case frame.KindRequest:
		if m.Request != nil && idx >= 0 && m.Batch == nil {
			t.follow(m.Session, m.Request, idx)
		}
	case frame.KindResult, frame.KindError:
		if i, ok := t.pending[m.Request]; ok && m.Request != nil {
			t.Frames[i].ResponseLine = m.Line
			delete(t.pending, m.Request)
		}
	case frame.KindNotification:
		if idx < 0 || m.Batch != nil {
			break
		}
		if r := reactions.Current(); r != nil {
			t.reactions = append(t.reactions, keptReaction{idx, r})
		} else if u := gates.Current().Lacking; u != "" {
			// It asks for no reaction, and its receiver may drop it.
			t.Frames[idx].Reaction = &Reaction{Undeclared: u, Receiver: spec.Receiver(m.Dir), Optional: true}
		}
	}
}

// Result is the session's trace: whole once the session ended.
func (o *observation) Result() any { return o.t }

// Compact seals the redaction set of a trace whose session waits for the
// sessions before it (rule.Compacter): it is only read from then on.
func (t *Trace) Compact() { t.Redacted.Seal() }

func (o *observation) End(sr *rule.SessionResult) {
	t := o.t
	for r, i := range t.pending {
		settle(&t.Frames[i], r)
	}
	t.pending = nil
	for _, k := range t.reactions {
		t.Frames[k.idx].Reaction = reactionOf(k.r)
	}
	t.reactions, t.uses, t.methods, t.listedAt = nil, nil, nil, nil
	sortLists(t.Lists)
	sort.SliceStable(t.Uses, func(i, j int) bool {
		if t.Uses[i].Lines[0] != t.Uses[j].Lines[0] {
			return t.Uses[i].Lines[0] < t.Uses[j].Lines[0]
		}
		return t.Uses[i].Method < t.Uses[j].Method
	})
	t.Session = ViewOf(sr.Session)
	opt := o.tr.opt
	if opt.Diagram {
		t.Frames = DiagramFrames(t, AnchorsOf(sr.Findings))
	}
	c := sr.Session.Contract()
	if opt.Contract && c != nil {
		t.Contract = contractRows(c, t.Uses)
	}
	if opt.Handshake && c != nil {
		t.Handshake = handshakeOf(sr.Session, c)
	}
	// The session's result keeps the trace (Result) and nothing the trace was
	// built from: the other analyses' tables are let go of with the session's
	// (rule.SessionResult.KeepAnalyses), even while the result waits.
	o.gates, o.reactions, o.lists = nil, nil, nil
}

// cutRedacted is cut for captured text that may echo a session's values, such as
// an error message: with --redact (set is the session's redaction set, as collected
// up to this frame; nil without), a text to be cut gets its secrets masked and the
// set's values replaced first, as report.RedactSession does at the session's end,
// so that the cut leaves no start of a value or secret that the whole text held
// whole. The values collected later are replaced in the cut text then, and the
// start of one the cut ends inside hidden (CutText, redact.Set.ReplaceCut).
func cutRedacted(s string, n int, set *redact.Set) string {
	if set != nil && len(s) > n {
		s = set.Hide(s)
	}
	return cut(s, n)
}

// cut shortens captured text to at most n bytes on a character boundary, and
// marks a text it cut with CutMark.
func cut(s string, n int) string {
	if len(s) <= n {
		return strings.Clone(s)
	}
	i := n
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + CutMark
}

// CutMark ends the captured texts a trace keeps cut short (subjects, context
// lines, an exchange's path).
const CutMark = "…"

// CutText is a kept text without its CutMark, and whether it had one: whether it
// may have been cut (a captured text that ended so is taken for cut: redaction
// then only hides more of it).
func CutText(s string) (body string, wasCut bool) {
	return strings.CutSuffix(s, CutMark)
}
