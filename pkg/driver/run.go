// Package driver runs the rules over inputs: it reads an input with a
// frame.Reader, hands its frames over from a parse stage in batches (arenas,
// scan-ahead workers), and replays them in input order through a rule.Analyzer,
// the way go/analysis keeps its checker apart from the analysis framework. The
// framework (rules, passes, analyses) is pkg/rule; this package is what runs it.
package driver

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// InputResult is the analysis of one input.
type InputResult struct {
	Name     string
	Stats    frame.Stats
	Sessions []*rule.SessionResult
	// Broken is set when reading stopped before the end (a read or decompression
	// error); the sessions hold what was read until then.
	Broken error
	// Connections are the connections a client's log tells of without their
	// messages (frame.Reader.Connections).
	Connections []frame.Connection
	// Regions is how many regions of the file were judged apart and kept (see
	// runRegions; what followed a cut that failed its check counts as one): 0
	// when the input was read whole.
	Regions int
}

// RunOptions configure Run.
type RunOptions struct {
	Frame frame.Options
	// FindingLimit caps the findings one rule lists per session (0 = default).
	FindingLimit int
	// Analyses are run whether or not a rule requires them: the views' own
	// (SessionResult.ResultOf), with what they require.
	Analyses []*rule.Analysis
	// OnContext, when set, receives each non-frame line (valid only during the call).
	OnContext func(line int, text []byte)
	// OnSession, when set, receives each session's result as soon as the session
	// ends and its rules have run (in the order sessions end).
	OnSession func(*rule.SessionResult)
	// Discard drops each session's result after OnSession instead of keeping it in
	// the InputResult: memory then stays bounded by the open sessions.
	Discard bool
	// OnFinding, when set, receives each finding as its rule reports it, before the
	// session ends (its findings are then sorted and fingerprinted; this copy is
	// neither): what a recording in progress shows as it happens (record --live).
	OnFinding func(s *session.Session, f rule.Finding)
	// Live hands each record to the replay as soon as it is read instead of in
	// batches, for an input that is still being written (record --live): findings
	// then come as their frames do.
	Live bool
	// Shared is the run-wide state of the rules (Rule.Shared), kept across the
	// inputs of one run; nil gives this input state of its own.
	Shared *rule.Shared
	// Inline runs the parse stage on the caller's goroutine, one record at a time,
	// instead of on a goroutine of its own: one input then keeps one core busy, for a
	// caller that analyses several inputs at once (scan's jobs) and has no core to
	// spare for a parse stage. Results are the same either way.
	Inline bool
	// NoShapes turns the wire shapes off: every frame is then validated in full, as
	// if no shape had been seen before (the reference the shape cache is tested
	// against).
	NoShapes bool
	// NoSettling asks every rule about every message, also those of a class a rule
	// settled (Pass.Settled): the reference the settled verdicts are tested against.
	NoSettling bool
	// AllMethods asks every rule about messages of every method, whatever the
	// methods it declares (rule.Rule.Methods): the reference those are tested
	// against.
	AllMethods bool
	// Prepare, when set, gives the work on a frame that the replay's analyses
	// would otherwise do, which the parse stage does instead while it waits for
	// the replay (see send): it reads the frame and may set its Ahead. The
	// replay does the same work itself for the frames left without it (a
	// consumer of Ahead reads it only when set), so results never depend on how
	// much of it the parse stage did. Each parse stage calls Prepare once and
	// runs what it returns on its own goroutine (the regions of a file have a
	// parse stage each).
	Prepare func() func(*frame.Frame)
	// RegionBytes is the size a file is cut into regions at (see runRegions; 0:
	// regionBytes; < 0: never cut), and RegionWorkers the pipelines that judge
	// them at once (0: one per two cores, at most maxRegionWorkers; under 2: not
	// cut): for tests and measuring. MCPSLEUTH_REGIONS=0 turns the regions off.
	RegionBytes   int
	RegionWorkers int
	// batch is where the parse stage hands a batch over (zero: batchRecords and
	// batchBytes): smaller for the pipelines of regions judged at once.
	batch batchLimits
}

