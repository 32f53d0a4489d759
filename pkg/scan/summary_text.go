package scan

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
)

// TextOptions control the text summary.
type TextOptions struct {
	Color bool
	// Width is the terminal width the tables fit (0 = 100).
	Width int
}

// WriteText writes the summary people look at: what was scanned and how fast,
// the findings by rule and severity, the client x server pairs with the rules
// each trips, and the files that could not be read. Captured names are escaped
// (report.Safe); the tables fit opt.Width.
func WriteText(w io.Writer, s *Summary, opt TextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	width := max(opt.Width, 40)
	pal := report.NewPalette(opt.Color)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s  %s, %s, %s, %s\n", pal.Bold("scanned "), quote.Count(s.Files, "file"), quote.Count(s.Sessions, "session"),
		quote.Count(s.Frames, "frame"), megabytes(s.Bytes))
	fmt.Fprintf(&b, "%s  %s, %s, %s\n", pal.Bold("time    "), rounded(s.Wall), throughput(s.Bytes, s.Wall), quote.Count(s.Jobs, "job"))
	fmt.Fprintf(&b, "%s  %s, %s, %s\n", pal.Bold("findings"), pal.Severity(quote.Count(s.Findings["error"], "error")),
		pal.Severity(quote.Count(s.Findings["warning"], "warning")), quote.Count(s.Findings["info"], "info finding"))

	if rules := s.ByRule(); len(rules) > 0 {
		fmt.Fprintf(&b, "\n%s\n", pal.Bold("Findings by rule"))
		t := newTable(&b, width)
		t.Header("RULE", "NAME", "ERROR", "WARNING", "INFO")
		for _, rc := range rules {
			if err := t.Append(rc.Rule, rc.Name, fmt.Sprint(rc.Error), fmt.Sprint(rc.Warning), fmt.Sprint(rc.Info)); err != nil {
				return fmt.Errorf("mcpsleuth: building the rules table: %w", err)
			}
		}
		if err := t.Render(); err != nil {
			return fmt.Errorf("mcpsleuth: rendering the rules table: %w", err)
		}
	}

	if pairs := s.Pairs(); len(pairs) > 0 {
		fmt.Fprintf(&b, "\n%s\n", pal.Bold("Client x server"))
		rows := make([][]string, len(pairs))
		for i, p := range pairs {
			rows[i] = []string{peer(p.ClientName, p.ClientVersion), peer(p.ServerName, p.ServerVersion),
				fmt.Sprint(p.Sessions), fmt.Sprint(p.Flagged), PairRules(p)}
		}
		header := []string{"CLIENT", "SERVER", "SESSIONS", "FLAGGED", "RULES (SESSIONS)"}
		t := newTable(&b, width, fitLast(header, rows, width, width/4)...)
		t.Header(header)
		for _, row := range rows {
			if err := t.Append(row); err != nil {
				return fmt.Errorf("mcpsleuth: building the pairs table: %w", err)
			}
		}
		if err := t.Render(); err != nil {
			return fmt.Errorf("mcpsleuth: rendering the pairs table: %w", err)
		}
	}

	if len(s.Unread) > 0 {
		fmt.Fprintf(&b, "\n%s\n", pal.Bold(fmt.Sprintf("Not read or not judged (%d)", len(s.Unread))))
		rows := make([][]string, len(s.Unread))
		for i, u := range s.Unread {
			rows[i] = []string{report.Safe(u.Path), report.Safe(u.Why)}
		}
		header := []string{"FILE", "WHY"}
		t := newTable(&b, width, fitLast(header, rows, width, width/2)...)
		t.Header(header)
		for _, row := range rows {
			if err := t.Append(row); err != nil {
				return fmt.Errorf("mcpsleuth: building the unread table: %w", err)
			}
		}
		if err := t.Render(); err != nil {
			return fmt.Errorf("mcpsleuth: rendering the unread table: %w", err)
		}
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the summary: %w", err)
	}
	return nil
}

// PairRules is the rules column of a pair: "MCP2002:3, MCP3001:1", each rule
// with the number of the pair's sessions it fired in, by rule ID ("-" for none).
func PairRules(p Pair) string {
	ids := p.RuleIDs()
	if len(ids) == 0 {
		return "-"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s:%d", id, p.Rules[id])
	}
	return strings.Join(parts, ", ")
}

func newTable(b *bytes.Buffer, width int, more ...tablewriter.Option) *tablewriter.Table {
	return tablewriter.NewTable(b, append([]tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithMaxWidth(width),
	}, more...)...)
}

// fitLast sizes a table's columns to the terminal: every column but the last as
// wide as its widest cell (at most widest), the last one the rest, so that the
// table uses the width it has; cells wider than their column are wrapped.
func fitLast(header []string, rows [][]string, width, widest int) []tablewriter.Option {
	n := len(header)
	widths := tw.NewMapper[int, int]()
	// A column's width counts its padding (a space each side); the borders are
	// one column each, n+1 in all.
	used := n + 1
	for col := 0; col < n-1; col++ {
		w := displayWidth(header[col])
		for _, row := range rows {
			w = max(w, displayWidth(row[col]))
		}
		w = min(w+2, max(widest, 10))
		widths.Set(col, w)
		used += w
		for _, row := range rows {
			row[col] = breakWords(row[col], w-2)
		}
	}
	last := displayWidth(header[n-1])
	for _, row := range rows {
		last = max(last, displayWidth(row[n-1]))
	}
	w := max(min(last+2, width-used), 14)
	widths.Set(n-1, w)
	for _, row := range rows {
		row[n-1] = breakWords(row[n-1], w-2)
	}
	// Cells of several lines: a line between rows says where each row ends.
	between := tw.Rendition{Settings: tw.Settings{Separators: tw.Separators{BetweenRows: tw.On}}}
	return []tablewriter.Option{tablewriter.WithColumnWidths(widths), tablewriter.WithRendition(between)}
}

// displayWidth is the width of a cell: that of its longest line.
func displayWidth(s string) int {
	w := 0
	for _, line := range strings.Split(s, "\n") {
		w = max(w, utf8.RuneCountInString(line))
	}
	return w
}

// breakWords cuts the words of s longer than w into lines of w characters, so
// that the table wraps them instead of cutting them off.
func breakWords(s string, w int) string {
	if w < 1 || displayWidth(s) <= w {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		words := strings.Split(line, " ")
		for j, word := range words {
			r := []rune(word)
			if len(r) <= w {
				continue
			}
			var parts []string
			for len(r) > w {
				parts = append(parts, string(r[:w]))
				r = r[w:]
			}
			words[j] = strings.Join(append(parts, string(r)), "\n")
		}
		lines[i] = strings.Join(words, " ")
	}
	return strings.Join(lines, "\n")
}

// peer names an implementation on two lines, name then version.
func peer(name, version string) string {
	if name == "" && version == "" {
		return "(unknown)"
	}
	return strings.TrimSpace(report.Safe(name) + "\n" + report.Safe(version))
}

func megabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

func throughput(n int64, wall time.Duration) string {
	sec := wall.Seconds()
	if sec <= 0 {
		return "- MB/s"
	}
	return fmt.Sprintf("%.1f MB/s", float64(n)/1e6/sec)
}

// rounded rounds a wall time for people: milliseconds below 10 s, then 10 ms.
func rounded(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}
