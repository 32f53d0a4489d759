package rule

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Anchor is the frame a finding points at, with the revision that governs it
// (used to scale capability rules' severity).
type Anchor struct {
	Line int
	// Entry is the document entry of the frame (frame.Frame.Entry; 0 for line
	// formats), Seq its position in the session (session.Message.Seq; 0 when the
	// anchor is no frame of it).
	Entry    int
	Seq      int
	Time     time.Time
	Dir      spec.Direction
	Method   string
	ID       string
	Revision spec.Revision
	// Raw is the anchor frame's bytes (copied into the finding as evidence).
	Raw []byte
}

// At anchors a finding at a message; a batch member is anchored at its batch's line
// (the same line), keeping the member's method and id.
func At(m *session.Message) Anchor {
	a := Anchor{Line: m.Line, Entry: m.Entry, Seq: m.Seq, Time: m.Time, Dir: m.Dir, Method: m.Method, ID: m.ID, Revision: m.Revision(), Raw: m.Raw}
	if m.Batch != nil {
		a.Line, a.Entry = m.Batch.Line, m.Batch.Entry
	}
	if m.Kind.IsResponse() && m.Request != nil {
		a.Method = m.Request.Method
	}
	return a
}

// AtExchange anchors a finding at an HTTP exchange that carried no message (its
// context record: line and entry; no frame of the session, so Seq is 0).
func AtExchange(e *session.Exchange) Anchor {
	return Anchor{Line: e.Line, Entry: e.Entry, Time: e.Time, Dir: spec.C2S, Revision: e.Revision()}
}

// AtRequest anchors a finding at a remembered request (for absences found later).
func AtRequest(r *session.Request) Anchor {
	a := Anchor{Line: r.Line, Entry: r.Entry, Seq: r.Seq, Time: r.Time, Dir: r.Dir, Method: r.Method, ID: r.ID, Raw: r.Raw}
	if r.Contract != nil {
		a.Revision = r.Contract.Revision
	}
	return a
}

// Pass is a rule's view of the session it is checking.
type Pass struct {
	Rule    *Rule
	Session *session.Session
	result  *SessionResult
	limit   int
	count   int
	shared  *Shared
	state   any // p.shared's state for the rule, once asked for
	// onFinding receives each finding as it is reported (AnalyzerOptions.OnFinding).
	onFinding func(*session.Session, Finding)
	// settled is the session's record of settled classes (nil when settling is
	// off); index is the rule's checker in it.
	settled *settled
	index   int
}

// Shared returns the rule's run-wide state (built by Rule.Shared on first use, nil
// when the rule has none): what it keeps across the sessions and inputs of the run.
func (p *Pass) Shared() any {
	if p.state == nil {
		p.state = p.shared.of(p.Rule)
	}
	return p.state
}

// Option returns the value of one of the rule's options (Rule.Option).
func (p *Pass) Option(name string) any { return p.Rule.Option(name) }

// ResultOf returns the result of an analysis the rule requires (Rule.Requires)
// for the session: up to the message the rule is looking at, whole in End.
func (p *Pass) ResultOf(a *Analysis) any { return p.result.analyses.ResultOf(a) }

// Schemas is the run's store of compiled published schemas (tools' inputSchema and
// outputSchema), shared by every rule, session and input of the run.
func (p *Pass) Schemas() *schema.Compiled { return p.shared.schemas }

// Shared holds the run-wide state of rules: caches that outlive one session (the
// verdicts of the schema rules by wire shape), shared by every session and input of
// a run, so that what was learnt once is not learnt again per session. Safe for
// concurrent use; the state itself must be too (inputs may be analysed in parallel).
type Shared struct {
	mu    sync.Mutex
	state map[*Rule]any
	// schemas are the published schemas compiled in the run, for every rule that
	// validates against a tool's inputSchema or outputSchema.
	schemas *schema.Compiled
	// arenas are the parse stage's arenas that finished inputs gave back.
	arenas sync.Pool
	// dispatches are the dispatch tables of the catalogues the run's inputs were
	// given (dispatchFor), under mu.
	dispatches map[dispatchKey]*keptDispatch
}

// Arena returns an arena for one input's inline parse stage (the driver's),
// reused when one is free.
func (s *Shared) Arena() *frame.Arena {
	if a, ok := s.arenas.Get().(*frame.Arena); ok {
		return a
	}
	return new(frame.Arena)
}

