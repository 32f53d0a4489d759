package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

func checkCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "analyse captures: rebuild each session's contract and report what broke it",
		ArgsUsage: "[FILE|DIR|-]...",
		Description: "Exit 0 when nothing is at or above --fail-on; 1 for findings at or above it, or for an input\n" +
			"read but not judged (no frame in it: never a clean pass; --fail-on never lets it through);\n" +
			"2 for a usage error or an input that could not be read (2 wins).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", HideDefault: true, Usage: "report format: text, json, jsonl (one finding a line, for a warehouse), markdown (a ticket attachment), html (one self-contained page: diagrams, a filterable timeline), sarif (SARIF 2.1.0, for code scanning), junit (a test suite per session, for CI), codequality (GitLab's Code Quality report) or lines (path:line: severity RULE message, one finding a line, for grep and editors). Left out: the format --output's extension names (.json, .jsonl or .ndjson, .md, .html, .sarif, .xml, .txt), else text on a terminal and lines when stdout is not one"},
			&cli.BoolFlag{Name: "redact", Usage: "replace the values in params and results with their type and length and mask secret-looking strings everywhere; methods, ids, capabilities, versions, error codes and messages, tool names and schemas stay"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the report to `FILE` instead of stdout"},
			failOnFlag(),
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour the text report: auto, always or never (NO_COLOR is honoured)"},
			minSeverityFlag(),
			&cli.IntFlag{Name: "max-info", Value: defaultMaxInfo, Usage: "the text report lists at most `N` info findings per session, after the errors and warnings, and counts the rest (0: all); the other formats list every finding"},
			&cli.BoolFlag{Name: "list-formats", Usage: "list the input formats and exit"},
			baselineFlag(),
		}, slices.Concat(ruleFlags(""), walkFlags(), sarifFlags(), readFlags())...),
		Action: func(_ context.Context, c *cli.Command) error { return runCheck(env, c) },
	}
}

func runCheck(env Env, c *cli.Command) error {
	if c.Bool("list-formats") {
		return listFormats(env.Stdout, terminalWidth(env))
	}
	out, err := parseReportOutput(env, c, "lines", checkFormats)
	if err != nil {
		return err
	}
	set, err := loadSettings(c)
	if err != nil {
		return err
	}
	failOn, fopt, selected := set.failOnLevel, set.frame, set.rules
	sarif, err := sarifOptions(c)
	if err != nil {
		return err
	}
	show, err := showOf(c, set)
	if err != nil {
		return err
	}
	if show == nil {
		show = &shown{}
	}
	maxInfo := c.Int("max-info")
	if maxInfo < 0 {
		return usageErr("mcpsleuth: --max-info must be 0 (all) or more, not %d", maxInfo)
	}
	names, walkErrs, err := expandInputs(env, c, c.Args().Slice())
	if err != nil {
		return err
	}
	if err := out.notAnInput(names); err != nil {
		return err
	}
	// The format says what it needs beyond findings; the analysis computes that
	// once, next to the rules (nil when nothing more is needed).
	// --redact asks for the values each session hides, to hide them wherever the
	// session prints them (echoed in an error message, a name).
	format, _ := report.LookupFormat(out.format)
	tracer := trace.Require(trace.Options{Needs: format.Requires.Union(trace.Needs{Redaction: c.Bool("redact")}), MaxRunFrames: format.MaxRunFrames, MaxFrames: format.MaxFrames})
	// failed are the inputs that could not be read or judged: every format
	// shows them (the JSON "errors", SARIF notifications, JUnit errors).
	var failed []report.InputError
	if format.Stream != nil {
		// Written session by session: memory stays bounded by the open sessions.
		spool, err := newSpool()
		if err != nil {
			return err
		}
		defer spool.Close()
		// Sessions are encoded and spooled on a goroutine of their own, beside the
		// analysis (a capture of a million sessions spends a third of its time there).
		stream := report.Pipelined(format.Stream(spool, report.StreamOptions{Version: Version(), Redact: c.Bool("redact"), Config: set.reportConfig(c.String("baseline")), Text: report.TextOptions{Color: out.colour, Width: out.width, MaxInfo: maxInfo}}))
		var streamErr error
		_, failed = analyseAll(env, names, streamRules(selected, fopt, tracer, show, stream, &streamErr))
		failed = append(walkErrs, failed...)
		if err := stream.Wait(); streamErr == nil {
			streamErr = err
		}
		if streamErr == nil {
			streamErr = spool.Flush()
		}
		if streamErr != nil {
			return &exitError{code: ExitUsage, msg: streamErr.Error()}
		}
		stream.Errors(failed)
		if err := out.write(env, func(w io.Writer) error { return stream.Finish(w, spool.file) }); err != nil {
			return err
		}
	} else {
		var results []*driver.InputResult
		results, failed = analyseAll(env, names, runRules(selected, fopt, tracer, show))
		failed = append(walkErrs, failed...)
		rep := report.BuildWith(Version(), results, report.Options{Rules: selected, Trace: tracer})
		rep.Errors = append(rep.Errors, failed...)
		rep.Config = set.reportConfig(c.String("baseline"))
		if c.Bool("redact") {
			report.Redact(rep)
		}
		if err := out.write(env, func(w io.Writer) error {
			return format.Write(w, rep, report.WriteOptions{Color: out.colour, FailOn: failOn, Width: out.width, MaxInfo: maxInfo, SARIF: sarif})
		}); err != nil {
			return err
		}
	}
	worst := show.worst // every finding not in the baseline, shown or not
	unjudged := notJudged(failed)
	for _, e := range unjudged {
		if c.Bool("redact") {
			masked := []report.InputError{e}
			report.RedactErrors(masked) // as the report names it and says why (a log's URLs may hold tokens)
			e = masked[0]
		}
		fmt.Fprintf(env.Stderr, "mcpsleuth: %s: %s\n", report.Safe(e.Input), report.Safe(e.Message))
	}
	switch {
	case unreadable(failed):
		return &exitError{code: ExitUsage}
	case failOn != 0 && worst >= failOn:
		return &exitError{code: ExitFindings}
	case failOn != 0 && len(unjudged) > 0:
		return &exitError{code: ExitFindings} // a log without frames is never a clean pass
	}
	return nil
}

