package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
)

// ScanTextOptions control the text summary.
type ScanTextOptions struct {
	Color bool
	// Width is the terminal width the tables fit (0 = 100).
	Width int
}

// WriteScanSummary writes the summary people look at: what was scanned and how fast,
// the findings by rule and severity, the client x server pairs with the rules
// each trips, and the files that could not be read. Captured names are escaped
// (Safe); the tables fit opt.Width.
func WriteScanSummary(w io.Writer, s *ScanSummary, opt ScanTextOptions) error {
	if opt.Width <= 0 {
		opt.Width = 100
	}
	width := max(opt.Width, 40)
	pal := newPalette(opt.Color)
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s  %s, %s, %s, %s\n", pal.bold("scanned "), quote.Count(s.Files, "file"), quote.Count(s.sessions, "session"),
		quote.Count(s.frames, "frame"), scanMegabytes(s.bytes))
	fmt.Fprintf(&b, "%s  %s, %s, %s\n", pal.bold("time    "), scanRounded(s.Wall), scanThroughput(s.bytes, s.Wall), quote.Count(s.Jobs, "job"))
	fmt.Fprintf(&b, "%s  %s, %s, %s\n", pal.bold("findings"), pal.severity(quote.Count(s.findings["error"], "error")),
		pal.severity(quote.Count(s.findings["warning"], "warning")), quote.Count(s.findings["info"], "info finding"))

	if rules := s.byRule(); len(rules) > 0 {
		fmt.Fprintf(&b, "\n%s\n", pal.bold("Findings by rule"))
		rows := make([][]string, len(rules))
		for i, rc := range rules {
			rows[i] = []string{rc.Rule, rc.Name, fmt.Sprint(rc.Error), fmt.Sprint(rc.Warning), fmt.Sprint(rc.Info)}
		}
		if err := writeTable(&b, []string{"RULE", "NAME", "ERROR", "WARNING", "INFO"}, rows, width, false); err != nil {
			return fmt.Errorf("mcpsleuth: the rules table: %w", err)
		}
	}

	if pairs := s.pairs(); len(pairs) > 0 {
		fmt.Fprintf(&b, "\n%s\n", pal.bold("Client x server"))
		rows := make([][]string, len(pairs))
		for i, p := range pairs {
			rows[i] = []string{scanPeer(p.ClientName, p.ClientVersion), scanPeer(p.ServerName, p.ServerVersion),
				fmt.Sprint(p.Sessions), fmt.Sprint(p.Flagged), scanPairRules(p)}
		}
		header := []string{"CLIENT", "SERVER", "SESSIONS", "FLAGGED", "RULES (SESSIONS)"}
		if err := writeTable(&b, header, rows, width, true); err != nil {
			return fmt.Errorf("mcpsleuth: the pairs table: %w", err)
		}
	}

	if servers := s.serverRows(); len(servers) > 0 {
		fmt.Fprintf(&b, "\n%s\n", pal.bold("Connections client logs tell of, by server"))
		rows := make([][]string, len(servers))
		for i, sv := range servers {
			rows[i] = []string{Safe(sv.Name), fmt.Sprint(sv.Logs), fmt.Sprint(sv.Connected), fmt.Sprint(sv.Failed), Safe(countList(sv.Causes)),
				Safe(strings.Join(sortedKeys(sv.Seen), "; "))}
		}
		header := []string{"SERVER", "LOGS", "CONNECTED", "FAILED", "FAILURES BY CAUSE", "SERVER AND REVISION AGREED"}
		if err := writeTable(&b, header, rows, width, true); err != nil {
			return fmt.Errorf("mcpsleuth: the servers table: %w", err)
		}
	}

	var costRows [][]string
	for _, sv := range s.cost.Servers() {
		calls, failed := 0, 0
		var costliest []string
		for _, t := range sv.Tools {
			calls += t.Calls
			failed += t.RPCErrors + t.ToolErrors
			if len(costliest) < 3 && t.DefinitionTokens > 0 {
				costliest = append(costliest, Safe(t.Name)+" "+fmt.Sprint(t.DefinitionTokens))
			}
		}
		if calls == 0 && sv.DefinitionTokens == 0 && sv.InstructionsTokens == 0 {
			continue // nothing listed, said or called: nothing to weigh
		}
		costRows = append(costRows, []string{scanPeer(sv.Name, sv.Version), fmt.Sprint(sv.Sessions), fmt.Sprint(sv.InstructionsTokens),
			fmt.Sprint(sv.DefinitionTokens), fmt.Sprint(calls), fmt.Sprint(failed), strings.Join(costliest, ", ")})
	}
	if len(costRows) > 0 {
		fmt.Fprintf(&b, "\n%s\n", pal.bold("What the sessions cost, by server"))
		b.WriteString("tokens paid on every turn: INSTR instructions, DEFS tool definitions\n")
		header := []string{"SERVER", "SESSIONS", "INSTR", "DEFS", "CALLS", "FAILED", "COSTLIEST DEFINITIONS"}
		if err := writeTable(&b, header, costRows, width, true); err != nil {
			return fmt.Errorf("mcpsleuth: the cost table: %w", err)
		}
	}

	if len(s.Unread) > 0 {
		fmt.Fprintf(&b, "\n%s\n", pal.bold(fmt.Sprintf("Not read or not judged (%d)", len(s.Unread))))
		rows := make([][]string, len(s.Unread))
		for i, u := range s.Unread {
			rows[i] = []string{Safe(u.path), Safe(u.why)}
		}
		if err := writeTable(&b, []string{"FILE", "WHY"}, rows, width, true); err != nil {
			return fmt.Errorf("mcpsleuth: the unread table: %w", err)
		}
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the summary: %w", err)
	}
	return nil
}

// scanPairRules is the rules column of a pair: "MCP2002:3, MCP3001:1", each rule
// with the number of the pair's sessions it fired in, by rule ID ("-" for none).
func scanPairRules(p scanPair) string {
	ids := p.ruleIDs()
	if len(ids) == 0 {
		return "-"
	}
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s:%d", id, p.Rules[id])
	}
	return strings.Join(parts, ", ")
}

// scanPeer names an implementation on two lines, name then version.
func scanPeer(name, version string) string {
	if name == "" && version == "" {
		return "(unknown)"
	}
	return strings.TrimSpace(Safe(name) + "\n" + Safe(version))
}

func scanMegabytes(n int64) string {
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}

func scanThroughput(n int64, wall time.Duration) string {
	sec := wall.Seconds()
	if sec <= 0 {
		return "- MB/s"
	}
	return fmt.Sprintf("%.1f MB/s", float64(n)/1e6/sec)
}

// scanRounded rounds a wall time for people: milliseconds below 10 s, then 10 ms.
func scanRounded(d time.Duration) time.Duration {
	if d < 10*time.Second {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Millisecond)
}

// countList writes counts by name, the most frequent first: "timeout ×3, authorization ×1".
func countList(counts map[string]int) string {
	names := sortedKeys(counts)
	slices.SortStableFunc(names, func(a, b string) int { return cmp.Compare(counts[b], counts[a]) })
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s ×%d", n, counts[n])
	}
	return strings.Join(parts, ", ")
}

// sortedKeys lists a map's keys in byte order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