// Release gives an input's arena back for the next input of the run.
func (s *Shared) Release(a *frame.Arena) {
	a.Reset()
	s.arenas.Put(a)
}

// NewShared returns an empty run-wide store.
func NewShared() *Shared { return &Shared{state: map[*Rule]any{}, schemas: schema.NewCompiled()} }

func (s *Shared) of(r *Rule) any {
	if r.Shared == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.state[r]
	if !ok {
		v = r.Shared()
		s.state[r] = v
	}
	return v
}

// Report records a finding at the rule's severity (scaled by revision for
// capability rules). The message declares the captured values it quotes (see
// Message, Quote).
func (p *Pass) Report(a Anchor, msg Message, related ...Related) {
	p.ReportSeverity(p.SeverityAt(a.Revision), a, msg, related...)
}

// Reportf is Report with a format (see Sprintf).
func (p *Pass) Reportf(a Anchor, format string, args ...any) {
	p.Report(a, Sprintf(format, args...))
}

// ReportSeverity records a finding at an explicit severity. The anchor's strings may
// alias the reader's buffer: the finding keeps copies.
func (p *Pass) ReportSeverity(sev Severity, a Anchor, msg Message, related ...Related) {
	if p.Rule.Override != 0 {
		sev = p.Rule.Override
	}
	p.count++
	if p.limit > 0 && p.count > p.limit {
		if p.result.suppressed == nil {
			p.result.suppressed = map[string]int{}
		}
		p.result.suppressed[p.Rule.ID]++
		return
	}
	hint := p.Rule.Hint
	if msg.Hint != "" {
		hint = msg.Hint
	}
	evidence, truncated := capped(a.Raw)
	for i := range related {
		related[i].Raw, _ = capped(related[i].Raw)
		related[i].Note = strings.Clone(related[i].Note)
	}
	// The finding keeps copies of what the message quotes (fingerprints and
	// redaction read them after the session ends).
	msg = msg.Clone()
	p.result.Findings = append(p.result.Findings, Finding{
		Rule: p.Rule.ID, Name: p.Rule.Name, Severity: sev, Message: msg.Text + faultSuffix(msg.Party), Values: msg.Values,
		Input: p.Session.Input, Line: a.Line, Entry: a.Entry, Seq: a.Seq, Time: a.Time, Dir: a.Dir, Method: strings.Clone(a.Method), ID: strings.Clone(a.ID),
		Related: related, Hint: hint, Party: msg.Party, Evidence: evidence, Truncated: truncated,
	})
	if p.onFinding != nil {
		p.onFinding(p.Session, p.result.Findings[len(p.result.Findings)-1])
	}
}

// capped copies at most MaxEvidence bytes of a frame (frames alias the reader's buffer).
func capped(raw []byte) ([]byte, bool) {
	if len(raw) > MaxEvidence {
		return bytes.Clone(raw[:MaxEvidence]), true
	}
	return bytes.Clone(raw), false
}

// SeverityAt is the rule's severity for a finding under the revision rev: a
// CapabilityScaled rule's error follows CapabilitySeverity; any other severity
// (the rule's own, or the one the configuration gave it) stays.
func (p *Pass) SeverityAt(rev spec.Revision) Severity {
	if p.Rule.CapabilityScaled && p.Rule.Severity == SeverityError {
		return CapabilitySeverity(rev)
	}
	return p.Rule.Severity
}

// CapabilitySeverity is the severity of using a capability its owner did not
// declare, under the governing revision: a warning under the revisions whose
// lifecycle said SHOULD (2024-11-05, 2025-03-26), an error from 2025-06-18 (MUST)
// and when the revision is unknown. Rules that are CapabilityScaled and the audit
// of source code both say it so.
func CapabilitySeverity(rev spec.Revision) Severity {
	if rev != "" && !rev.CapabilityMust() {
		return SeverityWarning
	}
	return SeverityError
}

// CannotJudge counts a message (or a whole session) the rule could not judge, with
// the reason; the report states the count per rule and reason, so that a clean
// report never means "not looked at".
func (p *Pass) CannotJudge(reason Reason) { p.CannotJudgeN(reason, 1) }

// CannotJudgeN counts n messages the rule could not judge for the same reason.
func (p *Pass) CannotJudgeN(reason Reason, n int) {
	if n <= 0 {
		return
	}
	if p.result.cannot == nil {
		p.result.cannot = map[string]map[Reason]int{}
	}
	byReason := p.result.cannot[p.Rule.ID]
	if byReason == nil {
		byReason = map[Reason]int{}
		p.result.cannot[p.Rule.ID] = byReason
	}
	byReason[reason] += n
}