// defaultMaxInfo is how many info findings a session lists in the text report
// unless --max-info says otherwise: errors and warnings are never buried.
const defaultMaxInfo = 5

// checkFormats are the --format values of check (DESIGN.md section 5).
var checkFormats = report.FormatNames()

// parseFailOn reads --fail-on; 0 means never.
func parseFailOn(s string) (rule.Severity, error) {
	if strings.EqualFold(s, "never") {
		return 0, nil
	}
	sev, ok := rule.ParseSeverity(s)
	if !ok {
		return 0, usageErr("mcpsleuth: --fail-on must be error, warning, info or never, not %q", s)
	}
	return sev, nil
}

// output is where and how a command writes: --format, --output, --color.
type output struct {
	format string
	path   string
	colour bool
	// width is the width text output fits (terminalWidth, or COLUMNS or 100 for a file).
	width int
	// writes names what is written, for errors ("" is "the report").
	writes string
}

// what names what the output writes.
func (o output) what() string {
	if o.writes == "" {
		return "the report"
	}
	return o.writes
}

// parseOutput reads the output flags; formats lists the --format values the command takes.
func parseOutput(env Env, c *cli.Command, formats ...string) (output, error) {
	o := output{format: strings.ToLower(c.String("format")), path: outputPath(c)}
	if !slices.Contains(formats, o.format) {
		return o, usageErr("mcpsleuth: --format must be %s, not %q", formatList(formats), c.String("format"))
	}
	var err error
	toStdout := o.path == "" || o.path == "-"
	o.colour, err = colorMode(env, c.String("color"), toStdout)
	o.width = outputColumns(env, toStdout)
	return o, err
}

// formatList names the formats: "text or json", "one of text, json, jsonl, sarif".
func formatList(formats []string) string {
	if len(formats) <= 2 {
		return strings.Join(formats, " or ")
	}
	return "one of " + strings.Join(formats, ", ")
}

// colorMode decides colour: never through the global color.NoColor.
func colorMode(env Env, mode string, toStdout bool) (bool, error) {
	switch strings.ToLower(mode) {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto", "":
		return toStdout && env.StdoutIsTerminal && env.Getenv("NO_COLOR") == "" && env.Getenv("TERM") != "dumb", nil
	}
	return false, usageErr("mcpsleuth: --color must be auto, always or never, not %q", mode)
}

