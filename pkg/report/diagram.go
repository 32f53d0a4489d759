package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// anchorsOf takes what the diagram needs of the report's findings.
func anchorsOf(findings []Finding) []trace.Anchor {
	out := make([]trace.Anchor, len(findings))
	for i, f := range findings {
		out[i] = trace.Anchor{Line: f.Line, Seq: f.seq, ID: string(f.ID)}
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

// writeMermaid writes a session's sequence diagram: one arrow per drawn frame,
// flagged frames inside a coloured rect with a note naming their findings, and a
// note for every run of frames left out.
func writeMermaid(b *strings.Builder, s Session, frames []trace.FrameSummary) {
	b.WriteString("sequenceDiagram\n")
	fmt.Fprintf(b, "    participant C as %s\n", mermaidText("client "+peerLabel(s.Client)))
	fmt.Fprintf(b, "    participant S as %s\n", mermaidText("server "+peerLabel(s.Server)))
	attached := attachFindings(s.Findings)
	for _, fs := range frames {
		if fs.Gap > 0 {
			text := fmt.Sprintf("… %s omitted (lines %d-%d) …", quote.Count(fs.Gap, "frame"), fs.Line, fs.LastLine)
			if fs.NotKept {
				text = fmt.Sprintf("… %s from line %d on not kept: the session is longer than the frames an observer keeps …", quote.Count(fs.Gap, "frame"), fs.Line)
			}
			fmt.Fprintf(b, "    Note over C,S: %s\n", mermaidText(text))
			continue
		}
		if flagged := attached.take(fs.Seq, fs.Line); len(flagged) > 0 {
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
	// Count the frames the findings left undrawn are about.
	notDrawn, seen := 0, map[[2]int]bool{}
	for _, f := range attached.rest() {
		if key := [2]int{f.seq, f.Line}; !seen[key] {
			seen[key] = true
			notDrawn++
		}
	}
	if notDrawn > 0 {
		fmt.Fprintf(b, "    Note over C,S: %s\n", mermaidText(fmt.Sprintf("… %s with findings not drawn: see Findings …", quote.Count(notDrawn, "more frame"))))
	}
}

// rectColour is the background of a flagged frame's rect: a translucent tint,
// so that the arrow's label keeps the contrast of the theme it is drawn in
// (dark text on a pale tint in a light theme, light text on a dark tint in a
// dark one); an opaque pastel would put a dark theme's light text on a light
// background.
func rectColour(s rule.Severity) string {
	switch s {
	case rule.SeverityError:
		return "rgba(248, 81, 73, 0.25)"
	case rule.SeverityWarning:
		return "rgba(210, 153, 34, 0.25)"
	}
	return "rgba(56, 139, 253, 0.2)"
}

// writeArrow draws one frame: requests solid, responses dotted, notifications
// async, errors crossed; a frame whose direction is unknown becomes a note.
func writeArrow(b *strings.Builder, fs trace.FrameSummary) {
	label := mermaidText(arrowLabel(fs))
	from, to := "C", "S"
	if fs.Dir == spec.S2C {
		from, to = "S", "C"
	}
	if fs.Dir == spec.DirUnknown || fs.FromFinding || fs.Exchange != nil {
		fmt.Fprintf(b, "    Note over C,S: %s\n", label)
		return
	}
	arrow := "->>"
	switch fs.Kind {
	case trace.KindNotification:
		arrow = "-)"
	case trace.KindResult:
		arrow = "-->>"
	case trace.KindError:
		arrow = "--x"
	case trace.KindInvalid:
		arrow = "-x"
	}
	fmt.Fprintf(b, "    %s%s%s: %s\n", from, arrow, to, label)
}

func arrowLabel(fs trace.FrameSummary) string {
	var parts []string
	id := ""
	if fs.ID != "" {
		id = "id=" + fs.ID
	}
	switch {
	case fs.Exchange != nil:
		parts = append(parts, exchangeLabel(fs.Exchange))
	case fs.FromFinding:
		parts = append(parts, fs.Dir.String(), fs.Method, id, "(summary not kept)")
	case fs.Kind == trace.KindRequest:
		parts = append(parts, fs.Method, fs.Subject, id)
	case fs.Kind == trace.KindNotification:
		parts = append(parts, fs.Method)
	case fs.Kind == trace.KindResult:
		parts = append(parts, "result", id)
		if fs.Method != "" {
			parts = append(parts, "for "+fs.Method)
		}
	case fs.Kind == trace.KindError:
		parts = append(parts, "error", strconv.FormatInt(fs.ErrorCode, 10), id)
		if fs.Method != "" {
			parts = append(parts, "for "+fs.Method)
		}
	case fs.Kind == trace.KindBatch:
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
