package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// TextOptions control the human-readable report.
type TextOptions struct {
	// Color turns on ANSI colour (the CLI decides: --color, NO_COLOR, a terminal).
	Color bool
	// Width is the terminal width the findings table wraps to (0 = 120).
	Width int
}

// Palette colours report text; a disabled palette returns text unchanged.
type Palette struct {
	err, warn, info, dim, bold *color.Color
}

// NewPalette builds a palette; colour is set per instance, never through the
// global color.NoColor.
func NewPalette(enabled bool) Palette {
	p := Palette{
		err:  color.New(color.FgRed, color.Bold),
		warn: color.New(color.FgYellow, color.Bold),
		info: color.New(color.FgCyan),
		dim:  color.New(color.Faint),
		bold: color.New(color.Bold),
	}
	for _, c := range []*color.Color{p.err, p.warn, p.info, p.dim, p.bold} {
		if enabled {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return p
}

// Severity colours a severity name.
func (p Palette) Severity(s string) string {
	switch s {
	case "error":
		return p.err.Sprint(s)
	case "warning":
		return p.warn.Sprint(s)
	case "info":
		return p.info.Sprint(s)
	}
	return s
}

// Warn renders something that went wrong but is not an error.
func (p Palette) Warn(s string) string { return p.warn.Sprint(s) }

// Bad renders a negative verdict.
func (p Palette) Bad(s string) string { return p.err.Sprint(s) }

// Dim renders secondary text.
func (p Palette) Dim(s string) string { return p.dim.Sprint(s) }

// Bold renders headings.
func (p Palette) Bold(s string) string { return p.bold.Sprint(s) }

// WriteText writes the report for people: per input a line with its counts, per
// session the contract, then the findings as a table, then the notes; a summary
// line at the end.
func WriteText(w io.Writer, r *Report, opt TextOptions) error {
	pal := NewPalette(opt.Color)
	var b bytes.Buffer
	writeTextInputs(&b, r.Inputs, pal)
	for i := range r.Sessions {
		if err := writeTextSession(&b, &r.Sessions[i], pal, opt.Width); err != nil {
			return err
		}
	}
	writeTextSummary(&b, r.Summary, pal)
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
	if err := writeTextSession(&b, s, NewPalette(opt.Text.Color), opt.Text.Width); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func finishText(w io.Writer, st *spoolStream, sessions func(io.Writer, string, string) error) error {
	pal := NewPalette(st.opt.Text.Color)
	var head, tail bytes.Buffer
	writeTextInputs(&head, st.inputs, pal)
	writeTextSummary(&tail, st.summary, pal)
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
func writeTextInputs(b *bytes.Buffer, inputs []Input, pal Palette) {
	for _, in := range inputs {
		fmt.Fprintf(b, "%s  %s\n", pal.Bold(Safe(in.Name)), pal.Dim(fmt.Sprintf("(%s, %s, %s, %s rejected, %s of context)",
			in.Format, count(in.Lines, "line"), count(in.Frames, "frame"), fmt.Sprint(in.Rejected), count(in.Context, "line"))))
		if in.Lossy != "" {
			fmt.Fprintf(b, "  %s\n", pal.Warn(Safe(in.Lossy)))
		}
	}
}

// writeTextSession writes one session: a blank line, its contract, its findings
// and notes. width is the terminal width the findings table wraps to (0 = 120).
func writeTextSession(b *bytes.Buffer, s *Session, pal Palette, width int) error {
	if width <= 0 {
		width = 120
	}
	b.WriteString("\n")
	writeSessionHeader(b, *s, pal)
	if len(s.Findings) == 0 {
		fmt.Fprintf(b, "  %s\n", pal.Dim("no findings"))
	} else if err := writeFindingsTable(b, s.Findings, pal, width); err != nil {
		return err
	}
	for _, n := range s.Notes {
		fmt.Fprintf(b, "  %s %s\n", pal.Dim("note:"), Safe(n))
	}
	return nil
}

// writeTextSummary writes the summary line.
func writeTextSummary(b *bytes.Buffer, sum Summary, pal Palette) {
	f := sum.Findings
	fmt.Fprintf(b, "\n%s, %s, %s, %s\n", count(sum.Sessions, "session"),
		pal.Severity(count(f["error"], "error")), pal.Severity(count(f["warning"], "warning")), count(f["info"], "info finding"))
}

func writeSessionHeader(b *bytes.Buffer, s Session, pal Palette) {
	where := fmt.Sprintf("lines %d-%d", s.FirstLine, s.LastLine)
	if s.StreamKey != "" {
		where += ", stream " + Safe(s.StreamKey)
	}
	fmt.Fprintf(b, "%s  %s  %s era  %s\n", pal.Bold(fmt.Sprintf("Session %d", s.Index)), Safe(s.Input), s.Era, pal.Dim(where))
	fmt.Fprintf(b, "  client    %s  capabilities %s\n", peerName(s.Client), capsText(s.Client.Capabilities))
	fmt.Fprintf(b, "  server    %s  capabilities %s\n", peerName(s.Server), capsText(s.Server.Capabilities))
	v := s.ProtocolVersion
	switch s.Era {
	case "modern":
		fmt.Fprintf(b, "  revision  %s (per request _meta)\n", orDash(v.Requested))
	default:
		fmt.Fprintf(b, "  revision  requested %s, answered %s, negotiated %s (%s)\n", orDash(v.Requested), orDash(v.Answered), orDash(v.Negotiated), v.Verdict)
	}
	fmt.Fprintf(b, "  frames    %d: %s, %s, %s", s.Frames, count(s.Requests, "request"), count(s.Notifications, "notification"), count(s.Responses, "response"))
	if s.Invalid > 0 {
		fmt.Fprintf(b, ", %d invalid", s.Invalid)
	}
	b.WriteString("\n")
}

func writeFindingsTable(b *bytes.Buffer, findings []Finding, pal Palette, width int) error {
	// LINE, RULE (name), SEVERITY take about 40 columns with the borders.
	messageWidth := max(width-44, 40)
	table := tablewriter.NewTable(b,
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithColumnWidths(tw.NewMapper[int, int]().Set(3, messageWidth)),
	)
	table.Header("LINE", "RULE", "SEVERITY", "MESSAGE")
	var hints []Finding
	hinted := map[string]bool{}
	for _, f := range findings {
		if err := table.Append(lineCell(f), f.Rule+"\n"+pal.Dim(f.Name), pal.Severity(f.Severity), Safe(f.Message)); err != nil {
			return fmt.Errorf("mcpsleuth: building the findings table: %w", err)
		}
		if key := f.Rule + "\x00" + f.hint; f.hint != "" && f.severity >= rule.SeverityWarning && !hinted[key] {
			hinted[key] = true
			hints = append(hints, f)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("mcpsleuth: rendering the findings table: %w", err)
	}
	for _, f := range hints {
		fmt.Fprintf(b, "  %s %s\n", pal.Bold("what to do, "+f.Rule+":"), Safe(f.hint))
	}
	return nil
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

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
