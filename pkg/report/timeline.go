package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// TimelineRequires is what the timeline needs of the analysis: every frame's
// summary, with the context lines among them.
var TimelineRequires = trace.Needs{Frames: true, Context: true}

// TimelineOptions configure the timeline.
type TimelineOptions struct {
	Color bool
	// Filtered is set when the tracer kept only some frames (--around,
	// --method): sessions with nothing to show are skipped, and findings on frames
	// not shown are not listed.
	Filtered bool
	// Width is the width the timeline fits (0 = 120): a frame's description
	// column narrows, and longer lines are wrapped at word boundaries.
	Width int
}

// width is the width the timeline fits.
func (o TimelineOptions) width() int {
	if o.Width <= 0 {
		return 120
	}
	return o.Width
}

// The columns of a timeline line.
const (
	tlLine   = 6  // line number, right-aligned
	tlTime   = 12 // 15:04:05.000
	tlDesc   = 52 // id, method, subject
	tlSize   = 7  // 1204B
	tlIndent = tlLine + 2 + tlTime + 2
	// tlLead is the width of what comes before a frame's description: line,
	// time, direction and kind.
	tlLead = tlIndent + 4 + 2 + 3 + 2
	// tlLatency is the room kept for a response's latency ("  12m05s").
	tlLatency = 8
	// tlMinDesc is the narrowest the description column gets.
	tlMinDesc = 16
)

// writeTimelineText writes text wrapped to width, the lines it adds starting
// with indent, each line through paint (a palette colour).
func writeTimelineText(b *strings.Builder, text string, width int, indent string, paint func(string) string) {
	for _, l := range wrapLine(text, width, indent) {
		b.WriteString(paint(l))
		b.WriteString("\n")
	}
}

func plain(s string) string { return s }

// WriteTimelinePreamble writes the context lines seen before any frame.
func WriteTimelinePreamble(w io.Writer, o *trace.Tracer, opt TimelineOptions) error {
	if len(o.Preamble) == 0 && o.PreambleOmitted == 0 {
		return nil
	}
	pal := newPalette(opt.Color)
	var b strings.Builder
	width := opt.width()
	for _, fs := range o.Preamble {
		writeContextLine(&b, fs, pal, width)
	}
	if o.PreambleOmitted > 0 {
		writeTimelineText(&b, fmt.Sprintf("%*s… %s of context before the first frame not shown", tlLine, "", quote.Count(o.PreambleOmitted, "more line")), width, strings.Repeat(" ", tlLine+2), pal.dim)
	}
	b.WriteString("\n")
	return writeString(w, b.String())
}

