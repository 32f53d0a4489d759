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
	Line int
	// Seq is the frame's position in the session (rule.Finding.Seq; 0 when the
	// finding is about no single frame): it finds the frame where lines are shared.
	Seq     int
	Dir     spec.Direction
	Method  string
	ID      string
	Related []int
}

// AnchorsOf takes the anchors of findings.
func AnchorsOf(findings []rule.Finding) []Anchor {
	out := make([]Anchor, len(findings))
	for i, f := range findings {
		out[i] = Anchor{Line: f.Line, Seq: f.Seq, Dir: f.Dir, Method: f.Method, ID: f.ID}
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
	flagged, related := flaggedLines(findings)
	for i, fs := range t.Frames {
		if fs.Gap > 0 {
			return t.Frames // already reduced
		}
		if fs.Context || fs.Exchange != nil { // context lines are not drawn: copy the frames without them
			frames = slices.Clip(t.Frames[:i])
			for _, fs := range t.Frames[i:] {
				if fs.Exchange != nil {
					// An exchange without a message is drawn when a finding is about
					// it, as an entry of its own (also when it stood on a context line).
					if flaggedAt(flagged, fs.Line) {
						fs.Context, fs.Text = false, ""
						frames = append(frames, fs)
					}
					continue
				}
				if !fs.Context {
					frames = append(frames, fs)
				}
			}
			break
		}
	}
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
	// findFrame finds a flagged frame by its position in the session (frames are in
	// session order), else by its line.
	findFrame := func(at flaggedFrame) (int, bool) {
		if at.seq == 0 {
			return find(at.line)
		}
		i := sort.Search(len(frames), func(i int) bool { return frames[i].Seq >= at.seq })
		return i, i < len(frames) && frames[i].Seq == at.seq
	}
	var missing []flaggedFrame
	for n, at := range flagged {
		if n == diagramFlagged {
			break
		}
		i, ok := findFrame(at)
		if !ok {
			missing = append(missing, at)
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
		for _, at := range missing {
			for _, f := range findings {
				if f.Line == at.line && f.Seq == at.seq {
					out = append(out, FrameSummary{Line: f.Line, Seq: f.Seq, Dir: f.Dir, Method: f.Method, ID: f.ID, Kind: kindFromAnchor(f), FromFinding: true})
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

// flaggedAt reports whether a finding about no frame of the session (Seq 0) is
// on line: an HTTP exchange without a message.
func flaggedAt(flagged []flaggedFrame, line int) bool {
	i := sort.Search(len(flagged), func(i int) bool { return flagged[i].line >= line })
	for ; i < len(flagged) && flagged[i].line == line; i++ {
		if flagged[i].seq == 0 {
			return true
		}
	}
	return false
}

// flaggedFrame is a frame findings point at: its position in the session (0 when
// not known) and its line.
type flaggedFrame struct{ seq, line int }

// flaggedLines lists the distinct frames the findings point at, in line order, and
// the lines their related frames are on.
func flaggedLines(findings []Anchor) (flagged []flaggedFrame, related []int) {
	seen, seenRel := map[flaggedFrame]bool{}, map[int]bool{}
	for _, f := range findings {
		if at := (flaggedFrame{f.Seq, f.Line}); !seen[at] {
			seen[at] = true
			flagged = append(flagged, at)
		}
		for _, line := range f.Related {
			if line > 0 && !seenRel[line] {
				seenRel[line] = true
				related = append(related, line)
			}
		}
	}
	sort.Slice(flagged, func(i, j int) bool {
		if flagged[i].line != flagged[j].line {
			return flagged[i].line < flagged[j].line
		}
		return flagged[i].seq < flagged[j].seq
	})
	sort.Ints(related)
	return flagged, related
}