// Run reads one input to its end and analyses it with the given rules. The error is
// for an input that cannot be read at all.
//
// Reading runs in a goroutine of its own (the parse stage): it decodes each record
// (the reader's scan computes its wire shape as it validates it, when a rule reads
// shapes), copies it out of the reader's buffer and hands the records over in
// batches; the replay (sessions and rules) runs here, in input order,
// so results never depend on how far the parse stage has read ahead.
//
// A regular file of a line format is cut into regions at lines that may start a
// session, judged on as many cores as there are, each region on one (see
// runRegions); the results are the same as reading it whole.
func Run(name string, r io.Reader, rules []*rule.Rule, opt RunOptions) (*InputResult, error) {
	if src, size, workers, ok := regionsOf(r, opt); ok {
		return runRegions(name, src, size, workers, rules, opt)
	}
	return run(name, r, rules, opt)
}

// run is Run on one core or two: a parse stage and the replay (or one goroutine
// with Inline).
func run(name string, r io.Reader, rules []*rule.Rule, opt RunOptions) (*InputResult, error) {
	opt.Frame = readOptions(rules, opt)
	notePerspective(&opt)
	if !opt.Inline && !opt.Live && opt.Frame.ScanAhead == 0 {
		// The cores beyond the replay's and the parse stage's scan lines ahead.
		opt.Frame.ScanAhead = scanWorkers()
	}
	a, err := newAnalyzer(name, rules, opt)
	if err != nil {
		return nil, err
	}
	rd, err := frame.NewReader(name, r, opt.Frame)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	res := &InputResult{Name: name}
	res.Broken = judge(rd, a, opt, func(rec *parsedRecord) { replayRecord(a, rec, opt.OnContext) })
	res.Sessions = a.Close()
	res.Stats, res.Connections = rd.Stats(), rd.Connections()
	if res.Stats.Lossy != "" && a.Started() > 0 {
		// No message, and yet a session to judge: a connection refused before any
		// handshake (session.StreamRefusal), which the report explains.
		res.Stats.Lossy = ""
	}
	return res, nil
}

// readOptions are the reader's options for the rules: a Shaper when a rule reads
// wire shapes.
func readOptions(rules []*rule.Rule, opt RunOptions) frame.Options {
	shapes := false
	for _, r := range rules {
		shapes = shapes || r.WireShapes
	}
	if shapes && !opt.NoShapes {
		opt.Frame.Shaper = &schema.Shaper{}
	}
	// A document's entries are read on a goroutine of their own, ahead of the
	// parse stage, except where one goroutine does all (inline) or a record is
	// judged as soon as it is read (live).
	opt.Frame.EntriesAhead = !opt.Inline && !opt.Live
	return opt.Frame
}

// newAnalyzer prepares the judgement of an input's frames with the rules.
func newAnalyzer(name string, rules []*rule.Rule, opt RunOptions) (*rule.Analyzer, error) {
	a := rule.NewAnalyzerWith(name, rules, rule.AnalyzerOptions{FindingLimit: opt.FindingLimit, OnSession: opt.OnSession, Discard: opt.Discard,
		OnFinding: opt.OnFinding, NoSettling: opt.NoSettling, AllMethods: opt.AllMethods, Shared: opt.Shared})
	if err := a.Add(opt.Analyses...); err != nil {
		return nil, err
	}
	return a, nil
}

// judge reads rd to its end and feeds its records to replay in order, on the
// caller's goroutine (the replay), with a parse stage of its own (or inline,
// with opt.Inline), and settles a's requests once it is done with the records'
// memory. It returns the error reading broke off with (nil at the end).
func judge(rd *frame.Reader, a *rule.Analyzer, opt RunOptions, replay func(*parsedRecord)) (broken error) {
	if opt.Inline {
		// The arena comes from the run's pool and goes back to it once the
		// sessions have ended (they are judged to their end before Run returns): a
		// scan of many small files reuses a few arenas instead of making one a file.
		arena := a.Shared().Arena()
		defer a.Shared().Release(arena)
		broken = parseInline(rd, arena, replay, a.Settle)
		a.Settle()
		return broken
	}
	limits := opt.batch
	if limits == (batchLimits{}) {
		limits = batchLimits{records: batchRecords, bytes: batchBytes}
	}
	if opt.Live {
		limits.records = 1
	}
	batches, free := make(chan *parsedBatch, parseAhead), make(chan *parsedBatch, parseAhead+2)
	var prepare func(*frame.Frame)
	if opt.Prepare != nil {
		prepare = opt.Prepare()
	}
	go parse(rd, batches, free, limits, prepare)
	for b := range batches {
		// The shapes the parse stage left: computed for the whole batch first,
		// in one tight loop over the tokens, which come from the other core's
		// cache or memory: the loads stream (3% less CPU on 1 GiB than
		// shaping each frame as the replay reaches it).
		for i := range b.records {
			if r := &b.records[i]; r.kind == frame.RecordFrame {
				r.frame.ShapeNow()
			}
		}
		for i := range b.records {
			replay(&b.records[i])
		}
		if b.err != nil {
			broken = b.err
		}
		a.Settle() // before the parse stage reuses the batch's memory
		select {
		case free <- b:
		default:
			// Dropped: the long lines its frames kept go back to their pool.
			b.arena.Release()
		}
	}
	return broken
}

