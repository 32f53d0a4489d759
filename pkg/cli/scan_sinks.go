package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
)

// scanSink is one output of a scan: --format's (to stdout or --output's FILE),
// or one more named FORMAT=FILE. A stream format (json, jsonl, lines) spools
// each input's sessions as it is handed over; sarif and junit are built whole;
// text is the summary, made from the analysis results.
type scanSink struct {
	out    output
	format report.Format

	stream    report.Stream
	spool     *os.File
	bufSpool  *bufio.Writer
	streamErr error
	whole     *report.Report
}

// extraOutputs reads the --output values FORMAT=FILE: the outputs written
// beside --format's, each to its file. A value whose part before "=" is not a
// format of scan is a file name (the --format's output).
func extraOutputs(env Env, c *cli.Command) ([]output, error) {
	var extra []output
	for _, v := range c.StringSlice("output") {
		format, path, ok := formatPrefixed(v)
		if !ok {
			continue
		}
		if path == "" || path == "-" {
			return nil, usageErr("mcpsleuth: --output %s: name the file to write %s to (stdout carries --format's output)", report.Safe(v), format)
		}
		if named := formatOfOutput(path, scanFormats); named != "" && !formatFitsOutput(format, named) {
			return nil, usageErr("mcpsleuth: --output %s: %s disagrees with the file's name, which names %s", report.Safe(v), format, named)
		}
		extra = append(extra, output{format: format, path: path, width: outputColumns(env, false)})
	}
	var paths []string
	for _, v := range c.StringSlice("output") {
		if _, path, ok := formatPrefixed(v); ok {
			paths = append(paths, path)
		} else if v != "" && v != "-" {
			paths = append(paths, v)
		}
	}
	for i, p := range paths {
		if slices.Contains(paths[:i], p) {
			return nil, usageErr("mcpsleuth: --output %s is named twice: each output needs a file of its own", report.Safe(p))
		}
	}
	return extra, nil
}

// formatPrefixed splits an --output value FORMAT=FILE (ok only when FORMAT is
// one of scan's formats).
func formatPrefixed(v string) (format, path string, ok bool) {
	format, path, found := strings.Cut(v, "=")
	if !found || !slices.Contains(scanFormats, strings.ToLower(format)) {
		return "", "", false
	}
	return strings.ToLower(format), path, true
}

// outputPath is --output's FILE for the --format's output: the value that is
// not FORMAT=FILE (scan), or the flag's one value (the other commands).
func outputPath(c *cli.Command) string {
	if p := c.String("output"); p != "" {
		return p
	}
	for _, v := range c.StringSlice("output") {
		if _, _, ok := formatPrefixed(v); !ok {
			return v
		}
	}
	return ""
}

// openSinks sets up what each output writes through.
func (run *scanRun) openSinks() error {
	for _, sk := range run.sinks {
		switch {
		case sk.out.format == "text":
			// The summary, from the analysis results: no report is written.
		case sk.format.Stream != nil:
			spool, err := os.CreateTemp("", "mcpsleuth-scan-*")
			if err != nil {
				return &exitError{code: ExitUsage, msg: fmt.Sprintf("mcpsleuth: cannot create a temporary file for the report: %v", unwrapPath(err))}
			}
			sk.spool = spool
			sk.bufSpool = bufio.NewWriterSize(spool, 256<<10)
			sk.stream = sk.format.Stream(sk.bufSpool, report.StreamOptions{Version: Version(), Redact: run.redact, Config: run.config})
		default:
			sk.whole = report.BuildWith(Version(), nil, report.Options{Rules: run.selected})
			sk.whole.Config = run.config
		}
	}
	return nil
}

func (run *scanRun) closeSinks() {
	for _, sk := range run.sinks {
		if sk.spool != nil {
			sk.spool.Close()
			os.Remove(sk.spool.Name())
		}
	}
}

// present converts an input's sessions for the summary and the outputs: by the
// job that read the input, or, when a baseline or a minimum severity filters
// the findings (in input order: a baseline absorbs each fingerprint as many
// times as it holds it), by emit. The summary counts the sessions as the first
// stream shows them (redacted as it redacts), else as the whole report does.
func (run *scanRun) present(res *driver.InputResult) scanned {
	got := scanned{res: res, prepared: make([][]*report.Prepared, len(run.sinks)), parts: make([]*report.Report, len(run.sinks))}
	var part *report.Report // the first output's written whole
	for k, sk := range run.sinks {
		switch {
		case sk.whole != nil:
			// Each its own: a whole report is redacted in place when written.
			got.parts[k] = report.BuildWith(Version(), []*driver.InputResult{res}, report.Options{Rules: run.selected})
			if part == nil {
				part = got.parts[k]
			}
		case sk.stream != nil:
			// Each session is converted and encoded here, by the job: only its
			// place in the output waits for the files before it (emit).
			prepared := make([]*report.Prepared, len(res.Sessions))
			for j, sr := range res.Sessions {
				p, err := sk.stream.Prepare(sr, nil)
				if err != nil {
					got.prepareErr = err
					break
				}
				prepared[j] = p
			}
			got.prepared[k] = prepared
			if got.sessions == nil {
				got.sessions = make([]report.Session, len(res.Sessions))
				for j, p := range prepared {
					if p != nil {
						got.sessions[j] = p.Session
					}
				}
			}
		}
	}
	switch {
	case got.sessions != nil:
	case part != nil:
		got.sessions = part.Sessions
	default:
		got.sessions = make([]report.Session, len(res.Sessions))
		for j, sr := range res.Sessions {
			got.sessions[j] = report.SessionOf(sr, nil)
			if run.redact {
				report.RedactSession(&got.sessions[j]) // the names the summary shows
			}
		}
	}
	return got
}

// emitToSinks hands an input's presented sessions to every output, in input
// order.
func (run *scanRun) emitToSinks(got scanned) {
	for k, sk := range run.sinks {
		switch {
		case sk.stream != nil:
			if got.prepareErr != nil && sk.streamErr == nil {
				sk.streamErr = got.prepareErr
			}
			for _, p := range got.prepared[k] {
				if p == nil {
					break
				}
				if err := sk.stream.Add(p); err != nil && sk.streamErr == nil {
					sk.streamErr = err
				}
			}
			sk.stream.Input(got.res)
		case sk.whole != nil:
			mergeReport(sk.whole, got.parts[k])
		}
	}
}

// write writes the outputs that want says (every one when nil).
func (run *scanRun) write(want func(*scanSink) bool) error {
	for _, sk := range run.sinks {
		if want != nil && !want(sk) {
			continue
		}
		if err := run.writeSink(sk); err != nil {
			return err
		}
	}
	return nil
}

func (run *scanRun) writeSink(sk *scanSink) error {
	if sk.bufSpool != nil && sk.streamErr == nil {
		sk.streamErr = sk.bufSpool.Flush()
	}
	if sk.streamErr != nil {
		return &exitError{code: ExitUsage, msg: sk.streamErr.Error()}
	}
	return sk.out.write(run.env, func(w io.Writer) error {
		switch {
		case sk.stream != nil:
			sk.stream.Errors(run.failed)
			return sk.stream.Finish(w, sk.spool)
		case sk.whole != nil:
			sk.whole.Errors = append(sk.whole.Errors, run.failed...)
			if run.redact {
				report.Redact(sk.whole)
			}
			return sk.format.Write(w, sk.whole, report.WriteOptions{Color: sk.out.colour, FailOn: run.failOn, SARIF: run.sarif})
		}
		return report.WriteScanSummary(w, run.summary, report.ScanTextOptions{Color: sk.out.colour, Width: sk.out.width})
	})
}
