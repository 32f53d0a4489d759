// This file holds the regions of a file: a capture of many sessions judged on as
// many cores as there are, each region of it on one.

package driver

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// regionBytes is the size a file is cut at into regions: a region ends at the
// first line after it that may start a session (or after maxRegionSessions such
// lines). A region's results wait for the regions before it, so its size bounds
// what waits: 8 MiB of the smallest sessions (tiny-sessions, about 1,500 of
// them) is a few megabytes of results.
const regionBytes = 8 << 20

// How the regions of a file are judged (runRegions):
//
//   - a cutter reads the file once, counting lines, and cuts it into regions of
//     about regionBytes (or maxRegionSessions sessions), each starting at a line
//     that may start a session (mayStartSession);
//   - workers judge regions whole, each region on its own, as any input is
//     judged (a parse stage and a replay: judge): a Reader resumed at the
//     region's first line (frame.Options.Resume) and an Analyzer of its own;
//   - the caller's goroutine takes the regions in order and checks each cut: the
//     region before must have ended where a Reader resumes (frame.Reader.Resumable)
//     and its Analyzer must take the next region's first frame as a fresh start
//     (rule.Analyzer.Boundary: it starts a session and no other is open). Then
//     judging the regions apart is judging the file whole: the region's open
//     session ends with that frame (CloseBefore), its sessions are numbered on
//     from the regions before and handed on (OnSession) in the order they ended;
//   - a cut that fails the check makes the region before go on over the next
//     one's lines (judgeFurther); after maxFailedCuts in a row, over the rest of
//     the file. A region whose Reader cannot be resumed sends the rest of the
//     file, from that region's start (the last one known to start afresh), to
//     the ordinary run (run). What the workers did past it is dropped.
//
// Nothing here judges: the results are the Analyzers', and the check of a cut
// compares states. TestRegionsChangeNothing (pkg/rules, cmd/capturegen) judges
// every fixture cut at every line that may be cut at, and generated captures of
// every profile, against the whole run.

// maxRegionWorkers bounds the regions judged at once by default.
const maxRegionWorkers = 4

// regionsOf reports whether Run cuts the input into regions: a regular file (or
// an in-memory reader, in tests) at its start, not compressed, of at least two
// regions' size, on four cores or more (two pipelines), with none of the options
// that need the frames of the whole input in one order (a view's context lines,
// live findings, a copy of the text), no view's analysis that must follow the
// run's sessions from one goroutine (rule.Apart: a trace of context lines or
// with a cap over the run, a sink of every session's account), and no format
// or perspective given (the regions resume with those the first region's
// Reader found). It returns the input to read regions of, its size and the
// workers.
func regionsOf(r io.Reader, opt RunOptions) (src io.ReaderAt, size int64, workers int, ok bool) {
	if opt.Inline || opt.Live || opt.OnContext != nil || opt.OnFinding != nil || !rule.Apart(opt.Analyses) ||
		opt.Frame.Tee != nil || opt.Frame.Resume != nil || opt.Frame.Perspective != 0 || opt.RegionBytes < 0 ||
		(opt.Frame.Format != "" && opt.Frame.Format != "auto") || os.Getenv("MCPSLEUTH_REGIONS") == "0" {
		return nil, 0, 0, false
	}
	workers = opt.RegionWorkers
	if workers <= 0 {
		// A region is judged by a parse stage and a replay: two cores. Each
		// region in flight holds its batches, its sessions' state and the
		// sessions that wait (10-20 MiB more peak memory a pipeline on healthy
		// and tiny-sessions): at most maxRegionWorkers at once.
		workers = min(min(runtime.GOMAXPROCS(0), runtime.NumCPU())/2, maxRegionWorkers)
	}
	if v := os.Getenv("MCPSLEUTH_REGION_WORKERS"); v != "" && opt.RegionWorkers == 0 {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			workers = min(n, 64)
		}
	}
	if workers < 2 {
		return nil, 0, 0, false
	}
	switch in := r.(type) {
	case *os.File:
		st, err := in.Stat()
		if err != nil || !st.Mode().IsRegular() {
			return nil, 0, 0, false
		}
		if at, err := in.Seek(0, io.SeekCurrent); err != nil || at != 0 {
			return nil, 0, 0, false
		}
		src, size = in, st.Size()
	case *bytes.Reader:
		if int64(in.Len()) != in.Size() {
			return nil, 0, 0, false
		}
		src, size = in, in.Size()
	default:
		return nil, 0, 0, false
	}
	if !plainText(src) {
		return nil, 0, 0, false
	}
	limit := opt.Frame.MaxInput
	if limit == 0 {
		limit = frame.DefaultMaxInput
	}
	if size < 2*int64(opt.regionBytes()) || (limit > 0 && size > limit) {
		return nil, 0, 0, false
	}
	return src, size, workers, true
}

