package report

import (
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// The cells of the contract table (contractSection): who declared each
// capability, who used it, and whether the two agree.

// declaredCell says whether the row's owner declared the capability, and where.
func declaredCell(s Session, row trace.CapabilityRow) []inline {
	switch {
	case !row.Known:
		return []inline{oursf("unknown: the %s's capabilities are not in the capture", row.Side)}
	case row.Declared:
		return []inline{oursf("%s (", row.Side), authored(declaredWhere(s, row.Side)), ours(")")}
	}
	return []inline{strong{[]inline{ours("not declared")}}, oursf(" by the %s (", row.Side), authored(declaredWhere(s, row.Side)), ours(")")}
}

// usedCell lists the messages the capability gates, by sender: "server:
// notifications/tools/list_changed ×2 (lines 7, 9)".
func usedCell(row trace.CapabilityRow) []inline {
	if len(row.Uses) == 0 {
		return []inline{ours("—")}
	}
	bySide := map[spec.Side][]inline{}
	var sides []spec.Side
	for _, u := range row.Uses {
		side := spec.Sender(u.Dir)
		uses, seen := bySide[side]
		if !seen {
			sides = append(sides, side)
		} else {
			uses = append(uses, ours(", "))
		}
		lines := "line"
		if u.Count > 1 {
			lines = "lines"
		}
		bySide[side] = append(uses, code(u.Method), oursf(" ×%d (%s %s)", u.Count, lines, lineList(u.Lines, u.Count)))
	}
	var out []inline
	for i, side := range sides {
		if i > 0 {
			out = append(out, ours("; "))
		}
		out = append(out, ours(side.String()+": "))
		out = append(out, bySide[side]...)
	}
	return out
}

// agreementCell puts declaration and use side by side; a use is "without being
// declared" when the gate judgement said so (CapabilityRow.Undeclared).
func agreementCell(s Session, row trace.CapabilityRow) []inline {
	used := len(row.Uses) > 0
	switch {
	case !row.Defined && row.Declared:
		return []inline{ours("declared, but "), code(orDash(string(s.revision))), ours(" does not define it: the peer will ignore it")}
	case !row.Known && used:
		return []inline{ours("cannot judge")}
	case row.Declared && used:
		return []inline{statusIcon("ok"), ours("used as declared")}
	case row.Declared:
		return []inline{ours("declared, not used in this capture")}
	case row.Undeclared > 0:
		return []inline{statusIcon("error"), strong{[]inline{ours("used without being declared")}}}
	case used:
		return []inline{ours("used, not declared; not judged (see the session's notes)")}
	}
	return nil
}

// lineList renders lines as "8, 11" (with "…" when more were seen than listed).
func lineList(lines []int, count int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	s := strings.Join(parts, ", ")
	if count > len(lines) {
		s += ", …"
	}
	return s
}
