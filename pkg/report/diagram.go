package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// What the sequence diagram of a long session draws.
const (
	// diagramWhole: sessions with at most this many frames are drawn whole.
	diagramWhole = 40
	// diagramHandshake: the first frames drawn, up to notifications/initialized.
	diagramHandshake = 6
	// diagramNeighbours: frames drawn on each side of a flagged frame.
	diagramNeighbours = 2
	// diagramFlagged: flagged frames drawn with their neighbours; the rest are counted.
	diagramFlagged = 20
)

// diagramFrames picks what the sequence diagram draws of a session: everything
// when it is short; else the handshake, each flagged frame with its neighbours and
// the frames findings point at, with Gap entries standing for the frames left out,
// so that nothing is cut silently. Flagged frames whose summaries were not kept
// (the MaxFrames cap) are drawn from their findings.
func diagramFrames(t *Trace, findings []anchor) []FrameSummary {
	frames := t.Frames
	for i, fs := range t.Frames {
		if fs.Gap > 0 {
			return t.Frames // already reduced
		}
		if fs.Context { // context lines are not drawn: copy the frames without them
			frames = slices.Clip(t.Frames[:i])
			for _, fs := range t.Frames[i:] {
				if !fs.Context {
					frames = append(frames, fs)
				}
			}
			break
		}
	}
	flagged, related := flaggedLines(findings)
	if len(frames) <= diagramWhole && !t.Capped {
		return frames
	}
	keep := make([]bool, len(frames))
	for i := 0; i < len(frames) && i < diagramHandshake; i++ {
		keep[i] = true
		if frames[i].Method == "notifications/initialized" {
			break
		}
	}
	find := func(line int) (int, bool) {
		i := sort.Search(len(frames), func(i int) bool { return frames[i].Line >= line })
		return i, i < len(frames) && frames[i].Line == line
	}
	var missing []int
	for n, line := range flagged {
		if n == diagramFlagged {
			break
		}
		i, ok := find(line)
		if !ok {
			missing = append(missing, line)
			continue
		}
		for j := max(0, i-diagramNeighbours); j <= min(len(frames)-1, i+diagramNeighbours); j++ {
			keep[j] = true
		}
	}
	for _, line := range related {
		if i, ok := find(line); ok {
			keep[i] = true
		}
	}
	var out []FrameSummary
	for i := 0; i < len(frames); {
		if keep[i] {
			out = append(out, frames[i])
			i++
			continue
		}
		j := i
		for j < len(frames) && !keep[j] {
			j++
		}
		out = append(out, FrameSummary{Gap: j - i, Line: frames[i].Line, LastLine: frames[j-1].Line})
		i = j
	}
	if t.Capped {
		out = append(out, FrameSummary{Gap: t.Omitted, Line: t.CappedAt, Subject: "not kept: the session is longer than the frames an observer keeps"})
		for _, line := range missing {
			for _, f := range findings {
				if f.Line == line {
					out = append(out, FrameSummary{Line: line, Dir: f.Dir, Method: f.Method, ID: f.ID, Kind: kindFromFinding(f), Subject: "drawn from its finding"})
					break
				}
			}
		}
	}
	return out
}

// anchor is what the diagram needs of a finding.
type anchor struct {
	Line    int
	Dir     spec.Direction
	Method  string
	ID      string
	Related []int
}

func anchorsOf(findings []rule.Finding) []anchor {
	out := make([]anchor, len(findings))
	for i, f := range findings {
		out[i] = anchor{Line: f.Line, Dir: f.Dir, Method: f.Method, ID: f.ID}
		for _, r := range f.Related {
			out[i].Related = append(out[i].Related, r.Line)
		}
	}
	return out
}

func anchorsOfReport(findings []Finding) []anchor {
	out := make([]anchor, len(findings))
	for i, f := range findings {
		out[i] = anchor{Line: f.Line, ID: string(f.ID)}
		if string(f.ID) == "null" {
			out[i].ID = ""
		}
		if f.Method != nil {
			out[i].Method = *f.Method
		}
		if f.Direction != nil {
			switch *f.Direction {
			case "c2s":
				out[i].Dir = spec.C2S
			case "s2c":
				out[i].Dir = spec.S2C
			}
		}
		for _, r := range f.Related {
			out[i].Related = append(out[i].Related, r.Line)
		}
	}
	return out
}

func kindFromFinding(f anchor) frame.Kind {
	switch {
	case f.ID != "" && f.Method != "":
		return frame.KindRequest
	case f.Method != "":
		return frame.KindNotification
	}
	return frame.KindInvalid
}

// flaggedLines lists the distinct anchor lines of the findings, and the lines
// their related frames are on, in line order.
func flaggedLines(findings []anchor) (flagged, related []int) {
	seen, seenRel := map[int]bool{}, map[int]bool{}
	for _, f := range findings {
		if !seen[f.Line] {
			seen[f.Line] = true
			flagged = append(flagged, f.Line)
		}
		for _, line := range f.Related {
			if line > 0 && !seenRel[line] {
				seenRel[line] = true
				related = append(related, line)
			}
		}
	}
	sort.Ints(flagged)
	sort.Ints(related)
	return flagged, related
}