// replayRecord feeds a record to the analyzer, and a context line to onContext
// (RunOptions.OnContext).
func replayRecord(a *rule.Analyzer, rec *parsedRecord, onContext func(line int, text []byte)) {
	switch rec.kind {
	case frame.RecordFrame:
		a.Frame(&rec.frame)
	case frame.RecordContext:
		if onContext != nil {
			onContext(rec.line, rec.text)
		}
		if rec.exchange != nil {
			a.Exchange(rec.line, rec.entry, rec.exchange)
		}
		if rec.lifecycle != nil {
			a.Lifecycle(rec.line, rec.lifecycle)
		}
	}
}

// parseAhead is how many batches the parse stage may read ahead of the replay.
const parseAhead = 1

// Limits of one batch: records, and the bytes its frames hold (their text and
// index, frame.Arena.Used). Each batch handed over costs a wake-up of the replay:
// batches of 2,048 records of a typical capture (about 600 KB of text, 2 MB with
// their indexes), one read ahead, cost 5% less CPU than batches of 512, four ahead
// (the peak of a flood of a million progress requests: 92 MiB instead of 79).
// Captures of large results and blobs fill batches by bytes, and the three or
// four batches in flight are then most of the live heap (the collector lets the
// heap grow to twice that): 1 GiB of payload-heavy peaked at 103 MiB with
// batches of 4 MiB, 86 MiB with 2 MiB; base64 at 66 and 55 MiB, for no more CPU.
const (
	batchRecords = 2048
	batchBytes   = 2 << 20
)

// batchLimits are the records and the bytes a batch is handed over at.
type batchLimits struct{ records, bytes int }

// parsedBatch is a run of records copied out of the reader.
type parsedBatch struct {
	records []parsedRecord
	arena   frame.Arena
	err     error // reading broke off after the records
}

type parsedRecord struct {
	kind  frame.RecordKind
	line  int
	entry int
	frame frame.Frame
	text  []byte
	// exchange is a context record's HTTP exchange (frame.Record.Exchange), and
	// lifecycle its event of a stdio server's process (frame.Record.Lifecycle);
	// the readers allocate them per record, so they are kept as they are.
	exchange  *frame.Exchange
	lifecycle *frame.Lifecycle
	// prepared is set once the parse stage prepared the frame (RunOptions.Prepare).
	prepared bool
}

// parse is the parse stage: it reads rd to its end and sends its records in batches,
// then closes out. Batches the replay is done with come back on free; a batch is
// handed over when it holds limits.records records or limits.bytes bytes.
func parse(rd *frame.Reader, out chan<- *parsedBatch, free <-chan *parsedBatch, limits batchLimits, prepare func(*frame.Frame)) {
	defer close(out)
	next := func() *parsedBatch {
		select {
		case b := <-free:
			b.records = b.records[:0]
			b.arena.Reset()
			return b
		default:
			// Grown as it fills: a small input never makes room for a full batch.
			return &parsedBatch{records: make([]parsedRecord, 0, 64)}
		}
	}
	b := next()
	for {
		rec, err := rd.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				b.err = err
			}
			break
		}
		if rec.Kind != frame.RecordFrame && rec.Kind != frame.RecordContext {
			continue
		}
		if rec.Kind == frame.RecordFrame && len(b.records) > 0 && b.arena.Used()+len(rec.Frame.Raw) > limits.bytes {
			// The frame would take the batch past its bytes: the batch goes
			// first, and a frame larger than a batch travels alone. The bytes in
			// flight stay near parseAhead+2 batches, whatever the lines' sizes.
			rd.ScanAhead(!send(out, b, prepare))
			b = next()
		}
		b.records = append(b.records, parsedRecord{kind: rec.Kind, line: rec.Line, entry: rec.Entry, exchange: rec.Exchange, lifecycle: rec.Lifecycle})
		p := &b.records[len(b.records)-1]
		switch rec.Kind {
		case frame.RecordFrame:
			// While the replay has not taken the batch before this one, this
			// stage is ahead: it shapes the frame now, from its scan's tokens still
			// in this core's cache (the replay would read them from memory).
			ahead := len(out) == cap(out)
			rd.Detach(rec.Frame, &b.arena, &p.frame, ahead)
			if ahead && prepare != nil {
				// And prepares it, from the same tokens still in the cache
				// (send would come back to them once the batch is full).
				prepare(&p.frame)
				p.prepared = true
			}
		case frame.RecordContext:
			p.text = b.arena.Copy(rec.Text)
		}
		if len(b.records) >= limits.records || b.arena.Used() >= limits.bytes {
			// Lines are scanned ahead on other cores only while the replay waits
			// for batches: when it is the slower stage, both cores are busy.
			rd.ScanAhead(!send(out, b, prepare))
			b = next()
		}
	}
	if len(b.records) > 0 || b.err != nil {
		send(out, b, prepare)
	}
}