// plainText reports whether a file starts as text the cutter can read: not
// read through a decoder (frame.Wrapped: gzip or zstd, whose bytes are no lines
// and whose stored blocks could even hold one that looks like a line; UTF-16,
// whose lines the cutter would not see).
func plainText(src io.ReaderAt) bool {
	var head [4]byte
	n, _ := src.ReadAt(head[:], 0)
	return !frame.Wrapped(head[:n])
}

// regionBytes is the size regions are cut at (RunOptions.RegionBytes, else
// MCPSLEUTH_REGION_BYTES, for measuring).
func (opt RunOptions) regionBytes() int {
	if opt.RegionBytes > 0 {
		return opt.RegionBytes
	}
	if n, err := strconv.Atoi(os.Getenv("MCPSLEUTH_REGION_BYTES")); err == nil && n > 0 {
		return n
	}
	return regionBytes
}

// region is a part of a file judged on its own: lines from byte off (line line)
// to byte end (the next region's start; -1: to the end of the file).
type region struct {
	index    int
	off, end int64
	line     int
	ready    chan struct{} // closed once first is set, or known to be absent
	done     chan struct{} // closed once the region is judged
	first    frame.Frame   // the region's first record, when a frame at its first line (its own copy)
	hasFirst bool
	a        *rule.Analyzer // open: the sessions open at the region's end are not ended
	sessions []*rule.SessionResult
	// deliver takes each session of the region as it ends: into sessions, until
	// runRegions hands them on as they end (the rest of a file not cut).
	deliver func(*rule.SessionResult)
	stats   frame.Stats
	// perspective is the side that wrote a read/write log as the region's Reader
	// knew it at its end.
	perspective spec.Side
	// connections are those a client's log told of (frame.Reader.Connections).
	connections []frame.Connection
	resumable   bool
	err         error // reading broke off (or never began)
}

// errRegionsStopped ends the reading of a region no one waits for any more.
var errRegionsStopped = errors.New("mcpsleuth: regions stopped")

// regionFormat is the format of the file's first region, for the others to
// resume with: known once the first region is judged ("" when its Reader cannot
// be resumed: then no other region is judged).
type regionFormat struct {
	ready       chan struct{}
	name        string
	perspective spec.Side // of a read/write log, as the first region's Reader inferred it
}

// resume is how a region's Reader starts: at its first line, as the first
// region's Reader went on.
func (f *regionFormat) resume(r *region) *frame.Resume {
	return &frame.Resume{Format: f.name, Line: r.line, Perspective: f.perspective}
}

// text is the region's bytes: to the next region's start, or, for the last, to
// the end of the file as it is when read (a file still written to is read to
// its end, as when read whole).
func (r *region) text(src io.ReaderAt) *io.SectionReader {
	if r.end >= 0 {
		return io.NewSectionReader(src, r.off, r.end-r.off)
	}
	return io.NewSectionReader(src, r.off, 1<<62-r.off)
}

