package trace

import (
	"slices"
	"sort"

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

// Anchor is what the diagram needs of a finding: the frame it points at and the
// lines of its related frames.
type Anchor struct {
	Line    int
	Dir     spec.Direction
	Method  string
	ID      string
	Related []int
}

// AnchorsOf takes the anchors of findings.
func AnchorsOf(findings []rule.Finding) []Anchor {
	out := make([]Anchor, len(findings))
	for i, f := range findings {
		out[i] = Anchor{Line: f.Line, Dir: f.Dir, Method: f.Method, ID: f.ID}
		for _, r := range f.Related {
			out[i].Related = append(out[i].Related, r.Line)
		}
	}
	return out
}

// DiagramFrames picks what the sequence diagram draws of a session: everything
// when it is short; else the handshake, each flagged frame with its neighbours and
// the frames findings point at, with Gap entries standing for the frames left out,
// so that nothing is cut silently. Flagged frames whose summaries were not kept
// (the MaxFrames cap) are drawn from their findings (FromFinding).
func DiagramFrames(t *Trace, findings []Anchor) []FrameSummary {
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
		out = append(out, FrameSummary{Gap: t.Omitted, Line: t.CappedAt, NotKept: true})
		for _, line := range missing {
			for _, f := range findings {
				if f.Line == line {
					out = append(out, FrameSummary{Line: line, Dir: f.Dir, Method: f.Method, ID: f.ID, Kind: kindFromAnchor(f), FromFinding: true})
					break
				}
			}
		}
	}
	return out
}

func kindFromAnchor(f Anchor) Kind {
	switch {
	case f.ID != "" && f.Method != "":
		return KindRequest
	case f.Method != "":
		return KindNotification
	}
	return KindInvalid
}

// flaggedLines lists the distinct anchor lines of the findings, and the lines
// their related frames are on, in line order.
func flaggedLines(findings []Anchor) (flagged, related []int) {
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
