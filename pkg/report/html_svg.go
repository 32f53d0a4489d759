package report

import (
	"fmt"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Geometry of the inline SVG sequence diagram, in the units of its viewBox: the
// page's style scales it to the width of the page (between a floor that keeps
// its 12-unit text readable, under which it scrolls in its figure, and a
// ceiling).
const (
	svgWidth   = 960
	svgClientX = 140
	svgServerX = 820
	svgBox     = 272 // a participant's box: 36 characters of its name
	svgTop     = 56  // below the participants' boxes
	svgRow     = 30  // one arrow
	svgLine    = 15  // one more line of text under an arrow (a mark, a finding)
	svgLabel   = 96  // characters of an arrow's label
)

// writeSVG draws the sequence diagram: the client's and the server's lifelines,
// one arrow per drawn frame (requests solid, responses dashed, notifications
// dotted, errors red), flagged frames on a band coloured by their worst finding
// with the findings named under the arrow, what did not happen after a frame
// ("(no response)", "(no reaction)"), and a line for each run of frames left out.
func writeSVG(b *strings.Builder, s Session, n int, frames []trace.FrameSummary) {
	byLine := map[int][]Finding{}
	for _, f := range s.Findings {
		byLine[f.Line] = append(byLine[f.Line], f)
	}
	var rows strings.Builder
	y := svgTop
	drawn := map[int]bool{}
	for _, fs := range frames {
		if fs.Gap > 0 {
			text := fmt.Sprintf("… %s omitted (lines %d–%d) …", quote.Count(fs.Gap, "frame"), fs.Line, fs.LastLine)
			if fs.NotKept {
				text = fmt.Sprintf("… %s from line %d on not kept: the session is longer than the frames an observer keeps …", quote.Count(fs.Gap, "frame"), fs.Line)
			}
			fmt.Fprintf(&rows, "<g class=\"gap\"><text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text></g>\n", svgWidth/2, y+svgRow/2+4, htmlText(text))
			y += svgRow
			continue
		}
		var flagged []Finding
		if !drawn[fs.Line] {
			flagged = byLine[fs.Line]
			drawn[fs.Line] = true
		}
		y = writeSVGArrow(&rows, n, fs, flagged, y)
	}
	var missed int
	for line := range byLine {
		if !drawn[line] {
			missed++
		}
	}
	if missed > 0 {
		fmt.Fprintf(&rows, "<g class=\"gap\"><text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text></g>\n", svgWidth/2, y+svgRow/2+4,
			htmlText(fmt.Sprintf("… %s with findings not drawn: see Findings …", quote.Count(missed, "more frame"))))
		y += svgRow
	}
	height := y + 16
	// No width nor height: the page's style sizes the drawing, its viewBox keeps
	// the proportions.
	fmt.Fprintf(b, "<figure class=\"diagram\"><svg xmlns=\"http://www.w3.org/2000/svg\" class=\"sequence\" id=\"s%d-diagram\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"sequence diagram of session %d\">\n",
		n, svgWidth, height, n)
	for _, p := range []struct {
		x     int
		class string
		who   string
	}{{svgClientX, "client", "client " + peerLabel(s.Client)}, {svgServerX, "server", "server " + peerLabel(s.Server)}} {
		fmt.Fprintf(b, "<g class=\"participant %s\"><rect x=\"%d\" y=\"8\" width=\"%d\" height=\"30\" rx=\"4\"></rect><text x=\"%d\" y=\"28\" text-anchor=\"middle\">%s</text>"+
			"<line class=\"lifeline\" x1=\"%d\" y1=\"38\" x2=\"%d\" y2=\"%d\"></line></g>\n",
			p.class, p.x-svgBox/2, svgBox, p.x, htmlText(cut(Safe(p.who), 36)), p.x, p.x, height-8)
	}
	b.WriteString(rows.String())
	b.WriteString("</svg></figure>\n")
}

// entryClass is the class of a timeline entry: its frame's kind, or "exchange"
// for an HTTP exchange without a message.
func entryClass(fs trace.FrameSummary) string {
	if fs.Exchange != nil {
		return "exchange"
	}
	return kindClass(fs.Kind)
}

func kindClass(k trace.Kind) string {
	switch k {
	case trace.KindRequest:
		return "request"
	case trace.KindNotification:
		return "notification"
	case trace.KindResult:
		return "result"
	case trace.KindError:
		return "error"
	case trace.KindBatch:
		return "batch"
	}
	return "invalid"
}

// svgMark is a line of text under an arrow and its class, which colours it: a
// finding in the colour of its severity, as the findings are ("mark bad" for an
// error, "mark warning", "mark info"), and what did not happen after the frame
// ("mark bad" too, or "mark" when it is no fault).
type svgMark struct{ text, class string }

// findingMark is the class of a finding's line under its arrow.
func findingMark(s rule.Severity) string {
	switch {
	case s >= rule.SeverityError:
		return "mark bad"
	case s == rule.SeverityWarning:
		return "mark warning"
	}
	return "mark info"
}

// writeSVGArrow draws one frame from y on and returns where the next row starts.
func writeSVGArrow(b *strings.Builder, n int, fs trace.FrameSummary, flagged []Finding, y int) int {
	var under []svgMark
	worst := rule.Severity(0)
	var ids []string
	for _, f := range flagged {
		worst = max(worst, f.severity)
		ids = append(ids, f.Rule)
		under = append(under, svgMark{fmt.Sprintf("⚑ %s %s %s", f.Severity, f.Rule, f.Name), findingMark(f.severity)})
	}
	for _, m := range frameMarkers(fs) {
		class := "mark"
		if m.Bad {
			class += " bad"
		}
		under = append(under, svgMark{m.Text, class})
	}
	height := svgRow + len(under)*svgLine
	class := "arrow k-" + entryClass(fs)
	if len(flagged) > 0 {
		class += " flagged sev-" + worst.String()
	}
	fmt.Fprintf(b, "<g class=\"%s\" id=\"%s\" data-line=\"%d\" data-findings=\"%s\">", class, frameAnchor(n, fs.Line), fs.Line, htmlText(strings.Join(ids, " ")))
	if len(flagged) > 0 {
		fmt.Fprintf(b, "<rect class=\"band\" x=\"4\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\"></rect>", y+2, svgWidth-8, height-4)
	}
	label := htmlText(cut(Safe(arrowLabel(fs)), svgLabel))
	lineY := y + 20
	if fs.Dir == spec.DirUnknown || fs.FromFinding || fs.Exchange != nil {
		fmt.Fprintf(b, "<rect class=\"note\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"22\" rx=\"3\"></rect><text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>",
			svgClientX, y+5, svgServerX-svgClientX, svgWidth/2, y+20, label)
	} else {
		from, to := svgClientX, svgServerX
		if fs.Dir == spec.S2C {
			from, to = svgServerX, svgClientX
		}
		head := 10
		if to < from {
			head = -10
		}
		fmt.Fprintf(b, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>", svgWidth/2, lineY-5, label)
		fmt.Fprintf(b, "<line class=\"shaft\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"></line>", from, lineY, to-head, lineY)
		if fs.Kind == trace.KindError || fs.Kind == trace.KindInvalid {
			fmt.Fprintf(b, "<path class=\"cross\" d=\"M%d %d l8 8 m0 -8 l-8 8\"></path>", to-head/2-4, lineY-4)
		} else {
			fmt.Fprintf(b, "<path class=\"head\" d=\"M%d %d l%d -5 l0 10 z\"></path>", to, lineY, -head)
		}
	}
	for i, m := range under {
		fmt.Fprintf(b, "<text class=\"%s\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>", htmlText(m.class), svgWidth/2, lineY+14+i*svgLine, htmlText(cut(Safe(m.text), 130)))
	}
	b.WriteString("</g>\n")
	return y + height
}