// runRegions judges a file region by region (see above).
func runRegions(name string, src io.ReaderAt, size int64, workers int, rules []*rule.Rule, opt RunOptions) (*InputResult, error) {
	if opt.Shared == nil {
		opt.Shared = rule.NewShared() // one for every region, as for every input of a run
	}
	if opt.Frame.LinePool == nil {
		opt.Frame.LinePool = new(frame.LinePool) // the long lines' buffers, one pool's worth for all
	}
	var stop atomic.Bool
	// slots bounds the regions cut and not yet handed on: those being judged and
	// those judged and waiting for the regions before them.
	slots := make(chan struct{}, workers+1)
	work, order, quit := make(chan *region, workers+1), make(chan *region, workers+1), make(chan struct{})
	format := &regionFormat{ready: make(chan struct{})}
	go cutRegions(src, size, opt.regionBytes(), slots, work, order, quit)
	finished := make(chan struct{})
	for range workers {
		go func() {
			defer func() { finished <- struct{}{} }()
			wopt := opt
			if opt.Prepare != nil {
				// One preparation a worker, for the regions it judges one
				// after another (what it learns serves them all).
				prepare := opt.Prepare()
				wopt.Prepare = func() func(*frame.Frame) { return prepare }
			}
			for r := range work {
				judgeRegion(name, src, r, format, workers, rules, wopt, &stop)
			}
		}()
	}
	res := &InputResult{Name: name}
	started := 0 // sessions handed on
	hand := func(sr *rule.SessionResult, base int) {
		sr.Session.Index += base
		started++
		if opt.OnSession != nil {
			opt.OnSession(sr)
		}
		if !opt.Discard {
			res.Sessions = append(res.Sessions, sr)
		}
	}
	handAll := func(results []*rule.SessionResult) {
		base := started
		for _, sr := range results {
			hand(sr, base)
		}
	}
	keep := func(cur *region) { // a region judged to its end: what it read joins the file's
		res.Regions++
		res.Stats.Add(cur.stats)
		res.Broken = cur.err
		res.Connections = append(res.Connections, cur.connections...)
	}
	var (
		from   *region // the region the rest of the file is judged from, when a cut failed
		failed int     // cuts failed in a row
	)
	halt := sync.OnceFunc(func() {
		stop.Store(true)
		close(quit)
		for range workers {
			<-finished
		}
	})
	defer halt()
	for cur := <-order; cur != nil; {
		<-cur.done
		if cur.a == nil {
			from = cur // never read: reading the rest whole says why
			break
		}
		next := <-order // nil: cur is the last region
		if next == nil {
			cur.a.Close() // the sessions it ends join cur.sessions
			handAll(cur.sessions)
			keep(cur)
			break
		}
		if cur.err != nil {
			from = cur // a read error: reading the rest whole meets it, and says where
			break
		}
		<-next.ready
		readable := cur.resumable && cur.stats.Format == format.name && cur.perspective == format.perspective
		if readable && next.hasFirst && cur.a.Boundary(&next.first) {
			failed = 0
			cur.a.CloseBefore(&next.first) // the sessions it ends join cur.sessions
			handAll(cur.sessions)
			keep(cur)
			<-slots
			cur = next
			continue
		}
		if !readable {
			from = cur
			break
		}
		// The cut fails (a session goes on past it, another stream is open), the
		// reading does not: cur's analysis goes on over next's lines, and what
		// next's worker found is dropped. After maxFailedCuts in a row, the file
		// is no place to cut: cur's analysis goes on over all the rest.
		if failed++; failed <= maxFailedCuts {
			judgeFurther(name, src, cur, next, format, rules, opt)
			<-slots // next's: it is cur's now
			continue
		}
		// The rest of the file goes on cur's analysis, and its sessions are
		// handed on as they end.
		halt()
		base := started
		handAll(cur.sessions)
		cur.sessions, cur.deliver = nil, func(sr *rule.SessionResult) { hand(sr, base) }
		next.end = -1
		judgeFurther(name, src, cur, next, format, rules, opt)
		cur.a.Close()
		keep(cur)
		break
	}
	halt()
	if from != nil {
		// The rest, from the last region known to start afresh, as any input.
		ropt := opt
		if from.index > 0 {
			ropt.Frame.Resume = format.resume(from)
		}
		ropt.Frame.SizeHint = size - from.off
		ropt.Discard = true
		base := started
		ropt.OnSession = func(sr *rule.SessionResult) { hand(sr, base) }
		rest, err := run(name, io.NewSectionReader(src, from.off, size-from.off), rules, ropt)
		if err != nil {
			return nil, err
		}
		res.Stats.Add(rest.Stats)
		res.Broken, res.Connections = rest.Broken, append(res.Connections, rest.Connections...)
		res.Regions++
	}
	if !opt.Discard {
		slices.SortStableFunc(res.Sessions, func(a, b *rule.SessionResult) int { return a.Session.Index - b.Session.Index })
	}
	if started > 0 {
		res.Stats.Lossy = ""
	}
	return res, nil
}

