package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/fatih/color"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// TextOptions control the human-readable report.
type TextOptions struct {
	// Color turns on ANSI colour (the CLI decides: --color, NO_COLOR, a terminal).
	Color bool
	// Width is the terminal width the findings table wraps to (0 = 120).
	Width int
	// MaxInfo is how many info findings a session lists at most; the rest are
	// counted in a line under the table (0 = all).
	MaxInfo int
}

// palette colours report text; a disabled palette returns text unchanged.
type palette struct {
	errColor, warnColor, infoColor, dimColor, boldColor *color.Color
}

// newPalette builds a palette; colour is set per instance, never through the
// global color.NoColor.
func newPalette(enabled bool) palette {
	p := palette{
		errColor:  color.New(color.FgRed, color.Bold),
		warnColor: color.New(color.FgYellow, color.Bold),
		infoColor: color.New(color.FgCyan),
		dimColor:  color.New(color.Faint),
		boldColor: color.New(color.Bold),
	}
	for _, c := range []*color.Color{p.errColor, p.warnColor, p.infoColor, p.dimColor, p.boldColor} {
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

// severity colours a severity name.
func (p palette) severity(s string) string {
	switch s {
	case "error":
		return p.errColor.Sprint(s)
	case "warning":
		return p.warnColor.Sprint(s)
	case "info":
		return p.infoColor.Sprint(s)
	}
	return s
}

// warn renders something that went wrong but is not an error.
func (p palette) warn(s string) string { return p.warnColor.Sprint(s) }

// bad renders a negative verdict.
func (p palette) bad(s string) string { return p.errColor.Sprint(s) }

// dim renders secondary text.
func (p palette) dim(s string) string { return p.dimColor.Sprint(s) }

// bold renders headings.
func (p palette) bold(s string) string { return p.boldColor.Sprint(s) }

// WriteText writes the report for people: per input a line with its counts, per
// session the contract, then the findings as a table, then the notes; a summary
// line at the end.
func WriteText(w io.Writer, r *Report, opt TextOptions) error {
	pal := newPalette(opt.Color)
	var b bytes.Buffer
	writeTextInputs(&b, r.Inputs, pal, textWidthOf(opt))
	for i := range r.Sessions {
		if err := writeTextSession(&b, &r.Sessions[i], pal, opt); err != nil {
			return err
		}
	}
	writeTextSummary(&b, r.Summary, r.Errors, pal, textWidthOf(opt))
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the report: %w", err)
	}
	return nil
}

// NewTextStream writes the text report through a spool, session by session as
// sessions end: the report is byte for byte what WriteText writes for the same
// report, sessions in the same order, while memory holds one session at a time
// (the counts of the inputs, which the report writes first, are known only at
// their end).
func NewTextStream(spool io.Writer, opt StreamOptions) Stream {
	return newSpoolStream(spool, opt, encodeTextSession, finishText)
}

func encodeTextSession(s *Session, opt StreamOptions) ([]byte, error) {
	var b bytes.Buffer
	if err := writeTextSession(&b, s, newPalette(opt.Text.Color), opt.Text); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func finishText(w io.Writer, st *spoolStream, sessions func(io.Writer, string, string) error) error {
	pal := newPalette(st.opt.Text.Color)
	var head, tail bytes.Buffer
	writeTextInputs(&head, st.inputs, pal, textWidthOf(st.opt.Text))
	writeTextSummary(&tail, st.summary, st.errors, pal, textWidthOf(st.opt.Text))
	if _, err := w.Write(head.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the report: %w", err)
	}
	if err := sessions(w, "", ""); err != nil {
		return fmt.Errorf("mcpsleuth: writing the report: %w", err)
	}
	if _, err := w.Write(tail.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the report: %w", err)
	}
	return nil
}

// writeTextInputs writes a line per input: its format and counts, and why it
// could not be judged when it could not.
func writeTextInputs(b *bytes.Buffer, inputs []Input, pal palette, width int) {
	for _, in := range inputs {
		unit := "line"
		if in.Document {
			unit = "entry"
		}
		// The accounting of what was read: blank lines and context lines that look
		// like frames are named when there are any (JSON has every count).
		extra := ""
		if in.FrameLike > 0 {
			if in.FrameLike == 1 {
				extra += ", 1 of which looks like a frame"
			} else {
				extra += fmt.Sprintf(", %d of which look like frames", in.FrameLike)
			}
		}
		if in.Blank > 0 {
			extra += fmt.Sprintf(", %d blank", in.Blank)
		}
		counts := pal.dim(fmt.Sprintf("(%s, %s, %s, %s rejected, %s of context%s)",
			in.Format, countOf(in.Lines, unit), quote.Count(in.Frames, "frame"), fmt.Sprint(in.Rejected), countOf(in.Context, unit), extra))
		for _, l := range packParts([]string{pal.bold(Safe(in.Name)), counts}, "  ", width, "  ") {
			b.WriteString(l + "\n")
		}
		if in.Lossy != "" {
			writeWrapped(b, "  "+pal.warn(Safe(in.Lossy)), width, "    ")
		}
	}
}

// countOf counts lines or entries ("1 entry", "8 entries").
func countOf(n int, unit string) string {
	if unit == "entry" && n != 1 {
		return fmt.Sprintf("%d entries", n)
	}
	return quote.Count(n, unit)
}

// textWidthOf is the width the text report fits (120 when unset).
func textWidthOf(opt TextOptions) int {
	if opt.Width <= 0 {
		return 120
	}
	return opt.Width
}

// writeTextSession writes one session: a blank line, its contract, its findings
// (errors first, at most opt.MaxInfo info rows) and notes.
func writeTextSession(b *bytes.Buffer, s *Session, pal palette, opt TextOptions) error {
	width := textWidthOf(opt)
	b.WriteString("\n")
	var header bytes.Buffer
	writeSessionHeader(&header, *s, pal, width)
	for i, line := range strings.Split(strings.TrimSuffix(header.String(), "\n"), "\n") {
		indent := strings.Repeat(" ", 12) // under the values of "  client    "
		if i == 0 {
			indent = "  "
		}
		writeWrapped(b, line, width, indent)
	}
	shown, hidden := textRows(s.Findings, opt.MaxInfo)
	if len(shown) == 0 && hidden == 0 {
		fmt.Fprintf(b, "  %s\n", pal.dim("no findings"))
	} else if err := writeFindingsTable(b, shown, hidden, pal, width); err != nil {
		return err
	}
	for _, n := range s.Notes {
		writeWrapped(b, "  "+pal.dim("note:")+" "+Safe(n), width, "        ")
	}
	return nil
}

// writeTextSummary writes the inputs that could not be read or judged, each
// with why (a report written to a file keeps what stderr said), and the summary
// line.
func writeTextSummary(b *bytes.Buffer, sum Summary, errs []InputError, pal palette, width int) {
	f := sum.Findings
	b.WriteString("\n")
	if len(errs) > 0 {
		b.WriteString(pal.bold("Not read or not judged") + "\n")
		for _, e := range errs {
			writeWrapped(b, "  "+Safe(e.Input)+": "+Safe(e.Message), width, "    ")
		}
		b.WriteString("\n")
	}
	line := fmt.Sprintf("%s, %s, %s, %s", quote.Count(sum.Sessions, "session"),
		pal.severity(quote.Count(f["error"], "error")), pal.severity(quote.Count(f["warning"], "warning")), quote.Count(f["info"], "info finding"))
	if n := failedInputs(errs); n > 0 {
		line += ", " + pal.bad(quote.Count(n, "input")+" not read or not judged")
	}
	writeWrapped(b, line, width, "  ")
}

// writeSessionHeader writes a session's contract; its first line (session,
// input, era, where) is laid out to width whole parts to a line.
func writeSessionHeader(b *bytes.Buffer, s Session, pal palette, width int) {
	where := fmt.Sprintf("lines %d-%d", s.FirstLine, s.LastLine)
	if s.StreamKey != "" {
		where += ", stream " + Safe(s.StreamKey)
	}
	for _, l := range packParts([]string{pal.bold(fmt.Sprintf("Session %d", s.Index)), Safe(s.Input), s.Era + " era", pal.dim(where)}, "  ", width, "  ") {
		b.WriteString(l + "\n")
	}
	fmt.Fprintf(b, "  client    %s  capabilities %s\n", peerName(s.Client), capsText(s.Client.Capabilities))
	fmt.Fprintf(b, "  server    %s  capabilities %s\n", peerName(s.Server), capsText(s.Server.Capabilities))
	v := s.ProtocolVersion
	switch s.Era {
	case "modern":
		fmt.Fprintf(b, "  revision  %s (per request _meta)\n", orDash(v.Requested))
	default:
		fmt.Fprintf(b, "  revision  requested %s, answered %s, %s\n", orDash(v.Requested), orDash(v.Answered), negotiatedText(s))
	}
	fmt.Fprintf(b, "  frames    %d: %s, %s, %s", s.Frames, quote.Count(s.Requests, "request"), quote.Count(s.Notifications, "notification"), quote.Count(s.Responses, "response"))
	if s.Invalid > 0 {
		fmt.Fprintf(b, ", %d invalid", s.Invalid)
	}
	b.WriteString("\n")
}

// textRows orders a session's findings for people, errors first, then
// warnings, then info, each by line; it keeps at most maxInfo info findings
// (0: all) and says how many it left out.
func textRows(findings []Finding, maxInfo int) (shown []Finding, hidden int) {
	shown = append([]Finding(nil), findings...)
	sort.SliceStable(shown, func(i, j int) bool {
		if shown[i].severity != shown[j].severity {
			return shown[i].severity > shown[j].severity
		}
		return shown[i].Line < shown[j].Line
	})
	if maxInfo <= 0 {
		return shown, 0
	}
	kept, info := shown[:0], 0
	for _, f := range shown {
		if f.severity <= rule.SeverityInfo {
			if info++; info > maxInfo {
				hidden++
				continue
			}
		}
		kept = append(kept, f)
	}
	return kept, hidden
}

// negotiatedText says what a legacy session negotiated: nothing when
// initialize was never answered (the frames are then judged by the revision
// the client requested).
func negotiatedText(s Session) string {
	v := s.ProtocolVersion
	if s.hasContract() && v.Answered == "" && v.Negotiated != "" {
		return fmt.Sprintf("negotiated nothing (%s; judged by %s, the revision requested)", v.Verdict, Safe(v.Negotiated))
	}
	return fmt.Sprintf("negotiated %s (%s)", orDash(v.Negotiated), v.Verdict)
}

// wideTable is the narrowest width at which the findings table gives the rule
// a column of its own (LINE, RULE, SEVERITY, MESSAGE): the message keeps about
// 45 columns beside the longest rule name. Narrower, the rule heads its
// finding's cell (LINE, SEVERITY, FINDING).
const wideTable = 100

// writeFindingsTable writes the findings as a table that fits width, the count
// of the info findings left out, and what to do about each rule of the errors
// and warnings.
func writeFindingsTable(b *bytes.Buffer, findings []Finding, hidden int, pal palette, width int) error {
	var table textTable
	if width >= wideTable {
		table.header = []string{"LINE", "RULE", "SEVERITY", "MESSAGE"}
	} else {
		table.header = []string{"LINE", "SEVERITY", "FINDING"}
	}
	var hints []Finding
	hinted := map[string]bool{}
	for _, f := range findings {
		if width >= wideTable {
			table.append(lineCell(f), f.Rule+"\n"+pal.dim(f.Name), pal.severity(f.Severity), Safe(f.Message))
		} else {
			table.append(lineCell(f), pal.severity(f.Severity), f.Rule+" "+pal.dim(f.Name)+"\n"+Safe(f.Message))
		}
		if key := f.Rule + "\x00" + f.hint; f.hint != "" && f.severity >= rule.SeverityWarning && !hinted[key] {
			hinted[key] = true
			hints = append(hints, f)
		}
	}
	if len(findings) > 0 {
		if err := table.render(b, width); err != nil {
			return fmt.Errorf("mcpsleuth: the findings table: %w", err)
		}
	}
	if hidden > 0 {
		writeWrapped(b, "  "+pal.dim(fmt.Sprintf("and %s not listed (--max-info 0 lists them all)", quote.Count(hidden, "more info finding"))), width, "    ")
	}
	for _, f := range hints {
		writeWrapped(b, "  "+pal.bold("what to do, "+f.Rule+":")+" "+Safe(f.hint), width, "    ")
	}
	return nil
}

// writeWrapped writes one line wrapped to width, its continuation lines
// starting with indent.
func writeWrapped(b *bytes.Buffer, line string, width int, indent string) {
	for _, l := range wrapLine(line, width, indent) {
		b.WriteString(l)
		b.WriteString("\n")
	}
}

func peerName(p Peer) string {
	if p.Name == "" && p.Version == "" {
		return "(unknown)"
	}
	return strings.TrimSpace(Safe(p.Name) + " " + Safe(p.Version))
}

func capsText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "(not declared in the capture)"
	}
	return Safe(quote.JSON(string(raw), 160))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return Safe(s)
}
