package report

import (
	"io"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Format is a report format of the check command: how it writes a report, and
// what it needs of the analysis beyond findings (as a go/analysis analyzer lists
// what it Requires). A command asks the format for its requirements and runs
// them; the format's name never changes how the analysis runs.
type Format struct {
	name string
	// Requires is what the format shows beyond findings, computed by the
	// analysis (trace.Tracer); zero when it needs nothing more.
	Requires trace.Needs
	Write    func(w io.Writer, r *Report, opt WriteOptions) error
	// Stream, when set, writes the format session by session as sessions end
	// (through a spool), so that memory does not grow with the number of
	// sessions; Write is then only for callers that hold a whole report.
	Stream func(spool io.Writer, opt StreamOptions) Stream
	// MaxRunFrames, for a format written whole that shows every frame it is given
	// (HTML), caps the frames the analysis keeps over the run
	// (trace.Options.MaxRunFrames): every session is held until the report is
	// written. 0: no cap. MaxFrames caps those of one session
	// (trace.Options.MaxFrames) at what the format shows of one; 0: the
	// tracer's default.
	MaxRunFrames int
	MaxFrames    int
}

// WriteOptions are what a command decides about writing, whatever the format.
type WriteOptions struct {
	// Color turns on ANSI colour where a format uses it.
	Color bool
	// FailOn is the severity that fails the run (JUnit marks test cases with it).
	FailOn rule.Severity
	// Width is the width text output fits (0 = the format's default).
	Width int
	// MaxInfo is how many info findings the text format lists per session (0 = all).
	MaxInfo int
	// SARIF says what the SARIF log's paths are relative to, and its category.
	SARIF SARIFOptions
}

// formats are check's --format values, in the order the help lists them.
var formats = []Format{
	{name: "text", Write: func(w io.Writer, r *Report, opt WriteOptions) error {
		return WriteText(w, r, TextOptions{Color: opt.Color, Width: opt.Width, MaxInfo: opt.MaxInfo})
	}, Stream: NewTextStream},
	{name: "json", Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteJSON(w, r) }, Stream: NewJSONStream},
	{name: "jsonl", Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteJSONL(w, r) }, Stream: NewJSONLStream},
	{name: "markdown", Requires: MarkdownRequires, Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteMarkdown(w, r) }},
	{name: "html", Requires: HTMLRequires, MaxRunFrames: HTMLMaxRunFrames, MaxFrames: htmlTimelineMax, Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteHTML(w, r) }},
	{name: "sarif", Write: func(w io.Writer, r *Report, opt WriteOptions) error { return WriteSARIFWith(w, r, opt.SARIF) }},
	{name: "junit", Write: func(w io.Writer, r *Report, opt WriteOptions) error {
		return WriteJUnit(w, r, JUnitOptions{FailOn: opt.FailOn})
	}},
	{name: "lines", Write: func(w io.Writer, r *Report, _ WriteOptions) error { return WriteLines(w, r) }, Stream: NewLinesStream},
	{name: "codequality", Write: func(w io.Writer, r *Report, opt WriteOptions) error { return WriteCodeQuality(w, r, opt.SARIF.Root) }},
}

// FormatNames lists the formats' names, in order.
func FormatNames() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.name
	}
	return out
}

// LookupFormat finds a format by name.
func LookupFormat(name string) (Format, bool) {
	for _, f := range formats {
		if f.name == name {
			return f, true
		}
	}
	return Format{}, false
}
