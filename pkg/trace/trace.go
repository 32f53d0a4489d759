// Package trace computes, during analysis and in the same pass as the rules, the
// results that views show beyond findings: the trace of each session's frames and
// what became of them (latency, no response, no reaction), the methods each side
// used, the frames that declared the contract, the contract table and the
// handshake. It runs as a rule.Analysis after the rules: it never reports, and pkg/report renders
// what it kept without looking at frames or sessions itself.
//
// A view says what it needs (Needs, as a go/analysis analyzer lists what it
// Requires); the command unites the needs of what it writes and runs one Tracer
// with them.
package trace

import (
	"hash/maphash"
	"sync"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// Needs says what a view needs kept of each session beyond findings.
type Needs struct {
	// Frames keeps a summary of each frame until its session ends (the timeline,
	// the Markdown sequence diagram); memory grows with the session's length,
	// never with the input's, and stops at Options.MaxFrames.
	Frames bool
	// Context keeps the non-frame lines (stderr, banners) among the frames.
	Context bool
	// Diagram reduces each ended session's summaries to the frames the sequence
	// diagram draws (handshake, flagged frames and their neighbours).
	Diagram bool
	// Contract builds the contract table: each capability, who declared it, who
	// used it (Trace.Contract).
	Contract bool
	// Handshake spells out the negotiated contract (Trace.Handshake).
	Handshake bool
	// Redaction collects the values --redact hides in each frame of the session
	// (Trace.Redacted), so that they are hidden wherever else it prints them.
	Redaction bool
	// Raw keeps a copy of each kept frame (FrameSummary.Raw, cut at MaxRaw
	// bytes), for views that show a frame's JSON on demand (the HTML timeline).
	Raw bool
	// Lists keeps what the server listed (tools, prompts, resources and resource
	// templates, with their schemas): Trace.Lists, what diff compares.
	Lists bool
	// Cost keeps what the session cost (Trace.Account, NewAccounting): the
	// reports' section of what sessions cost.
	Cost bool
	// Uses counts each side's messages by method (Trace.Uses): what diff
	// compares of two sessions' behaviour. The contract table counts them too.
	Uses bool
	// Declaring keeps copies of the frames that declared the contract
	// (Trace.Declaring): the related frames a document quotes when a finding
	// carries no copy of its own.
	Declaring bool
}

// Union is what two views need together.
func (n Needs) Union(o Needs) Needs {
	return Needs{Frames: n.Frames || o.Frames, Context: n.Context || o.Context, Diagram: n.Diagram || o.Diagram,
		Contract: n.Contract || o.Contract, Handshake: n.Handshake || o.Handshake, Redaction: n.Redaction || o.Redaction,
		Raw: n.Raw || o.Raw, Lists: n.Lists || o.Lists, Cost: n.Cost || o.Cost, Uses: n.Uses || o.Uses, Declaring: n.Declaring || o.Declaring}
}

// Zero reports whether nothing is needed: no tracer has to run.
func (n Needs) Zero() bool { return n == Needs{} }

// Limits of what a Tracer keeps per session.
const (
	// DefaultMaxFrames caps the frame summaries kept for one session (about 250
	// bytes each, so about 25 MB at most, and a timeline nobody reads beyond it);
	// frames beyond it are counted, not kept.
	DefaultMaxFrames = 100_000
	// MaxMethods caps the distinct (direction, method) pairs counted per session.
	MaxMethods = 512
	// maxUseLines is how many lines of each method's use are remembered.
	maxUseLines = 5
	// maxDeclaring caps the declaring frames (initialize, discover) kept per session.
	maxDeclaring = 8
	// maxContextText cuts a kept context line.
	maxContextText = 512
	// maxSubject cuts a kept tool name, error message or problem.
	maxSubject = 160
	// maxPreamble caps the context lines kept before the first session.
	maxPreamble = 200
	// MaxRaw cuts the copy of a frame kept with Needs.Raw.
	MaxRaw = 4 << 10
)

// Options configure a Tracer.
type Options struct {
	Needs
	// MaxFrames caps the summaries per session (0 = DefaultMaxFrames).
	MaxFrames int
	// MaxRunFrames caps the summaries kept over the run, every session's
	// together (0: no cap), for a caller that holds every session's trace until
	// the run ends (a report written whole, such as the HTML one): its memory then
	// stays bounded whatever the input's length. Frames past it are counted in
	// their session as past MaxFrames (Trace.Omitted), and Trace.RunCap says
	// the cap was the run's.
	MaxRunFrames int
	// Keep, when set, selects the frames whose summaries are kept (the timeline's
	// filters): line is the frame's line, method its method (for a response, the
	// method of the request it answers; "" for a context line). Frames not kept
	// are counted.
	Keep func(line int, method string) bool
}

// Tracer follows the sessions of a run (one or several inputs) next to the rules.
type Tracer struct {
	opt      Options
	analysis *rule.Analysis
	// accounting is the analysis of what sessions cost (Needs.Cost).
	accounting *rule.Analysis
	last       *Trace
	// seed is what the sessions' redaction sets hash their values with, and the
	// collections made ahead of the replay for them (Apply).
	seed maphash.Seed
	// kept counts the summaries kept over the run (Options.MaxRunFrames).
	kept int
	// onReplay holds the Collectors that collect into a session's set the
	// frames the parse stage left (Needs.Redaction): one replay at a time takes
	// one, and a run may have several replays at once (the regions of a file).
	onReplay sync.Pool
	// Preamble holds context lines seen before the first frame.
	Preamble        []FrameSummary
	PreambleOmitted int
}

// New prepares a tracer for what the views need.
func New(opt Options) *Tracer {
	if opt.MaxFrames <= 0 {
		opt.MaxFrames = DefaultMaxFrames
	}
	t := &Tracer{opt: opt, seed: maphash.MakeSeed()}
	if opt.Redaction {
		t.onReplay.New = func() any { return redact.NewCollector(t.seed) }
	}
	// Gates: every view's uses of methods and their verdicts (the contract
	// table's broken rows, the timeline's marks) are the gate judgement's.
	// A session's trace is its own, but for the context lines, which go to the
	// session that saw the last frame before them, and the run's cap of
	// summaries: with neither, the sessions of a run may be traced apart.
	t.analysis = &rule.Analysis{Name: "trace", AfterRules: true, Requires: []*rule.Analysis{rules.Gates},
		Apart: !opt.Context && opt.MaxRunFrames == 0,
		New:   func(s *session.Session, r rule.Results) rule.Computation { return t.start(s, r) }}
	if opt.Frames {
		t.analysis.Requires = append(t.analysis.Requires, rules.Reactions)
	}
	if opt.Lists {
		t.analysis.Requires = append(t.analysis.Requires, rules.Lists)
	}
	if opt.Cost {
		t.accounting = NewAccounting()
		t.analysis.Requires = append(t.analysis.Requires, t.accounting)
	}
	return t
}

// Require prepares a tracer for what views need (New); nil when they need
// nothing beyond findings (no tracer runs then).
func Require(opt Options) *Tracer {
	if opt.Needs.Zero() {
		return nil
	}
	return New(opt)
}

// Apply adds the tracer to the options of a run (rule.Run): its analysis, and
// when context lines are needed, a hook that sees them. A nil tracer changes
// nothing.
func (t *Tracer) Apply(opt *driver.RunOptions) {
	if t == nil {
		return
	}
	opt.Analyses = append(opt.Analyses, t.analysis)
	if t.opt.Redaction {
		// The walk over a frame's values that redaction collects them with runs
		// on the parse stage while it waits for the replay (redact.Collector);
		// the replay walks the frames it left (observation.Message). One
		// collector a parse stage: each is one goroutine.
		opt.Prepare = func() func(*frame.Frame) {
			c := redact.NewCollector(t.seed)
			return func(f *frame.Frame) { f.Ahead = c.Collect(f) }
		}
	}
	if !t.opt.Context {
		return
	}
	onContext := opt.OnContext
	opt.OnContext = func(line int, text []byte) {
		if onContext != nil {
			onContext(line, text)
		}
		t.context(line, text)
	}
}

// Of returns what the tracer kept of a session (nil when it did not run on it),
// numbered as the session was handed on: the regions of a file number their
// sessions once the regions before them are done, after their traces ended.
func (t *Tracer) Of(sr *rule.SessionResult) *Trace {
	if t == nil || sr == nil {
		return nil
	}
	tr, _ := sr.ResultOf(t.analysis).(*Trace)
	if tr != nil {
		tr.Session.Index = sr.Session.Index
		if tr.Handshake != nil {
			tr.Handshake.Session = sr.Session.Index + 1
		}
	}
	return tr
}

// context records a non-frame line under the session that saw the last frame.
func (t *Tracer) context(line int, text []byte) {
	if t.opt.Keep != nil && !t.opt.Keep(line, "") {
		return
	}
	if t.last == nil {
		fs := FrameSummary{Line: line, Context: true, Text: cut(string(text), maxContextText)}
		if len(t.Preamble) >= maxPreamble {
			t.PreambleOmitted++
			return
		}
		t.Preamble = append(t.Preamble, fs)
		return
	}
	if t.last.pastCap(line, t, true) {
		return // before the text is copied and redacted for nothing
	}
	t.last.add(FrameSummary{Line: line, Context: true, Text: cutRedacted(string(text), maxContextText, t.last.Redacted)}, t)
}