// send hands a batch to the replay. When the replay is behind (it has not taken
// the batch before), the parse stage would wait: it computes the wire shapes its
// frames still lack meanwhile; else the replay computes them, in one loop over the
// batch before replaying it (frame.Frame.ShapeNow). Then, with prepare, it
// prepares the batch's frames that parse did not prepare as it read them (while
// ahead: from tokens still in the cache) (RunOptions.Prepare) until the replay takes the
// batch: the replay does that work for the frames left. The two stages share the
// work as each has time for it.
// send reports whether the replay was behind.
func send(out chan<- *parsedBatch, b *parsedBatch, prepare func(*frame.Frame)) (behind bool) {
	select {
	case out <- b:
		return false
	default:
	}
	for i := range b.records {
		if r := &b.records[i]; r.kind == frame.RecordFrame {
			r.frame.ShapeNow()
		}
	}
	if prepare != nil {
		for i := range b.records {
			if i%prepareStep == 0 {
				select {
				case out <- b:
					return true // the batch is the replay's now: not touched again
				default:
				}
			}
			if r := &b.records[i]; r.kind == frame.RecordFrame && !r.prepared {
				prepare(&r.frame)
				r.prepared = true
			}
		}
	}
	out <- b
	return true
}

// prepareStep is how many frames send prepares between two offers of the batch to
// the replay: a redaction's walk of a small frame takes about a microsecond, so a
// replay that became ready waits a few microseconds for the batch at most.
const prepareStep = 8

// parseInline reads rd to its end on the caller's goroutine, handing each record to
// replay as it is read: the records of a batch's worth share one arena, reset once
// they are replayed, so a record lives as long as it does in a batch of parse;
// settle runs before each reset (session.Tracker.Settle). It returns the error
// reading broke off with (nil at the end of the input).
func parseInline(rd *frame.Reader, arena *frame.Arena, replay func(*parsedRecord), settle func()) error {
	var (
		rec parsedRecord
		n   int
	)
	for {
		r, err := rd.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if r.Kind != frame.RecordFrame && r.Kind != frame.RecordContext {
			continue
		}
		if n >= batchRecords || arena.Used() >= batchBytes {
			settle() // the replayed records' requests let go of the arena
			arena.Reset()
			n = 0
		}
		n++
		rec = parsedRecord{kind: r.Kind, line: r.Line, entry: r.Entry, exchange: r.Exchange, lifecycle: r.Lifecycle}
		switch r.Kind {
		case frame.RecordFrame:
			rd.Detach(r.Frame, arena, &rec.frame, true) // shaped while its tokens are in the cache
		case frame.RecordContext:
			rec.text = arena.Copy(r.Text)
		}
		replay(&rec)
	}
}

// scanWorkers is how many workers scan lines ahead of the parse stage: one per core
// beyond the replay's and the parse stage's. On two cores, none: both stages keep
// their core busy, and a worker on either costs more in hand-offs and memory than
// it saves (docs/performance.md, "One way to read a message"). The cores are those
// the process may run on (runtime.NumCPU), not GOMAXPROCS alone: GOMAXPROCS=16 on
// two cores made fourteen workers that fought the two stages for them (30% more
// CPU on tiny-sessions). MCPSLEUTH_SCAN_WORKERS sets it, for measuring.
func scanWorkers() int {
	if v := os.Getenv("MCPSLEUTH_SCAN_WORKERS"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return min(n, 64)
		}
	}
	return max(min(runtime.GOMAXPROCS(0), runtime.NumCPU())-2, 0)
}