// maxFailedCuts is how many cuts in a row may fail before the rest of the file
// is judged without cutting: each failed cut judges a region twice (its worker's
// judgement is dropped).
const maxFailedCuts = 2

// judgeFurther judges next's lines as the rest of cur: a Reader resumed at next's
// first line (cur's ended where one resumes) feeds cur's Analyzer, on the
// caller's goroutine with a parse stage of its own. cur then ends where next
// ended.
func judgeFurther(name string, src io.ReaderAt, cur, next *region, format *regionFormat, rules []*rule.Rule, opt RunOptions) {
	fopt := readOptions(rules, opt)
	fopt.Resume = format.resume(next)
	text := next.text(src)
	fopt.SizeHint = text.Size()
	rd, err := frame.NewReader(name, text, fopt)
	if err != nil {
		cur.err, cur.resumable = err, false
		return
	}
	defer rd.Close()
	opt.Frame = fopt
	cur.err = judge(rd, cur.a, opt, func(rec *parsedRecord) { replayRecord(cur.a, rec, opt.OnContext) })
	cur.stats.Add(rd.Stats())
	cur.resumable, cur.perspective = cur.err == nil && rd.Resumable(), rd.Perspective()
	cur.connections = append(cur.connections, rd.Connections()...)
	cur.end = next.end
}

// cutRegions reads src once and sends its regions, in order, to work (the
// workers) and to order (runRegions), each once it holds a slot; it closes both
// at the end of src, or once quit is closed.
func cutRegions(src io.ReaderAt, size int64, every int, slots chan<- struct{}, work, order chan<- *region, quit <-chan struct{}) {
	defer close(work)
	defer close(order)
	send := func(r *region) bool {
		select {
		case slots <- struct{}{}:
		case <-quit:
			return false
		}
		work <- r // never full: it holds no more regions than there are slots
		order <- r
		return true
	}
	br := bufio.NewReaderSize(io.NewSectionReader(src, 0, size), cutBuffer)
	var (
		off, start      int64
		line, startLine = 1, 1
		atStart         = true // off is where a line starts
		n               int
	)
	starts := 0 // lines of the region that may start a session
	for {
		chunk, err := br.ReadSlice('\n')
		candidate := atStart && mayStartSession(chunk)
		if candidate && (off-start >= int64(every) || starts >= maxRegionSessions) {
			if !send(&region{index: n, off: start, end: off, line: startLine, ready: make(chan struct{}), done: make(chan struct{})}) {
				return
			}
			n++
			start, startLine, starts = off, line, 0
		}
		if candidate {
			starts++
		}
		off += int64(len(chunk))
		atStart = len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
		if atStart {
			line++
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			break
		}
	}
	send(&region{index: n, off: start, end: -1, line: startLine, ready: make(chan struct{}), done: make(chan struct{})})
}

// maxRegionSessions bounds the sessions a region may start: a region's ended
// sessions wait for the regions before it, so their number bounds the memory
// that waits (a capture of a million sessions of three frames each held 180 MB
// of them, and the collector ran back to back, with regions of 8 MiB alone).
const maxRegionSessions = 1024

// cutBuffer is the buffer the cutter reads the file through.
const cutBuffer = 1 << 20

