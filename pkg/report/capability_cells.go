package report

import (
	"fmt"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// markup is how a document format writes the pieces of the capability table's
// cells: code, captured text, emphasis. The cells' words are the same in every
// format that has the table (Markdown, HTML).
type markup struct {
	code   func(string) string
	text   func(string) string
	strong func(string) string
}

var (
	markdownMarkup = markup{code: mdCode, text: func(s string) string { return s }, strong: func(s string) string { return "**" + s + "**" }}
	htmlMarkup     = markup{code: htmlCode, text: htmlText, strong: func(s string) string { return "<strong>" + s + "</strong>" }}
)

// declared says whether the row's owner declared the capability, and where.
func (m markup) declared(s Session, row trace.CapabilityRow) string {
	switch {
	case !row.Known:
		return fmt.Sprintf("unknown: the %s's capabilities are not in the capture", row.Side)
	case row.Declared:
		return fmt.Sprintf("%s (%s)", row.Side, m.text(declaredWhere(s, row.Side)))
	}
	return fmt.Sprintf("%s by the %s (%s)", m.strong("not declared"), row.Side, m.text(declaredWhere(s, row.Side)))
}

// used lists the messages the capability gates, by sender: "server:
// notifications/tools/list_changed ×2 (lines 7, 9)".
func (m markup) used(row trace.CapabilityRow) string {
	if len(row.Uses) == 0 {
		return "—"
	}
	bySide := map[spec.Side][]string{}
	var sides []spec.Side
	for _, u := range row.Uses {
		side := spec.Sender(u.Dir)
		if _, ok := bySide[side]; !ok {
			sides = append(sides, side)
		}
		lines := "line"
		if u.Count > 1 {
			lines = "lines"
		}
		bySide[side] = append(bySide[side], fmt.Sprintf("%s ×%d (%s %s)", m.code(u.Method), u.Count, lines, lineList(u.Lines, u.Count)))
	}
	var parts []string
	for _, side := range sides {
		parts = append(parts, side.String()+": "+strings.Join(bySide[side], ", "))
	}
	return strings.Join(parts, "; ")
}

// agreement puts declaration and use side by side.
func (m markup) agreement(s Session, row trace.CapabilityRow) string {
	used := len(row.Uses) > 0
	switch {
	case !row.Defined && row.Declared:
		return "declared, but " + m.code(orDash(string(s.Revision()))) + " does not define it: the peer will ignore it"
	case !row.Known && used:
		return "cannot judge"
	case row.Declared && used:
		return "✅ used as declared"
	case row.Declared:
		return "declared, not used in this capture"
	case used:
		return "❌ " + m.strong("used without being declared")
	}
	return ""
}
