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
}

// The columns of a timeline line.
const (
	tlLine   = 6  // line number, right-aligned
	tlTime   = 12 // 15:04:05.000
	tlDesc   = 52 // id, method, subject
	tlSize   = 7  // 1204B
	tlIndent = tlLine + 2 + tlTime + 2
)

// WriteTimelinePreamble writes the context lines seen before any frame.
func WriteTimelinePreamble(w io.Writer, o *trace.Tracer, opt TimelineOptions) error {
	if len(o.Preamble) == 0 && o.PreambleOmitted == 0 {
		return nil
	}
	pal := NewPalette(opt.Color)
	var b strings.Builder
	for _, fs := range o.Preamble {
		writeContextLine(&b, fs, pal)
	}
	if o.PreambleOmitted > 0 {
		fmt.Fprintf(&b, "%s\n", pal.Dim(fmt.Sprintf("%*s… %s of context before the first frame not shown", tlLine, "", quote.Count(o.PreambleOmitted, "more line"))))
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
	pal := NewPalette(opt.Color)
	var b strings.Builder
	header := fmt.Sprintf("── session %d  %s ⇄ %s  %s  lines %d-%d", s.Index, Safe(peerLabel(s.Client)), Safe(peerLabel(s.Server)),
		timelineRevision(s), s.FirstLine, s.LastLine)
	if s.StreamKey != "" {
		header += "  stream " + Safe(s.StreamKey)
	}
	fmt.Fprintf(&b, "%s\n", pal.Bold(header+" ──"))
	attached := attachFindings(s.Findings)
	lastDate, prevSeq := "", 0
	for _, fs := range t.Frames {
		if fs.Context {
			writeContextLine(&b, fs, pal)
			continue
		}
		if gap := fs.Seq - prevSeq - 1; gap > 0 {
			fmt.Fprintf(&b, "%s\n", pal.Dim(fmt.Sprintf("%*s⋮  %s not shown", tlIndent, "", quote.Count(gap, "frame"))))
		}
		prevSeq = fs.Seq
		if !fs.Time.IsZero() {
			if d := fs.Time.Format("2006-01-02"); d != lastDate {
				fmt.Fprintf(&b, "%s\n", pal.Dim(fmt.Sprintf("%*s── %s", tlLine+2, "", d)))
				lastDate = d
			}
		}
		writeFrameLine(&b, fs, pal)
		writeMarkers(&b, fs, pal)
		for _, f := range attached.take(fs.Seq, fs.Line) {
			writeFindingLine(&b, f, pal)
		}
	}
	if t.Capped {
		fmt.Fprintf(&b, "%s\n", pal.Dim(fmt.Sprintf("%*s… %s from line %d on not shown: the timeline keeps at most %d frames of a session (use --around or --method)", tlIndent, "", quote.Count(t.Omitted, "frame"), t.CappedAt, len(t.Frames))))
	} else if gap := t.Total - prevSeq; gap > 0 && prevSeq > 0 {
		fmt.Fprintf(&b, "%s\n", pal.Dim(fmt.Sprintf("%*s⋮  %s not shown", tlIndent, "", quote.Count(gap, "frame"))))
	}
	if !opt.Filtered {
		if rest := attached.rest(); len(rest) > 0 {
			fmt.Fprintf(&b, "%s\n", pal.Dim(fmt.Sprintf("%*sfindings on frames not listed above:", tlIndent, "")))
			for _, f := range rest {
				writeFindingLine(&b, f, pal)
			}
		}
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&b, "%s\n", pal.Dim(fmt.Sprintf("%*snote: %s", tlIndent, "", Safe(n))))
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
	case !s.HasContract():
		return "no handshake"
	case s.Era == "modern":
		return Safe(orDash(v.Requested)) + " (per request)"
	case v.Negotiated != "" && v.Answered != "":
		return Safe(v.Negotiated) + " (" + v.Verdict + ")"
	}
	return "requested " + Safe(orDash(v.Requested)) + " (" + v.Verdict + ")"
}

func writeContextLine(b *strings.Builder, fs trace.FrameSummary, pal Palette) {
	fmt.Fprintf(b, "%s\n", pal.Dim(fmt.Sprintf("%*d  %-*s  ····  %s", tlLine, fs.Line, tlTime, "", Safe(fs.Text))))
}

// writeFrameLine writes "  8  14:22:01.007  s->c  ntf  ...  65B  29ms".
func writeFrameLine(b *strings.Builder, fs trace.FrameSummary, pal Palette) {
	clock := ""
	if !fs.Time.IsZero() {
		clock = fs.Time.Format("15:04:05.000")
	}
	desc := frameDescription(fs)
	size := strconv.Itoa(fs.Size) + "B"
	latency := ""
	if fs.HasLatency {
		latency = "  " + formatLatency(fs.Latency)
	}
	pad := max(1, tlDesc-len([]rune(desc)))
	fmt.Fprintf(b, "%*d  %-*s  %s  %s  %s%s%*s%s\n", tlLine, fs.Line, tlTime, clock, dirArrow(fs.Dir), kindShort(fs.Kind), desc, strings.Repeat(" ", pad), tlSize, size, latency)
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

func formatLatency(d time.Duration) string {
	ms := d.Milliseconds()
	switch {
	case ms < 0:
		return "-" + formatMillis(-ms)
	default:
		return formatMillis(ms)
	}
}

func formatMillis(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%.2fs", float64(ms)/1000)
	}
	return fmt.Sprintf("%dm%02ds", ms/60_000, ms/1000%60)
}

// writeMarkers writes what did not happen after a frame.
func writeMarkers(b *strings.Builder, fs trace.FrameSummary, pal Palette) {
	for _, m := range frameMarkers(fs) {
		line := fmt.Sprintf("%*s————  %s", tlIndent, "", m.Text)
		if m.Bad {
			fmt.Fprintf(b, "%s\n", pal.Warn(line))
			continue
		}
		fmt.Fprintf(b, "%s\n", pal.Dim(line))
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
		until := "before the session ended"
		if r.Until > 0 {
			until = fmt.Sprintf("before the next %s (line %d)", Safe(fs.Method), r.Until)
		}
		text := fmt.Sprintf("(no reaction: the %s sent no %s %s", receiver, r.Expected, until)
		if r.Undeclared != "" {
			text += "; " + r.Undeclared + ", so the " + receiver + " may drop it"
		}
		mark(text+")", true)
	case r.Expected == "" && r.Undeclared != "":
		mark(fmt.Sprintf("(no reaction expected: %s, so the %s may drop it)", r.Undeclared, receiver), true)
	case r.Line > 0:
		mark(fmt.Sprintf("(reaction: %s at line %d)", Safe(r.By), r.Line), false)
	}
	return out
}

func writeFindingLine(b *strings.Builder, f Finding, pal Palette) {
	fmt.Fprintf(b, "%*s%s  %s %s: %s\n", tlIndent, "", pal.Severity(f.Severity), f.Rule, f.Name, Safe(f.Message))
}
