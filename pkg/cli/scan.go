package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v3"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/scan"
	"github.com/mcpsleuth/mcpsleuth/pkg/tokens"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// scanFormats are the --format values of scan: the summary, and the formats of
// check that a warehouse, CI or a pipe reads.
var scanFormats = []string{"text", "json", "jsonl", "sarif", "junit", "lines", "codequality"}

func scanCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "scan",
		Usage:     "batch: analyse many captures in parallel, summarised by rule and by client x server implementation",
		ArgsUsage: "DIR|GLOB|FILE...",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", HideDefault: true, Usage: "output: text (the summary), json (the report of every file, as check), jsonl (one finding a line with its session inlined, for a warehouse), sarif, junit, codequality (GitLab) or lines (path:line: severity RULE message, one finding a line, as check). Left out: the format --output's extension names (.json, .jsonl or .ndjson, .sarif, .xml, .txt), else text, piped or not"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), Usage: "files analysed at once"},
			&cli.StringFlag{Name: "shard", Usage: "take share `K/N` of the files (K from 0 to N-1, by a hash of each path relative to its scan root): N machines with K = 0..N-1 together scan everything once"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress bar (there is none when stderr is not a terminal); what could not be read or judged is still said on stderr"},
			&cli.BoolFlag{Name: "redact", Usage: "redact captured values, as check --redact"},
			&cli.StringSliceFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the output to `FILE` instead of stdout; FORMAT=FILE writes one more output in that format beside --format's, in the same run (repeatable: --output sarif=results.sarif --output jsonl=findings.jsonl)"},
			failOnFlag(),
			minSeverityFlag(),
			baselineFlag(),
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour the summary: auto, always or never (NO_COLOR is honoured)"},
		}, slices.Concat(ruleFlags(""), walkFlags(), sarifFlags(), readFlags())...),
		Action: func(_ context.Context, c *cli.Command) error { return runScan(env, c) },
	}
}

// scanned is what one job hands back for one input.
type scanned struct {
	res *driver.InputResult
	// cost adds up what the input's sessions cost (their accounts, released as
	// each session ends).
	cost *report.Stats
	// sessions are the input's sessions as the reports show them (the summary
	// counts them); parts are the input's report for each output written whole
	// (by sink; nil for the others).
	sessions []report.Session
	parts    []*report.Report
	// prepared are the sessions encoded for each stream format (by sink), by
	// the job (report.Stream.Prepare); prepareErr is the error that stopped them.
	prepared   [][]*report.Prepared
	prepareErr error
	// why is set when the input could not be read at all.
	why string
}

// scanRun is one run of scan: its settings, and what it gathers from the files
// as they are handed over in input order.
type scanRun struct {
	env      Env
	out      output // --format and --output's FILE: the first of sinks
	failOn   rule.Severity
	selected []*rule.Rule
	frame    frame.Options
	redact   bool
	inputs   []scan.Input
	shared   *rule.Shared
	bar      *scanProgress
	stderr   io.Writer
	summary  *report.ScanSummary
	// tokens counts the definitions of every file's sessions once (what each
	// session cost, the summary's section).
	tokens *tokens.Memo

	// sinks are the outputs, --format's first (scan_sinks.go).
	sinks []*scanSink

	// show filters each session's findings (--baseline, --min-severity; nil
	// when neither is given).
	show     *shown
	sarif    report.SARIFOptions
	config   *report.Config // what the reports record of the configuration
	worst    rule.Severity
	unjudged int
	// failed are the inputs that could not be read or judged, in the order met:
	// the artifacts show them (the JSON "errors", SARIF notifications, JUnit errors).
	failed []report.InputError
}

// maxJobs is the most files a scan analyses at once: four per core (a job
// waiting on a slow disk leaves its core to another), and at least 8.
func maxJobs() int { return max(8, 4*runtime.NumCPU()) }

