package report

import (
	"fmt"
	"io"
	"strings"
)

// WriteExplainText writes the text of `mcpsleuth explain` (rules.Explain)
// wrapped to width at word boundaries: prose keeps its indent, a frame of an
// example ("c->s {...}", broken after a comma) continues under its message, a
// specification reference ("URL  what it says") and the heading hang by two.
func WriteExplainText(w io.Writer, text string, width int) error {
	var b strings.Builder
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		trimmed := strings.TrimLeft(line, " ")
		indent := line[:len(line)-len(trimmed)]
		more := ""
		switch {
		case indent == "":
			more = "  "
		case strings.HasPrefix(trimmed, "c->s ") || strings.HasPrefix(trimmed, "s->c ") || strings.HasPrefix(trimmed, "?->? "):
			more = "     "
		case strings.HasPrefix(trimmed, "https://") || strings.HasPrefix(trimmed, "http://") || strings.HasPrefix(trimmed, "# "):
			more = "  "
		}
		b.WriteString(strings.Join(wrapLine(line, width, indent+more), "\n"))
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the explanation: %w", err)
	}
	return nil
}

// WrapColumns wraps a row of two columns to width: the lead (padded to its
// column, as the caller laid it out) and the text, whose continuation lines
// start under it; when that would leave the text fewer than 30 columns, the
// text goes on the lines under the lead. The lines end with a newline.
func WrapColumns(lead, text string, width int) string {
	var b strings.Builder
	for _, l := range columnLines(lead, text, width) {
		b.WriteString(l)
		b.WriteString("\n")
	}
	return b.String()
}

func columnLines(lead, text string, width int) []string {
	lw := textWidth(lead)
	if lw+textWidth(text) <= width {
		return []string{strings.TrimRight(lead+text, " ")}
	}
	if lw <= width-30 {
		return wrapLine(lead+text, width, strings.Repeat(" ", lw))
	}
	return append(wrapLine(strings.TrimRight(lead, " "), width, "    "), wrapLine("      "+text, width, "      ")...)
}