// SessionResult is what the rules found in one session.
type SessionResult struct {
	Session  *session.Session
	Findings []Finding
	Notes    []string

	cannot     map[string]map[Reason]int
	suppressed map[string]int
	// analyses are the session's analyses, their results final once it ended.
	analyses computing
}

// ResultOf returns an analysis's result for the session (see Analysis): nil
// when the run did not run it (no rule required it, and the run did not add it).
func (r *SessionResult) ResultOf(a *Analysis) any {
	if v, ok := r.analyses.lookup(a); ok {
		return v
	}
	return nil
}

// DropAnalyses lets go of the session's analyses: ResultOf answers nil from
// then on. For a result kept a while for its findings and notes alone, by a run
// that asks no analysis of it (the regions of a file, which wait for the regions
// before them: the analyses' tables are most of an ended session's memory).
func (r *SessionResult) DropAnalyses() { r.analyses = nil }

// KeepAnalyses is DropAnalyses for a run that asks the results of some: the
// results of those given stay (ResultOf), the others are let go of. The results
// kept wait, and are only read from then on: each that is a Compacter is
// compacted.
func (r *SessionResult) KeepAnalyses(keep []*Analysis) {
	var kept computing
	for _, x := range r.analyses {
		if slices.Contains(keep, x.a) {
			kept = append(kept, x)
			if c, ok := x.state.Result().(Compacter); ok {
				c.Compact()
			}
		}
	}
	r.analyses = kept
}

// A Compacter is an analysis's result that can hold what it holds in less
// memory once it is only read. Making it so costs time, which a result handed on
// as its session ends (to a report, say) would spend for nothing; a result that
// waits for the sessions before it (KeepAnalyses) is compacted.
type Compacter interface{ Compact() }

// Worst is the highest severity among the findings (0 when none).
func (r *SessionResult) Worst() Severity {
	var w Severity
	for _, f := range r.Findings {
		if f.Severity > w {
			w = f.Severity
		}
	}
	return w
}

// finish sorts findings and turns the counters into notes.
func (r *SessionResult) finish(rules []*Rule) {
	var client, server string
	if c := r.Session.Contract(); c != nil {
		client, server = c.Client.Name, c.Server.Name
	}
	for i := range r.Findings {
		r.Findings[i].Fingerprint = Fingerprint(r.Findings[i], client, server)
	}
	sort.SliceStable(r.Findings, func(i, j int) bool {
		a, b := r.Findings[i], r.Findings[j]
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Seq != b.Seq {
			return a.Seq < b.Seq
		}
		return a.Rule < b.Rule
	})
	for _, ru := range rules {
		if len(r.cannot) == 0 && len(r.suppressed) == 0 {
			break
		}
		if reasons := r.cannot[ru.ID]; len(reasons) > 0 {
			keys := make([]Reason, 0, len(reasons))
			for k := range reasons {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				r.Notes = append(r.Notes, ru.ID+" "+ru.Name+" could not judge "+quote.Count(reasons[k], "message")+": "+string(k))
			}
		}
		if n := r.suppressed[ru.ID]; n > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s %s: %d more %s not listed (limit per rule and session reached)", ru.ID, ru.Name, n, strings.TrimPrefix(quote.Count(n, "finding"), fmt.Sprint(n)+" ")))
		}
	}
	r.cannot, r.suppressed = nil, nil // the notes say it now: an ended session keeps only what it reports
}

// DefaultFindingLimit caps the findings one rule lists per session; the rest are counted.
const DefaultFindingLimit = 1000

// Analyzer runs a catalogue over the frames of one input, session by session, in one pass.
type Analyzer struct {
	rules   []*Rule
	limit   int
	tracker *session.Tracker
	open    map[*session.Session]*running
	done    []*SessionResult
	// added are the analyses the run adds whatever the rules require (Add).
	added []*Analysis

	onSession func(*SessionResult)
	onFinding func(*session.Session, Finding)
	discard   bool
	shared    *Shared
	// free are the runs of ended sessions, kept for reuse (recycle).
	free []*running
	// noSettling turns Pass.Settled off (AnalyzerOptions.NoSettling).
	noSettling bool
	// analyses are the analyses the rules require and the run adds, in the order they
	// run (set when the first session starts).
	analyses []*Analysis
	ordered  bool
	// dispatch is the run's table of which checkers observe which messages, and
	// which can be zeroed for reuse (built once a run: Shared.dispatchFor).
	*dispatch
}