// writeMermaid writes a session's sequence diagram: one arrow per drawn frame,
// flagged frames inside a coloured rect with a note naming their findings, and a
// note for every run of frames left out.
func writeMermaid(b *strings.Builder, s Session, frames []FrameSummary) {
	b.WriteString("sequenceDiagram\n")
	fmt.Fprintf(b, "    participant C as %s\n", mermaidText("client "+peerLabel(s.Client)))
	fmt.Fprintf(b, "    participant S as %s\n", mermaidText("server "+peerLabel(s.Server)))
	byLine := map[int][]Finding{}
	for _, f := range s.Findings {
		byLine[f.Line] = append(byLine[f.Line], f)
	}
	drawnFlagged := map[int]bool{}
	for _, fs := range frames {
		if fs.Gap > 0 {
			text := fmt.Sprintf("… %s omitted (lines %d-%d) …", count(fs.Gap, "frame"), fs.Line, fs.LastLine)
			if fs.LastLine == 0 {
				text = fmt.Sprintf("… %s from line %d on %s …", count(fs.Gap, "frame"), fs.Line, fs.Subject)
			}
			fmt.Fprintf(b, "    Note over C,S: %s\n", mermaidText(text))
			continue
		}
		flagged := byLine[fs.Line]
		if len(flagged) > 0 && !drawnFlagged[fs.Line] {
			drawnFlagged[fs.Line] = true
			worst := rule.Severity(0)
			for _, f := range flagged {
				worst = max(worst, f.severity)
			}
			fmt.Fprintf(b, "    rect %s\n", rectColour(worst))
			writeArrow(b, fs)
			var notes []string
			for _, f := range flagged {
				notes = append(notes, mermaidText(fmt.Sprintf("%s %s %s", f.Severity, f.Rule, f.Name)))
			}
			fmt.Fprintf(b, "    Note over C,S: %s\n", strings.Join(notes, "<br/>"))
			b.WriteString("    end\n")
			continue
		}
		writeArrow(b, fs)
	}
	notDrawn := 0
	for line := range byLine {
		if !drawnFlagged[line] {
			notDrawn++
		}
	}
	if notDrawn > 0 {
		fmt.Fprintf(b, "    Note over C,S: %s\n", mermaidText(fmt.Sprintf("… %s with findings not drawn: see Findings …", count(notDrawn, "more frame"))))
	}
}

func rectColour(s rule.Severity) string {
	switch s {
	case rule.SeverityError:
		return "rgb(255, 225, 225)"
	case rule.SeverityWarning:
		return "rgb(255, 243, 205)"
	}
	return "rgb(225, 238, 255)"
}

// writeArrow draws one frame: requests solid, responses dotted, notifications
// async, errors crossed; a frame whose direction is unknown becomes a note.
func writeArrow(b *strings.Builder, fs FrameSummary) {
	label := mermaidText(arrowLabel(fs))
	from, to := "C", "S"
	if fs.Dir == spec.S2C {
		from, to = "S", "C"
	}
	if fs.Dir == spec.DirUnknown || fs.Subject == "drawn from its finding" {
		fmt.Fprintf(b, "    Note over C,S: %s\n", label)
		return
	}
	arrow := "->>"
	switch fs.Kind {
	case frame.KindNotification:
		arrow = "-)"
	case frame.KindResult:
		arrow = "-->>"
	case frame.KindError:
		arrow = "--x"
	case frame.KindInvalid:
		arrow = "-x"
	}
	fmt.Fprintf(b, "    %s%s%s: %s\n", from, arrow, to, label)
}

func arrowLabel(fs FrameSummary) string {
	var parts []string
	id := ""
	if fs.ID != "" {
		id = "id=" + fs.ID
	}
	switch {
	case fs.Subject == "drawn from its finding":
		parts = append(parts, fs.Dir.String(), fs.Method, id, "(summary not kept)")
	case fs.Kind == frame.KindRequest:
		parts = append(parts, fs.Method, fs.Subject, id)
	case fs.Kind == frame.KindNotification:
		parts = append(parts, fs.Method)
	case fs.Kind == frame.KindResult:
		parts = append(parts, "result", id)
		if fs.Method != "" {
			parts = append(parts, "for "+fs.Method)
		}
	case fs.Kind == frame.KindError:
		parts = append(parts, "error", strconv.FormatInt(fs.ErrorCode, 10), id)
		if fs.Method != "" {
			parts = append(parts, "for "+fs.Method)
		}
	case fs.Kind == frame.KindBatch:
		parts = append(parts, fmt.Sprintf("batch of %d", fs.Members))
	default:
		parts = append(parts, "invalid frame")
	}
	parts = append(parts, "(line "+strconv.Itoa(fs.Line)+")")
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

func peerLabel(p Peer) string {
	name := strings.TrimSpace(p.Name + " " + p.Version)
	if name == "" {
		return "(unknown)"
	}
	return name
}

// mermaidText makes captured text safe inside a Mermaid sequence diagram: every
// character outside a small safe set becomes an entity code (#60; for <), which
// Mermaid renders as the character itself and never as syntax or HTML. Control
// characters are escaped first (Safe).
func mermaidText(s string) string {
	s = Safe(s)
	if len(s) > 200 {
		s = cut(s, 200)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == ' ' && b.Len() > 0,
			strings.ContainsRune("/_.=,()-+'@*?!$[]", r):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
}