// WriteTimelineSession writes one session as the seed articles print a frame log:
//
//	8  14:22:01.007  s->c  ntf         notifications/resources/list_changed   65B
//	                 ————  (no reaction: ...)
//
// one line per frame (time, direction, kind, id, method, size, and for a response
// the latency since its request), the findings under the frame they are anchored
// at, what did not happen after a frame ((no response), (no reaction)) under it,
// and the context lines (stderr) dimmed.
func WriteTimelineSession(w io.Writer, s Session, opt TimelineOptions) error {
	t := s.Trace
	if t == nil {
		return nil
	}
	if opt.Filtered && len(t.Frames) == 0 {
		return nil
	}
	pal := newPalette(opt.Color)
	width := opt.width()
	var b strings.Builder
	header := []string{fmt.Sprintf("── session %d", s.Index), Safe(peerLabel(s.Client)) + " ⇄ " + Safe(peerLabel(s.Server)),
		timelineRevision(s), fmt.Sprintf("lines %d-%d", s.FirstLine, s.LastLine)}
	if s.StreamKey != "" {
		header = append(header, "stream "+Safe(s.StreamKey))
	}
	header[len(header)-1] += " ──"
	for _, l := range packParts(header, "  ", width, "   ") {
		b.WriteString(pal.bold(l) + "\n")
	}
	attached := attachFindings(s.Findings)
	lastDate, prevSeq := "", 0
	for _, fs := range t.Frames {
		if fs.Context || fs.Exchange != nil {
			if fs.Context {
				writeContextLine(&b, fs, pal, width)
			} else {
				writeExchangeLine(&b, fs, width)
			}
			if fs.Exchange != nil { // the findings about an exchange without a message go under it
				for _, f := range attached.take(0, fs.Line) {
					writeFindingLine(&b, f, pal, width)
				}
			}
			continue
		}
		if gap := fs.Seq - prevSeq - 1; gap > 0 {
			fmt.Fprintf(&b, "%s\n", pal.dim(fmt.Sprintf("%*s⋮  %s not shown", tlIndent, "", quote.Count(gap, "frame"))))
		}
		prevSeq = fs.Seq
		if !fs.Time.IsZero() {
			if d := fs.Time.Format("2006-01-02"); d != lastDate {
				fmt.Fprintf(&b, "%s\n", pal.dim(fmt.Sprintf("%*s── %s", tlLine+2, "", d)))
				lastDate = d
			}
		}
		writeFrameLine(&b, fs, width)
		writeMarkers(&b, fs, pal, width)
		for _, f := range attached.take(fs.Seq, fs.Line) {
			writeFindingLine(&b, f, pal, width)
		}
	}
	if t.Capped {
		writeTimelineText(&b, fmt.Sprintf("%*s… %s from line %d on not shown: the timeline keeps at most %s of a session (use --around or --method)", tlIndent, "", omittedEntries(t), t.CappedAt, quote.Count(len(t.Frames), "frame")), width, strings.Repeat(" ", tlIndent+2), pal.dim)
	} else if gap := t.Total - prevSeq; gap > 0 && prevSeq > 0 {
		fmt.Fprintf(&b, "%s\n", pal.dim(fmt.Sprintf("%*s⋮  %s not shown", tlIndent, "", quote.Count(gap, "frame"))))
	}
	if !opt.Filtered {
		if rest := attached.rest(); len(rest) > 0 {
			writeTimelineText(&b, fmt.Sprintf("%*sfindings on frames not listed above:", tlIndent, ""), width, strings.Repeat(" ", tlIndent), pal.dim)
			for _, f := range rest {
				writeFindingLine(&b, f, pal, width)
			}
		}
	}
	for _, n := range s.Notes {
		writeTimelineText(&b, fmt.Sprintf("%*snote: %s", tlIndent, "", Safe(n)), width, strings.Repeat(" ", tlIndent+6), pal.dim)
	}
	b.WriteString("\n")
	return writeString(w, b.String())
}

func writeString(w io.Writer, s string) error {
	if _, err := io.WriteString(w, s); err != nil {
		return fmt.Errorf("mcpsleuth: writing the timeline: %w", err)
	}
	return nil
}

func timelineRevision(s Session) string {
	v := s.ProtocolVersion
	switch {
	case !s.hasContract():
		return "no handshake"
	case s.Era == "modern":
		return Safe(orDash(v.Requested)) + " (per request)"
	case v.Negotiated != "" && v.Answered != "":
		return Safe(v.Negotiated) + " (" + v.Verdict + ")"
	}
	return "requested " + Safe(orDash(v.Requested)) + " (" + v.Verdict + ")"
}

func writeContextLine(b *strings.Builder, fs trace.FrameSummary, pal palette, width int) {
	writeTimelineText(b, fmt.Sprintf("%*d  %-*s  ····  %s", tlLine, fs.Line, tlTime, "", Safe(fs.Text)), width, strings.Repeat(" ", tlIndent+6), pal.dim)
}

// writeExchangeLine writes an HTTP exchange that carried no message, kept without
// its context line: "  134  02:30:09.750  c->s  http  GET /mcp → 400 Bad Request".
func writeExchangeLine(b *strings.Builder, fs trace.FrameSummary, width int) {
	clock := ""
	if !fs.Time.IsZero() {
		clock = fs.Time.Format("15:04:05.000")
	}
	line := fmt.Sprintf("%*d  %-*s  %s  %s", tlLine, fs.Line, tlTime, clock, dirArrow(fs.Dir), exchangeLabel(fs.Exchange))
	writeTimelineText(b, line, width, strings.Repeat(" ", tlLead), plain)
}

