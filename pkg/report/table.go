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
	// between draws a line between rows (for cells of several lines).
	between bool
}

// writeTable writes a table of a text view that fits width columns: each cell
// wrapped to its column at word boundaries (long names break after a slash,
// dot or hyphen), the columns sized as the findings table's are; between draws
// a line between the rows.
func writeTable(b *bytes.Buffer, header []string, rows [][]string, width int, between bool) error {
	t := textTable{header: header, rows: rows, between: between}
	return t.render(b, width)
}

func (t *textTable) append(cells ...string) { t.rows = append(t.rows, cells) }

// tableBorders is what the borders and padding of a table of n columns take:
// "│ " before each cell, " " after it, and the closing "│".
func tableBorders(n int) int { return 3*n + 1 }

// columnWidths shares width out among the columns: every column its natural
// width (its widest line) when they all fit; else each column starts at its
// floor (the longest piece of its text that cannot be broken, when the floors
// all fit; else the longest word of its header) and the room left is handed out
// a column at a time to the columns still narrower than their natural width,
// so that narrow columns keep theirs and the wide ones share the rest equally.
func columnWidths(natural, floor, unbroken []int, width int) []int {
	n := len(natural)
	room := width - tableBorders(n)
	total := 0
	for _, w := range natural {
		total += w
	}
	if total <= room {
		return append([]int(nil), natural...)
	}
	out := make([]int, n)
	floors := 0
	for i := range out {
		out[i] = min(max(floor[i], unbroken[i], 1), natural[i])
		floors += out[i]
	}
	if floors > room {
		floors = 0
		for i := range out {
			out[i] = min(max(floor[i], 1), natural[i])
			floors += out[i]
		}
	}
	// The columns closest to their natural width get it first while it is no
	// more than an equal share; the others share the rest a column at a time.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		return natural[order[a]]-out[order[a]] < natural[order[b]]-out[order[b]]
	})
	left := room - floors
	for k, col := range order {
		if need := natural[col] - out[col]; need <= left/(n-k) {
			out[col] += need
			left -= need
			continue
		}
		rest := order[k:]
		for left > 0 {
			for _, c := range rest {
				if left > 0 && out[c] < natural[c] {
					out[c]++
					left--
				}
			}
		}
		break
	}
	return out
}

// longestPiece is the width of the longest part of text that wrapLine cannot
// break without cutting a word: the runs between spaces, split after the
// punctuation breakWord breaks at.
func longestPiece(text string) int {
	longest := 0
	for _, word := range strings.Fields(text) {
		start := 0
		for i, r := range word {
			if strings.ContainsRune(",/.:&=-", r) {
				longest = max(longest, textWidth(word[start:i+1]))
				start = i + 1
			}
		}
		longest = max(longest, textWidth(word[start:]))
	}
	return longest
}

// render writes the table so that it fits width columns (as far as the
// headers' words allow): each cell wrapped to its column at word boundaries,
// laid out by tablewriter with those widths.
func (t *textTable) render(b *bytes.Buffer, width int) error {
	n := len(t.header)
	natural, floor, unbroken := make([]int, n), make([]int, n), make([]int, n)
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
				unbroken[i] = max(unbroken[i], longestPiece(line))
			}
		}
	}
	widths := columnWidths(natural, floor, unbroken, width)
	mapper := tw.NewMapper[int, int]()
	for i, w := range widths {
		mapper.Set(i, w+2)
	}
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithColumnWidths(mapper),
	}
	if t.between {
		opts = append(opts, tablewriter.WithRendition(tw.Rendition{Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}}}))
	}
	table := tablewriter.NewTable(b, opts...)
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