// mayStartSession reports whether a line (its first cutBuffer bytes) may hold a
// request that starts a session: a JSON object, behind a short prefix at most,
// with "method":"initialize" in it (compact, or with the space Python's
// json.dumps writes). It only picks where to cut; the cut is checked
// (runRegions).
func mayStartSession(line []byte) bool {
	open := bytes.IndexByte(line[:min(len(line), maxCutPrefix+1)], '{')
	if open < 0 || bytes.ContainsAny(line[:open], "\"[") {
		return false
	}
	return bytes.Contains(line, []byte(`"method":"initialize"`)) || bytes.Contains(line, []byte(`"method": "initialize"`))
}

// maxCutPrefix is the longest text before the object on a line the cutter cuts
// at: a Go SDK log's "write: ", behind a time stamp.
const maxCutPrefix = 64

// judgeRegion judges a region as any input is judged, a parse stage and the
// replay (run), with a Reader resumed at its first line (the first region's
// reads the file's start and finds its format) and an Analyzer of its own, left
// open at the region's end.
func judgeRegion(name string, src io.ReaderAt, r *region, format *regionFormat, workers int, rules []*rule.Rule, opt RunOptions, stop *atomic.Bool) {
	defer close(r.done)
	readyOnce := sync.OnceFunc(func() { close(r.ready) })
	defer readyOnce()
	if r.index == 0 {
		defer func() {
			// The others resume in the first region's format, once it is known
			// for good: at its end.
			if r.resumable {
				format.name, format.perspective = r.stats.Format, r.perspective
			}
			close(format.ready)
		}()
	}
	opt.Frame = readOptions(rules, opt)
	opt.Frame.ScanAhead = 0 // the cores judge regions
	opt.batch = regionBatch(workers)
	if r.index > 0 {
		<-format.ready
		if format.name == "" || stop.Load() {
			r.err = errRegionsStopped
			return
		}
		opt.Frame.Resume = format.resume(r)
	}
	text := r.text(src)
	opt.Frame.SizeHint = text.Size()
	rd, err := frame.NewReader(name, &stoppable{r: text, stop: stop}, opt.Frame)
	if err != nil {
		r.err = err
		return
	}
	defer rd.Close()
	r.deliver = func(sr *rule.SessionResult) {
		sr.KeepAnalyses(opt.Analyses) // no view asks the others, and the result waits
		r.sessions = append(r.sessions, sr)
	}
	opt.Discard, opt.OnSession = true, func(sr *rule.SessionResult) { r.deliver(sr) }
	a, err := newAnalyzer(name, rules, opt)
	if err != nil {
		r.err = err
		return
	}
	firstRecord := true
	r.err = judge(rd, a, opt, func(rec *parsedRecord) {
		if firstRecord {
			firstRecord = false
			if rec.kind == frame.RecordFrame && rec.line == r.line {
				var own frame.Arena
				rec.frame.Detach(&own, &r.first)
				r.hasFirst = true
			}
			readyOnce()
		}
		replayRecord(a, rec, opt.OnContext)
	})
	r.a, r.stats, r.resumable, r.perspective = a, rd.Stats(), r.err == nil && rd.Resumable(), rd.Perspective()
	r.connections = rd.Connections()
}

// regionBatch is where the pipeline of one of workers regions judged at once
// hands its batches over: the batches in flight of all of them take about what
// one input's take (a batch's records and their indexes are most of the live
// heap of a capture of small messages), and never less than a quarter of a
// batch each (smaller batches cost more hand-offs: 512 records took 5% more
// CPU than 2,048).
func regionBatch(workers int) batchLimits {
	return batchLimits{records: max(batchRecords/workers, batchRecords/4), bytes: max(batchBytes/workers, batchBytes/4)}
}

// stoppable is a reader that stops once stop is set.
type stoppable struct {
	r    io.Reader
	stop *atomic.Bool
}

func (s *stoppable) Read(p []byte) (int, error) {
	if s.stop.Load() {
		return 0, errRegionsStopped
	}
	return s.r.Read(p)
}