func runScan(env Env, c *cli.Command) error {
	start := time.Now()
	if env.Getenv("GOGC") == "" {
		// A scan is a batch job whose memory is bounded by the soft memory limit
		// (one analysis's per job: parseScanFlags), not by the collector's pacing: each job keeps a few MB live (one
		// file's state and the run's caches), so the default pacing collected every
		// few MB of garbage, and on one job its background marking took the second
		// core (CPU 1.1 to 1.3 times the wall time), which two jobs have not got.
		defer debug.SetGCPercent(debug.SetGCPercent(scanGCPercent))
	}
	run, shard, err := parseScanFlags(env, c)
	if err != nil {
		return err
	}
	if c.Args().Len() == 0 {
		return usageErr("mcpsleuth: scan: give the directories, patterns or files to scan")
	}
	all, err := walkArgs(c, c.Args().Slice(), io.Discard) // said below, through the progress bar
	if err != nil {
		return err
	}
	paths := make([]string, len(all.Inputs))
	for i, in := range all.Inputs {
		paths[i] = in.Path
	}
	for _, sk := range run.sinks {
		if err := sk.out.notAnInput(paths); err != nil { // every file the walk found, not only this share's
			return err
		}
	}
	walk := shard.Of(all)
	run.inputs = walk.Inputs
	// A share of a spread scan may hold no file (more machines than files): that
	// share is done, not an error.
	emptyShare := !shard.Whole() && len(walk.Inputs) == 0 && len(all.Inputs) > 0

	run.bar = newScanProgress(env, run.inputs, c.Bool("quiet"))
	run.stderr = run.bar.writer(env.Stderr)
	sayUnread(run.stderr, walk.Unread, c.Bool("verbose"))
	for _, root := range walk.Empty {
		e := noCaptures(root)
		run.unread(root, e.Kind, e.Message)
	}
	for _, sk := range walk.Skipped {
		kind := report.ErrorSkipped
		if sk.Failed {
			kind = report.ErrorUnreadable
		}
		run.unread(sk.Path, kind, "skipped: "+sk.Why)
	}
	if err := run.openSinks(); err != nil {
		run.bar.stop()
		return err
	}
	defer run.closeSinks()
	// Results wait for those before them: a window of many small files' results
	// lets the other jobs go on past a big file, while the input they were read
	// from (what bounds a result's size) stays within scanWindowBytes.
	run.summary.Jobs = max(1, min(run.summary.Jobs, len(run.inputs)))
	// Each job reads a file of its own: the soft memory limit is one analysis's,
	// per job, so that many jobs do not keep the collector running.
	raiseMemoryLimit(int64(run.summary.Jobs) * softMemoryLimit(run.frame.MaxLine))
	window := scan.Window{Most: 32 * run.summary.Jobs, Weight: func(i int) int64 { return run.inputs[i].Size }, Budget: scanWindowBytes}
	scan.Ordered(len(run.inputs), run.summary.Jobs, window, run.analyse, run.emit)
	run.bar.stop()
	run.summary.Wall = time.Since(start)

	if run.summary.Files == 0 && !emptyShare {
		what := "no capture was found"
		if len(run.inputs) > 0 {
			what = fmt.Sprintf("none of the %d inputs could be read", len(run.inputs))
		}
		// The artifact is still written, with what could not be read: a CI job
		// uploads it, and it must not read as a clean run.
		if err := run.write(func(sk *scanSink) bool { return sk.out.format != "text" }); err != nil {
			return err
		}
		return &exitError{code: ExitUsage, msg: "mcpsleuth: scan: " + what}
	}
	if err := run.write(nil); err != nil {
		return err
	}
	switch {
	case run.failOn != 0 && run.worst >= run.failOn:
		return &exitError{code: ExitFindings}
	case run.failOn != 0 && (run.unjudged > 0 || len(run.summary.Unread) > 0):
		return &exitError{code: ExitFindings} // a file not read or not judged is never a clean pass
	}
	return nil
}

// scanGCPercent is the collector's pacing during a scan (GOGC overrides it): the
// heap may grow to five times what is live before a collection, under the soft
// memory limit.
const scanGCPercent = 400

// scanWindowBytes bounds the size of the files whose results are done or under way
// and not yet written, beyond the files the jobs are reading.
const scanWindowBytes = 64 << 20

