package report

import "fmt"

// where names a finding's place: "line 516", or for a document format "entry 5,
// line 516" (the entry that carried the frame, and the line of the file where the
// frame's text starts).
func (f Finding) where() string {
	if f.Entry > 0 {
		return fmt.Sprintf("entry %d, line %d", f.Entry, f.Line)
	}
	return fmt.Sprintf("line %d", f.Line)
}

// attachment attaches a session's findings to the frames they are about, for the
// views that show frames (timeline, sequence diagram): a finding that knows its
// frame's position in the session goes with that frame, even where several frames
// share a line (the events of one SSE body, a one-line document); one that does not
// (a finding about the session) goes with the first frame on its line.
type attachment struct {
	findings []Finding
	bySeq    map[int][]int
	byLine   map[int][]int
	taken    []bool
}

func attachFindings(findings []Finding) *attachment {
	a := &attachment{findings: findings, bySeq: map[int][]int{}, byLine: map[int][]int{}, taken: make([]bool, len(findings))}
	for i, f := range findings {
		if f.seq > 0 {
			a.bySeq[f.seq] = append(a.bySeq[f.seq], i)
		} else {
			a.byLine[f.Line] = append(a.byLine[f.Line], i)
		}
	}
	return a
}

// take returns the findings about the frame at position seq on line (those not
// taken yet), and marks them taken.
func (a *attachment) take(seq, line int) []Finding {
	var out []Finding
	pick := func(is []int) {
		for _, i := range is {
			if !a.taken[i] {
				a.taken[i] = true
				out = append(out, a.findings[i])
			}
		}
	}
	if seq > 0 {
		pick(a.bySeq[seq])
	}
	pick(a.byLine[line])
	return out
}

// rest returns the findings no frame took, in order.
func (a *attachment) rest() []Finding {
	var out []Finding
	for i, f := range a.findings {
		if !a.taken[i] {
			out = append(out, f)
		}
	}
	return out
}

// lineCell is the LINE cell of a findings table: the line, and for a document
// format the entry above it ("entry 5,\nline 516": the column stays narrow).
func lineCell(f Finding) string {
	if f.Entry > 0 {
		return fmt.Sprintf("entry %d,\nline %d", f.Entry, f.Line)
	}
	return fmt.Sprint(f.Line)
}