// notAnInput refuses an --output that names one of the inputs: writing the
// report would destroy the capture it is about.
func (o output) notAnInput(names []string) error {
	if o.path == "" || o.path == "-" {
		return nil
	}
	out, err := os.Stat(o.path)
	if err != nil {
		return nil // not there yet: no input can be it
	}
	for _, name := range names {
		if name == "-" {
			continue
		}
		if in, err := os.Stat(name); err == nil && os.SameFile(in, out) {
			return usageErr("mcpsleuth: --output %s is one of the inputs: %s would replace the capture", report.Safe(o.path), o.what())
		}
	}
	return nil
}

// write writes to --output or stdout. A regular file is written beside its
// destination and renamed into place when complete, so a failed run never leaves
// half a report (or an emptied file) behind; a symbolic link's target is
// replaced that way and the link stays. A FIFO, a terminal or another character
// device (/dev/null, /dev/stdout) is written in place: a reader waits there, and
// the node is never replaced by a file. Anything else (a directory, a socket, a
// block device) is refused.
func (o output) write(env Env, write func(io.Writer) error) error {
	if o.path == "" || o.path == "-" {
		return write(env.Stdout)
	}
	fail := func(err error) error {
		return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: %s: cannot write %s: %v", report.Safe(o.path), o.what(), unwrapPath(err))}
	}
	path, inPlace, err := destination(o.path)
	if err != nil {
		return fail(err)
	}
	if inPlace {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return fail(err)
		}
		w := &writeErrors{w: f}
		if err := write(w); err != nil {
			f.Close()
			return w.explain(err, fail)
		}
		if err := f.Close(); err != nil {
			return fail(err)
		}
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.partial")
	if err != nil {
		return fail(err)
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	w := &writeErrors{w: f}
	if err := write(w); err != nil {
		f.Close()
		return w.explain(err, fail)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fail(err)
	}
	if err := f.Close(); err != nil {
		return fail(err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fail(err)
	}
	return nil
}

// writeErrors remembers the first error of the writer a report is written to,
// so that a failed write (a full disk, /dev/full) is said as one ("cannot write
// the report: no space left on device"), apart from the other errors of making it.
type writeErrors struct {
	w   io.Writer
	err error
}

func (e *writeErrors) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

// explain is the error of a report whose writing failed with err.
func (e *writeErrors) explain(err error, fail func(error) error) error {
	if e.err != nil {
		return fail(e.err)
	}
	return &exitError{code: ExitUsage, msg: err.Error()}
}

// destination is where a report named path is written: the file itself, or the
// target of the symbolic link it is; inPlace when that is a FIFO or a character
// device (written as it is, never replaced). A directory, a socket, a block
// device and a link to nothing are refused.
func destination(path string) (string, bool, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return path, false, nil // a new file
	}
	if info.Mode()&os.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", false, fmt.Errorf("a symbolic link to nothing (%w)", err)
		}
		path = target
		if info, err = os.Stat(path); err != nil {
			return "", false, err
		}
	}
	mode := info.Mode()
	switch {
	case mode.IsRegular():
		return path, false, nil
	case mode&os.ModeNamedPipe != 0, mode&os.ModeCharDevice != 0:
		return path, true, nil
	case mode.IsDir():
		return "", false, errors.New("a directory: name a file")
	}
	return "", false, errors.New("not a regular file, a FIFO or a terminal")
}

// listFormats prints the input formats: the name --input-format takes, then
// what it is and whether it holds messages at all, wrapped to width under its
// column.
func listFormats(w io.Writer, width int) error {
	var b strings.Builder
	row := func(name, what string) { b.WriteString(report.WrapColumns(fmt.Sprintf("%-20s ", name), what, width)) }
	row("auto", "detected from the content (the default); gzip and zstd are detected by their magic bytes")
	for _, f := range frame.About() {
		what := f.What
		switch {
		case f.Lossy:
			what += " [lossy: cannot be judged]"
		case f.Document:
			what += " [one JSON document]"
		}
		row(f.Name, what)
	}
	b.WriteString("\nNot read yet (no decoder of their own; --input-format does not take them):\n")
	for _, f := range frame.NotReadYet() {
		row(f.Name, f.What+"; "+f.Instead)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