// parseScanFlags reads the flags of scan.
func parseScanFlags(env Env, c *cli.Command) (*scanRun, scan.Shard, error) {
	var shard scan.Shard
	out, err := parseReportOutput(env, c, "", scanFormats)
	if err != nil {
		return nil, shard, err
	}
	set, err := loadSettings(c)
	if err != nil {
		return nil, shard, err
	}
	failOn, fopt, selected := set.failOnLevel, set.frame, set.rules
	show, err := showOf(c, set)
	if err != nil {
		return nil, shard, err
	}
	sarif, err := sarifOptions(c)
	if err != nil {
		return nil, shard, err
	}
	jobs := c.Int("jobs")
	if jobs < 1 {
		return nil, shard, usageErr("mcpsleuth: --jobs must be at least 1, not %d", jobs)
	}
	// More jobs than cores gain nothing (a job is CPU-bound) and each holds a
	// file's analysis: --jobs is clamped to maxJobs, and to the files (runScan).
	jobs = min(jobs, maxJobs())
	if s := c.String("shard"); s != "" {
		if shard, err = scan.ParseShard(s); err != nil {
			return nil, shard, usageErr("%v", err)
		}
	}
	extra, err := extraOutputs(env, c)
	if err != nil {
		return nil, shard, err
	}
	run := &scanRun{env: env, out: out, failOn: failOn, frame: fopt, redact: c.Bool("redact"), show: show, sarif: sarif, config: set.reportConfig(c.String("baseline")),
		selected: selected,
		shared:   rule.NewShared(), // concurrency-safe: what the rules learn once serves every file
		summary:  report.NewScanSummary(), tokens: tokens.NewMemo()}
	run.summary.Jobs = jobs
	for _, o := range append([]output{out}, extra...) {
		format, _ := report.LookupFormat(o.format)
		run.sinks = append(run.sinks, &scanSink{out: o, format: format})
	}
	return run, shard, nil
}

// analyse reads and analyses input i: one job's work, on a goroutine of its own.
func (run *scanRun) analyse(i int) scanned {
	in := run.inputs[i]
	r, why := openScanInput(run.env, in)
	if why != "" {
		run.bar.fileDone(in, 0)
		return scanned{why: why}
	}
	counted := run.bar.reader(r)
	// With more than one file, the parallelism is across files (--jobs): each file is
	// analysed on one core, its parse stage inline, so --jobs N keeps N cores busy.
	// A scan of one file analyses it on two, as check does.
	fo := run.frame
	fo.SizeHint = in.Size
	cost := report.NewStats()
	res, err := driver.Run(in.Path, counted, run.selected, driver.RunOptions{Frame: fo, Shared: run.shared, Inline: len(run.inputs) > 1,
		Analyses: []*rule.Analysis{trace.NewAccountingTo(run.tokens, cost.Add)}})
	r.Close()
	run.bar.fileDone(in, counted.n)
	if err != nil {
		return scanned{why: reason(err, in.Path)}
	}
	if run.show != nil {
		return scanned{res: res, cost: cost} // filtered and presented in input order (emit)
	}
	got := run.present(res)
	got.cost = cost
	return got
}

// emit takes the analysis of input i, in input order, on the run's goroutine.
func (run *scanRun) emit(i int, got scanned) {
	in := run.inputs[i]
	res := got.res
	if res == nil {
		run.unread(in.Path, report.ErrorUnreadable, got.why)
		return
	}
	if run.show != nil {
		for _, sr := range res.Sessions {
			run.show.apply(sr)
		}
		cost := got.cost
		got = run.present(res)
		got.cost = cost
	}
	run.summary.AddFile(res, got.sessions)
	run.summary.AddCost(got.cost)
	if res.Broken != nil {
		e := readInPart(in.Path, res.Broken)
		run.unread(in.Path, e.Kind, e.Message)
	}
	if res.Stats.Lossy != "" {
		run.unjudged++
		e := unjudged(in.Path, res.Stats)
		run.unread(in.Path, e.Kind, e.Message)
	}
	if run.show != nil {
		run.worst = run.show.worst // every finding not in the baseline, shown or not
	} else {
		for _, sr := range res.Sessions {
			run.worst = max(run.worst, sr.Worst())
		}
	}
	run.emitToSinks(got)
}

// unread names an input that was not read, or read in part, or not judged: on
// stderr (escaped), in the summary, and in the artifacts (redacted with them).
func (run *scanRun) unread(path string, kind report.ErrorKind, why string) {
	run.failed = append(run.failed, report.InputError{Input: path, Kind: kind, Message: why})
	if run.redact {
		// As the reports name it and say why (a client log's URLs may hold tokens).
		path, why = redact.MaskSecrets(path), redact.MaskSecrets(why)
	}
	fmt.Fprintf(run.stderr, "mcpsleuth: %s: %s\n", report.Safe(path), report.Safe(why))
	run.summary.AddUnread(path, why)
}

