package report

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// textTable is a table of a text view, laid out to fit a width.
type textTable struct {
	header []string
	rows   [][]string
}

func (t *textTable) append(cells ...string) { t.rows = append(t.rows, cells) }

// tableBorders is what the borders and padding of a table of n columns take:
// "│ " before each cell, " " after it, and the closing "│".
func tableBorders(n int) int { return 3*n + 1 }

// columnWidths shares width out among the columns: every column its natural
// width (its widest line) when they all fit; else the narrow columns keep
// theirs and the wide ones share what is left equally, none narrower than the
// longest word of its header.
func columnWidths(natural, floor []int, width int) []int {
	n := len(natural)
	out := append([]int(nil), natural...)
	room := width - tableBorders(n)
	total := 0
	for _, w := range natural {
		total += w
	}
	if total <= room {
		return out
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return natural[order[a]] < natural[order[b]] })
	left := room
	for k, col := range order {
		share := left / (n - k)
		if natural[col] <= share {
			left -= natural[col]
			continue
		}
		// This column and every wider one share what is left.
		rest := order[k:]
		for j, c := range rest {
			w := left / (len(rest) - j)
			out[c] = max(w, floor[c], 1)
			left -= out[c]
		}
		break
	}
	return out
}

// render writes the table so that it fits width columns (as far as the
// headers' words allow): each cell wrapped to its column at word boundaries,
// laid out by tablewriter with those widths.
func (t *textTable) render(b *bytes.Buffer, width int) error {
	n := len(t.header)
	natural, floor := make([]int, n), make([]int, n)
	for i, h := range t.header {
		natural[i] = textWidth(h)
		for _, word := range strings.Fields(h) {
			floor[i] = max(floor[i], textWidth(word))
		}
	}
	for _, row := range t.rows {
		for i, cell := range row {
			for _, line := range strings.Split(cell, "\n") {
				natural[i] = max(natural[i], textWidth(line))
			}
		}
	}
	widths := columnWidths(natural, floor, width)
	mapper := tw.NewMapper[int, int]()
	for i, w := range widths {
		mapper.Set(i, w+2)
	}
	table := tablewriter.NewTable(b,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithColumnWidths(mapper),
	)
	header := make([]string, n)
	for i, h := range t.header {
		header[i] = strings.Join(wrapLine(h, widths[i], ""), "\n")
	}
	table.Header(header)
	for _, row := range t.rows {
		cells := make([]string, n)
		for i, cell := range row {
			var lines []string
			for _, line := range strings.Split(cell, "\n") {
				lines = append(lines, wrapLine(line, widths[i], "")...)
			}
			cells[i] = strings.Join(lines, "\n")
		}
		if err := table.Append(cells); err != nil {
			return fmt.Errorf("mcpsleuth: building a table: %w", err)
		}
	}
	if err := table.Render(); err != nil {
		return fmt.Errorf("mcpsleuth: rendering a table: %w", err)
	}
	return nil
}