type running struct {
	result   *SessionResult
	analyses computing
	store    []Pass // the passes, in one allocation
	passes   []*Pass
	checkers []Checker
	// before and after split analyses: those that run before the rules and after.
	before, after computing
	settled       settled
}

// AnalyzerOptions configure an Analyzer (see the driver's RunOptions, which
// they come from).
type AnalyzerOptions struct {
	// FindingLimit caps the findings one rule lists per session (0 = default).
	FindingLimit int
	// OnSession receives each session's result as it ends; Discard drops it
	// then instead of keeping it for Close.
	OnSession func(*SessionResult)
	Discard   bool
	// OnFinding receives each finding as its rule reports it.
	OnFinding func(*session.Session, Finding)
	// NoSettling asks every rule about every message (the reference Pass.Settled
	// is tested against).
	NoSettling bool
	// AllMethods asks every rule about messages of every method, whatever its
	// Methods (the reference Rule.Methods is tested against).
	AllMethods bool
	// Shared is the run-wide state of the rules; nil gives the input its own.
	Shared *Shared
}

// NewAnalyzerWith prepares the judgement of one input's frames, fed in capture
// order (Frame, Exchange, Close).
func NewAnalyzerWith(input string, rules []*Rule, opt AnalyzerOptions) *Analyzer {
	limit := opt.FindingLimit
	if limit <= 0 {
		limit = DefaultFindingLimit
	}
	shared := opt.Shared
	if shared == nil {
		shared = NewShared()
	}
	a := &Analyzer{rules: rules, limit: limit, open: map[*session.Session]*running{}, shared: shared, dispatch: shared.dispatchFor(rules, opt.AllMethods),
		onSession: opt.OnSession, discard: opt.Discard, onFinding: opt.OnFinding, noSettling: opt.NoSettling}
	a.tracker = session.NewTracker(input, a.start, a.end)
	return a
}

// dispatch says, for a catalogue, which checkers observe which messages and which
// can be zeroed for reuse: the same for every input of a run, so built once a run
// (a scan of many small files built it per file).
type dispatch struct {
	// byKind lists, per message kind, the checkers (by index) that observe it
	// (Rule.Kinds) whatever its method (Rule.Methods unset), in catalogue order:
	// those asked about a message with no method the spec knows. byMethod lists,
	// per kind and method (spec.MethodRef.Index), those that observe messages of
	// that kind and method, in catalogue order.
	byKind   [numKinds][]int
	byMethod [numKinds][][]int
	// zeroable marks the rules whose New returns a fresh pointer to a zero struct:
	// an ended session's checker of such a rule is zeroed and reused instead of
	// made again (a capture of many short sessions made about fifty a session).
	zeroable []bool
}

// dispatchKey names a catalogue (the slice every input of a run is given) and
// whether every rule is asked about every method.
type dispatchKey struct {
	rules      *Rule
	n          int
	allMethods bool
}