// exchangeLabel names an HTTP exchange without a message: "HTTP GET /mcp → 400
// Bad Request (entry 3)".
func exchangeLabel(x *trace.HTTPExchange) string {
	parts := []string{"HTTP"}
	if x.Method != "" {
		parts = append(parts, Safe(x.Method))
	}
	if x.Path != "" {
		parts = append(parts, Safe(x.Path))
	}
	if x.Status > 0 {
		if x.Method != "" || x.Path != "" {
			parts = append(parts, "→")
		}
		parts = append(parts, strconv.Itoa(x.Status))
		if x.StatusText != "" {
			parts = append(parts, Safe(x.StatusText))
		}
	}
	switch {
	case x.Entry > 0:
		parts = append(parts, fmt.Sprintf("(entry %d)", x.Entry))
	case x.Number > 0:
		parts = append(parts, fmt.Sprintf("(exchange %d)", x.Number))
	}
	return strings.Join(parts, " ")
}

// writeFrameLine writes "  8  14:22:01.007  s->c  ntf  ...  65B  29ms": the
// description column narrows to fit width, and a description longer than it
// pushes the size right, the line wrapping under the description when it must.
func writeFrameLine(b *strings.Builder, fs trace.FrameSummary, width int) {
	clock := ""
	if !fs.Time.IsZero() {
		clock = fs.Time.Format("15:04:05.000")
	}
	desc := frameDescription(fs)
	size := strconv.Itoa(fs.Size) + "B"
	latency := ""
	if fs.HasLatency && fs.Latency >= 0 {
		// A negative delay says only that the capture's clocks disagree (a
		// HAR gives the frames of a response the time of their entry).
		latency = "  " + formatLatency(fs.Latency)
	}
	column := max(tlMinDesc, min(tlDesc, width-tlLead-tlSize-tlLatency))
	pad := max(1, column-textWidth(desc))
	line := fmt.Sprintf("%*d  %-*s  %s  %s  %s%s%*s%s", tlLine, fs.Line, tlTime, clock, dirArrow(fs.Dir), kindShort(fs.Kind), desc, strings.Repeat(" ", pad), tlSize, size, latency)
	if textWidth(line) > width { // the size follows the description, wrapped with it
		line = fmt.Sprintf("%*d  %-*s  %s  %s  %s  %s%s", tlLine, fs.Line, tlTime, clock, dirArrow(fs.Dir), kindShort(fs.Kind), desc, size, latency)
	}
	writeTimelineText(b, line, width, strings.Repeat(" ", tlLead), plain)
}

func frameDescription(fs trace.FrameSummary) string {
	id := ""
	if fs.ID != "" {
		id = "id=" + Safe(fs.ID) + "  "
	}
	switch fs.Kind {
	case trace.KindRequest:
		d := id + Safe(fs.Method)
		if fs.Subject != "" {
			d += " " + Safe(fs.Subject)
		}
		return d
	case trace.KindNotification:
		return Safe(fs.Method)
	case trace.KindResult:
		if fs.Method != "" {
			return id + "(" + Safe(fs.Method) + ")"
		}
		return id + "(answers no request seen)"
	case trace.KindError:
		d := id + "error " + strconv.FormatInt(fs.ErrorCode, 10)
		if fs.Subject != "" {
			d += " " + Safe(fs.Subject)
		}
		if fs.Method != "" {
			d += " (" + Safe(fs.Method) + ")"
		}
		return d
	case trace.KindBatch:
		return fmt.Sprintf("batch of %d", fs.Members)
	}
	return "invalid: " + Safe(fs.Subject)
}