// openScanInput opens one input of a scan; why says why it cannot be read.
func openScanInput(env Env, in scan.Input) (io.ReadCloser, string) {
	if in.Path == "-" {
		return io.NopCloser(env.Stdin), ""
	}
	f, err := os.Open(in.Path)
	if err != nil {
		return nil, "cannot read: " + unwrapPath(err).Error()
	}
	if in.Walked {
		// The walk saw a regular file; it may have been replaced since.
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			f.Close()
			return nil, "no longer a regular file: not read"
		}
	}
	return f, ""
}

// mergeReport appends the report of one input to the report of the scan: the
// same report as one built over all the inputs at once.
func mergeReport(whole, part *report.Report) {
	whole.Inputs = append(whole.Inputs, part.Inputs...)
	whole.Sessions = append(whole.Sessions, part.Sessions...)
	whole.Summary.Sessions += part.Summary.Sessions
	for sev, n := range part.Summary.Findings {
		whole.Summary.Findings[sev] += n
	}
}

// scanProgress is the progress bar on stderr (files done of all, bytes, MB/s,
// ETA): drawn only when stderr is a terminal (not TERM=dumb) and --quiet is not given; every
// method is a no-op on the zero value.
type scanProgress struct {
	p     *mpb.Progress
	bar   *mpb.Bar
	total int
	done  atomic.Int64
}

func newScanProgress(env Env, inputs []scan.Input, quiet bool) *scanProgress {
	f := env.stderrFile
	if quiet || f == nil || !term.IsTerminal(int(f.Fd())) || env.Getenv("TERM") == "dumb" || len(inputs) == 0 {
		return &scanProgress{}
	}
	var size int64
	for _, in := range inputs {
		size += in.Size
	}
	sp := &scanProgress{total: len(inputs)}
	start := time.Now()
	sp.p = mpb.New(mpb.WithOutput(f), mpb.WithWidth(30), mpb.WithRefreshRate(150*time.Millisecond))
	// One byte more than the files hold: the bar completes at stop, once every
	// file is counted done, not when the last byte is read.
	sp.bar = sp.p.AddBar(size+1,
		mpb.PrependDecorators(
			decor.Any(func(decor.Statistics) string {
				return fmt.Sprintf("%d/%d files", sp.done.Load(), sp.total)
			}, decor.WCSyncSpaceR),
		),
		mpb.AppendDecorators(
			decor.CountersKiloByte("% .1f / % .1f", decor.WCSyncSpace),
			decor.Any(func(s decor.Statistics) string {
				return fmt.Sprintf("%.1f MB/s", float64(s.Current)/1e6/max(time.Since(start).Seconds(), 1e-3))
			}, decor.WCSyncSpace),
			decor.OnComplete(decor.Name("  ETA "), "  done"),
			decor.OnComplete(decor.AverageETA(decor.ET_STYLE_GO), ""),
		),
	)
	return sp
}

// writer is where notes go while the bar is drawn: above it.
func (sp *scanProgress) writer(stderr io.Writer) io.Writer {
	if sp.p == nil {
		return stderr
	}
	return sp.p
}

// countingReader counts the bytes read from a file and moves the bar with them.
type countingReader struct {
	r   io.Reader
	bar *mpb.Bar
	n   int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.bar != nil && n > 0 {
		c.bar.IncrBy(n)
	}
	return n, err
}

func (sp *scanProgress) reader(r io.Reader) *countingReader {
	return &countingReader{r: r, bar: sp.bar}
}

// fileDone counts a file as done; its size on disk, less what was read of it,
// still moves the bar (a file that could not be read, or was read in part).
func (sp *scanProgress) fileDone(in scan.Input, read int64) {
	if sp.bar == nil {
		return
	}
	sp.done.Add(1)
	if rest := in.Size - read; rest > 0 {
		sp.bar.IncrInt64(rest)
	}
}

// stop completes the bar and waits until its last state is drawn.
func (sp *scanProgress) stop() {
	if sp.p == nil {
		return
	}
	sp.bar.SetTotal(-1, true)
	sp.p.Wait()
}