// dispatchFor returns the run's dispatch table for the catalogue, built on first use.
func (s *Shared) dispatchFor(rules []*Rule, allMethods bool) *dispatch {
	var key dispatchKey
	if len(rules) > 0 {
		key = dispatchKey{rules: rules[0], n: len(rules), allMethods: allMethods}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if d := s.dispatches[key]; d != nil && slices.Equal(d.rules, rules) {
		return &d.dispatch
	}
	d := &keptDispatch{rules: slices.Clone(rules), dispatch: newDispatch(rules, allMethods)}
	if s.dispatches == nil {
		s.dispatches = map[dispatchKey]*keptDispatch{}
	}
	s.dispatches[key] = d
	return &d.dispatch
}

// keptDispatch is a dispatch table with the catalogue it was built for.
type keptDispatch struct {
	rules []*Rule
	dispatch
}

// newDispatch builds the dispatch table of a catalogue (allMethods: every rule
// observes every method of its kinds, whatever its Methods).
func newDispatch(rules []*Rule, allMethods bool) dispatch {
	d := dispatch{zeroable: make([]bool, len(rules))}
	observed := make([][]bool, len(rules)) // per rule, the methods it observes (nil: every one)
	named := make([]bool, spec.MethodIndexes())
	for i, r := range rules {
		d.zeroable[i] = zeroable(r.New(), r.New())
		if len(r.Methods) > 0 && !allMethods {
			observed[i] = make([]bool, len(named))
			for _, name := range r.Methods {
				if at := spec.Resolve(name).Index(); at >= 0 {
					observed[i][at], named[at] = true, true
				}
			}
		}
		for k := range frame.Kind(numKinds) {
			if r.Kinds.Has(k) && observed[i] == nil {
				d.byKind[k] = append(d.byKind[k], i)
			}
		}
	}
	for k := range frame.Kind(numKinds) {
		d.byMethod[k] = make([][]int, len(named))
		for at := range named {
			if !named[at] {
				d.byMethod[k][at] = d.byKind[k] // no rule names the method: those that observe every one
				continue
			}
			for i, r := range rules {
				if r.Kinds.Has(k) && (observed[i] == nil || observed[i][at]) {
					d.byMethod[k][at] = append(d.byMethod[k][at], i)
				}
			}
		}
	}
	return d
}

// zeroable reports whether two checkers New made are distinct pointers to zero
// structs: then zeroing one gives what New gives. A checker New shares (a
// stateless one, the same for every session and every goroutine) or one with
// settings is never zeroed.
func zeroable(c1, c2 Checker) bool {
	v1, v2 := reflect.ValueOf(c1), reflect.ValueOf(c2)
	if v1.Kind() != reflect.Pointer || v1.IsNil() || v2.Kind() != reflect.Pointer || v2.IsNil() || v1.Pointer() == v2.Pointer() {
		return false
	}
	e := v1.Elem()
	return e.Kind() == reflect.Struct && e.Type().Size() > 0 && e.IsZero() && v2.Elem().IsZero()
}

func (a *Analyzer) start(s *session.Session) {
	// The passes and checkers of a session that ended are reused: a capture of many
	// short sessions starts one every few lines.
	var run *running
	if n := len(a.free); n > 0 {
		run, a.free = a.free[n-1], a.free[:n-1]
	} else {
		run = &running{store: make([]Pass, len(a.rules)), passes: make([]*Pass, len(a.rules)), checkers: make([]Checker, len(a.rules))}
	}
	if !a.ordered {
		order, err := analysesOf(a.rules, a.added)
		if err != nil {
			panic(err) // Run and Add refuse it first
		}
		a.analyses, a.ordered = order, true
	}
	run.analyses = startAnalyses(a.analyses, s)
	run.before, run.after = run.analyses.split()
	run.result = &SessionResult{Session: s, analyses: run.analyses}
	for i, r := range a.rules {
		run.store[i] = Pass{Rule: r, Session: s, result: run.result, limit: a.limit, shared: a.shared, onFinding: a.onFinding, index: i}
		if !a.noSettling {
			run.store[i].settled = &run.settled
		}
		run.passes[i] = &run.store[i]
		if run.checkers[i] == nil {
			run.checkers[i] = r.New()
		}
	}
	a.open[s] = run
}

// Add adds analyses the run computes whatever the rules require (a view's, with
// what they require); call it before the first frame. It refuses requirements
// that cannot be met (something that runs before the rules requiring what runs
// after them).
func (a *Analyzer) Add(analyses ...*Analysis) error {
	if _, err := analysesOf(a.rules, append(slices.Clip(a.added), analyses...)); err != nil {
		return err
	}
	a.added = append(a.added, analyses...)
	a.ordered = false
	return nil
}

// maxFreeRuns bounds the ended sessions' passes kept for reuse.
const maxFreeRuns = 16

// recycle keeps an ended session's passes and checkers' slots for the next session,
// holding on to nothing of it.
func (a *Analyzer) recycle(run *running) {
	if len(a.free) >= maxFreeRuns {
		return
	}
	clear(run.store)
	for i, c := range run.checkers {
		if rc, ok := c.(Recycler); ok && a.zeroable[i] {
			rc.Recycle() // as New made it, its tables empty and kept
		} else if a.zeroable[i] {
			reflect.ValueOf(c).Elem().SetZero() // as New made it, holding nothing of the session
		} else {
			run.checkers[i] = nil
		}
	}
	run.result, run.analyses, run.before, run.after = nil, nil, nil, nil
	run.settled.reset()
	a.free = append(a.free, run)
}

func (a *Analyzer) end(s *session.Session) {
	run := a.open[s]
	if run == nil {
		return
	}
	delete(a.open, s)
	run.before.end(run.result)
	for i, c := range run.checkers {
		c.End(run.passes[i])
	}
	run.result.finish(a.rules)
	run.after.end(run.result)
	s.Release()
	if a.onSession != nil {
		a.onSession(run.result)
	}
	if !a.discard {
		a.done = append(a.done, run.result)
	}
	a.recycle(run)
}

// Frame feeds one frame (in capture order). The frame's bytes must stay as they
// are until Close: the session's request records borrow them (Run settles them,
// session.Tracker.Settle, before it reuses a batch's memory).
func (a *Analyzer) Frame(f *frame.Frame) {
	a.tracker.Frame(f, func(m *session.Message) {
		run := a.open[m.Session]
		run.before.message(m)
		done := uint64(0)
		if !a.noSettling {
			done = run.settled.begin(m)
		}
		for _, i := range a.observers(m) {
			if i < maxSettling && done&(1<<i) != 0 {
				continue // settled for the message's class
			}
			run.checkers[i].Message(run.passes[i], m)
		}
		run.settled.finish()
		run.after.message(m)
	})
}

// observers are the checkers (by index) that observe the message: those of its
// kind and method.
func (a *Analyzer) observers(m *session.Message) []int {
	at := m.MethodIndex()
	if at < 0 {
		return a.byKind[m.Kind]
	}
	return a.byMethod[m.Kind][at]
}

// Exchange feeds an HTTP exchange that carried no MCP message (a context record at
// line and entry): the checkers of the session open on its stream that judge
// exchanges (ExchangeChecker) see it. An exchange on a stream with no session open
// is not judged: it starts none.
func (a *Analyzer) Exchange(line, entry int, x *frame.Exchange) {
	a.tracker.Exchange(line, entry, x, func(e *session.Exchange) {
		run := a.open[e.Session]
		if run == nil {
			return
		}
		run.before.exchange(e)
		for i, c := range run.checkers {
			if ec, ok := c.(ExchangeChecker); ok {
				ec.Exchange(run.passes[i], e)
			}
		}
		run.after.exchange(e)
	})
}

// Lifecycle feeds an event of a stdio server's process (a context record at line):
// the session open on the capture's stream keeps it (Session.Process), which
// rules read when the session ends.
func (a *Analyzer) Lifecycle(line int, l *frame.Lifecycle) { a.tracker.Lifecycle(line, l) }

// Settle makes the requests of the frames fed since the last Settle independent
// of those frames' bytes (session.Tracker.Settle): call it before reusing their
// memory.
func (a *Analyzer) Settle() { a.tracker.Settle() }

// Started is the number of sessions the analyzer has judged or is judging (the
// results kept or not).
func (a *Analyzer) Started() int { return a.tracker.Started() }

// Shared is the run-wide state the analyzer's rules use.
func (a *Analyzer) Shared() *Shared { return a.shared }

// Boundary reports whether f, fed next, would start the analysis afresh
// (session.Tracker.Boundary): then an Analyzer of its own can judge f and what
// follows, and CloseBefore(f) ends this one as feeding f would.
func (a *Analyzer) Boundary(f *frame.Frame) bool { return a.tracker.Boundary(f) }

// CloseBefore ends the analysis where f, a Boundary, begins (the session open on
// its stream ends with it) and returns what Close returns.
func (a *Analyzer) CloseBefore(f *frame.Frame) []*SessionResult {
	a.tracker.CloseBefore(f)
	return a.Close()
}

// Close ends the open sessions and returns every session's result in order of appearance.
func (a *Analyzer) Close() []*SessionResult {
	a.tracker.Close()
	sort.SliceStable(a.done, func(i, j int) bool { return a.done[i].Session.Index < a.done[j].Session.Index })
	return a.done
}

// Describe names a message for a finding: "tools/call id=4" or "notifications/message".
func Describe(m *session.Message) string {
	var b strings.Builder
	switch {
	case m.Kind == frame.KindBatch:
		b.WriteString("batch of ")
		b.WriteString(quote.Count(len(m.Members), "message"))
		return b.String()
	case m.Kind.IsResponse() && m.Request != nil:
		b.WriteString(m.Request.Method)
		b.WriteString(" response")
	case m.Kind.IsResponse():
		b.WriteString("response")
	default:
		b.WriteString(m.Method)
	}
	if m.ID != "" {
		b.WriteString(" id=")
		b.WriteString(m.ID)
	}
	return b.String()
}