func dirArrow(d spec.Direction) string {
	switch d {
	case spec.C2S:
		return "c->s"
	case spec.S2C:
		return "s->c"
	}
	return "?->?"
}

func kindShort(k trace.Kind) string {
	switch k {
	case trace.KindRequest:
		return "req"
	case trace.KindNotification:
		return "ntf"
	case trace.KindResult:
		return "res"
	case trace.KindError:
		return "err"
	case trace.KindBatch:
		return "bat"
	}
	return "inv"
}

// formatLatency writes a delay that is not negative: "29ms", "1.50s", "2m05s".
func formatLatency(d time.Duration) string {
	ms := d.Milliseconds()
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.2fs", float64(ms)/1000)
	}
	return fmt.Sprintf("%dm%02ds", ms/60_000, ms/1000%60)
}

// writeMarkers writes what did not happen after a frame.
func writeMarkers(b *strings.Builder, fs trace.FrameSummary, pal palette, width int) {
	for _, m := range frameMarkers(fs) {
		paint := pal.dim
		if m.Bad {
			paint = pal.warn
		}
		writeTimelineText(b, fmt.Sprintf("%*s————  %s", tlIndent, "", m.Text), width, strings.Repeat(" ", tlIndent+7), paint)
	}
}

// frameMarker is what did or did not happen after a frame ("(no response)",
// "(no reaction: ...)"), as the timeline and the diagrams mark it; Bad when it
// is evidence of a problem.
type frameMarker struct {
	Text string
	Bad  bool
}

// frameMarkers says what became of a frame: a request's missing response, a
// notification's reaction or its absence.
func frameMarkers(fs trace.FrameSummary) []frameMarker {
	var out []frameMarker
	mark := func(text string, bad bool) { out = append(out, frameMarker{Text: text, Bad: bad}) }
	switch {
	case fs.Unanswered && fs.LongLived:
		mark("(no response: a long-lived stream, answered only when it closes)", false)
	case fs.Unanswered:
		mark("(no response)", true)
	case fs.Cancelled:
		mark(fmt.Sprintf("(cancelled at line %d, no response)", fs.CancelLine), false)
	}
	r := fs.Reaction
	if r == nil {
		return out
	}
	receiver := r.Receiver.String()
	switch {
	case r.Missing():
		mark(fmt.Sprintf("(no reaction: the %s sent no %s before the session ended)", receiver, r.Expected), true)
	case r.Dropped():
		mark(fmt.Sprintf("(no reaction: the %s sent no %s before the session ended; %s, so the %s may drop it)", receiver, r.Expected, r.Undeclared, receiver), true)
	case r.Expected != "" && r.Line == 0 && r.Cannot != "" && !r.Unjudged:
		mark(fmt.Sprintf("(no reaction, not judged: %s)", r.Cannot), false)
	case r.Expected == "" && r.Undeclared != "":
		mark(fmt.Sprintf("(no reaction expected: %s, so the %s may drop it)", r.Undeclared, receiver), true)
	case r.Line > 0:
		mark(fmt.Sprintf("(reaction: %s at line %d)", Safe(r.By), r.Line), false)
	}
	return out
}

func writeFindingLine(b *strings.Builder, f Finding, pal palette, width int) {
	writeTimelineText(b, fmt.Sprintf("%*s%s  %s %s: %s", tlIndent, "", pal.severity(f.Severity), f.Rule, f.Name, Safe(f.Message)), width, strings.Repeat(" ", tlIndent+len(f.Severity)+2), plain)
}

// omittedEntries says what a capped trace did not keep: its frames, and the
// context lines and HTTP exchanges without a message past the cap.
func omittedEntries(t *trace.Trace) string {
	what := quote.Count(t.Omitted, "frame")
	switch {
	case t.OmittedOther == 1:
		what += " and 1 other entry (a context line or an HTTP exchange)"
	case t.OmittedOther > 1:
		what += " and " + strconv.Itoa(t.OmittedOther) + " other entries (context lines, HTTP exchanges)"
	}
	return what
}
