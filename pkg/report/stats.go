package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Stats adds up what sessions cost (trace.NewAccounting), per server implementation
// and version and per tool: what `mcpsleuth stats` shows. Nothing in it is judged
// again: it sums the accounts the analysis computed.
type Stats struct {
	servers map[statsServerKey]*StatsServer
	timed   bool
}

type statsServerKey struct{ name, version string }

// StatsServer is one server implementation and version across the sessions.
type StatsServer struct {
	Name    string `json:"server"`
	Version string `json:"version"`
	// Sessions, Frames and Bytes add up the sessions; InstructionsTokens and
	// DefinitionTokens are what the latest session carried on every turn.
	Sessions           int   `json:"sessions"`
	Frames             int   `json:"frames"`
	Bytes              int64 `json:"bytes"`
	InstructionsTokens int   `json:"instructionsTokens"`
	DefinitionTokens   int   `json:"definitionTokens"`
	// ListsReplaced counts the tool lists that replaced an earlier one in a
	// session (after list_changed); ToolsAdded and ToolsRemoved the names they
	// brought and took away; FirstDefinitionTokens what the first list of the
	// latest session that replaced one took.
	ListsReplaced         int `json:"listsReplaced"`
	ToolsAdded            int `json:"toolsAdded"`
	ToolsRemoved          int `json:"toolsRemoved"`
	FirstDefinitionTokens int `json:"firstDefinitionTokens,omitempty"`
	// LongestSession is the longest session's span; Waiting the time the
	// sessions' tool calls and prompts took to be answered, added up (in
	// milliseconds; 0 without times).
	LongestSessionMs float64      `json:"longestSessionMs"`
	WaitingMs        float64      `json:"waitingMs"`
	Tools            []*StatsTool `json:"tools"`
	Prompts          []*StatsTool `json:"prompts"`
	tools, prompts   map[string]*StatsTool
}

// StatsTool is one tool of a server across the sessions.
type StatsTool struct {
	Name             string `json:"tool"`
	Calls            int    `json:"calls"`
	RPCErrors        int    `json:"rpcErrors"`
	ToolErrors       int    `json:"isErrors"`
	Cancelled        int    `json:"cancelled"`
	Unanswered       int    `json:"unanswered"`
	ArgBytes         int64  `json:"argumentBytes"`
	ResultBytes      int64  `json:"resultBytes"`
	LargestResult    int64  `json:"largestResult"`
	Base64Bytes      int64  `json:"base64Bytes"`
	DefinitionTokens int    `json:"definitionTokens"`
	// P50, P95 and Max are the latencies in milliseconds (nil: none measured).
	P50       *float64 `json:"p50ms,omitempty"`
	P95       *float64 `json:"p95ms,omitempty"`
	Max       *float64 `json:"maxms,omitempty"`
	latencies []time.Duration
}

// maxStatsLatencies bounds the latencies kept per tool across sessions.
const maxStatsLatencies = 1_000_000

// NewStats starts an empty table.
func NewStats() *Stats { return &Stats{servers: map[statsServerKey]*StatsServer{}} }

// Add adds one session's account.
func (st *Stats) Add(a *trace.Account) {
	if a == nil {
		return
	}
	sv := st.server(a.Server.Name, a.Server.Version)
	st.timed = st.timed || a.Timed
	sv.Sessions++
	sv.Frames += a.Frames
	sv.Bytes += a.Bytes
	if a.InstructionsTokens > 0 {
		sv.InstructionsTokens = a.InstructionsTokens
	}
	listed := 0
	for name, t := range a.Tools {
		sv.tool(name, false).add(toolOf(t), t.Listed)
		if t.Listed {
			listed += t.DefinitionTokens
		}
	}
	for name, t := range a.Prompts {
		sv.tool(name, true).add(toolOf(t), t.Listed)
	}
	if listed > 0 {
		sv.DefinitionTokens = listed
	}
	sv.ListsReplaced += a.ListsReplaced
	sv.ToolsAdded += a.ToolsAdded
	sv.ToolsRemoved += a.ToolsRemoved
	if a.ListsReplaced > 0 {
		sv.FirstDefinitionTokens = a.FirstDefinitionTokens
	}
	sv.LongestSessionMs = max(sv.LongestSessionMs, ms(a.Duration))
	var waiting time.Duration // added up whole: a sum of floats in map order changed its last digits run to run
	for _, of := range []map[string]*trace.ToolAccount{a.Tools, a.Prompts} {
		for _, t := range of {
			for _, d := range t.Latencies {
				waiting += d
			}
		}
	}
	sv.WaitingMs += ms(waiting)
}

// toolOf is a session's tally of a tool as the table adds it up.
func toolOf(t *trace.ToolAccount) *StatsTool {
	return &StatsTool{Calls: t.Calls, RPCErrors: t.RPCErrors, ToolErrors: t.ToolErrors, Cancelled: t.Cancelled,
		Unanswered: t.Unanswered, ArgBytes: t.ArgBytes, ResultBytes: t.ResultBytes, LargestResult: t.LargestResult,
		Base64Bytes: t.Base64Bytes, DefinitionTokens: t.DefinitionTokens, latencies: t.Latencies}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Merge adds another table's figures to st (a scan adds each file's up).
func (st *Stats) Merge(o *Stats) {
	if o == nil {
		return
	}
	st.timed = st.timed || o.timed
	for _, osv := range o.servers {
		sv := st.server(osv.Name, osv.Version)
		sv.Sessions += osv.Sessions
		sv.Frames += osv.Frames
		sv.Bytes += osv.Bytes
		if osv.InstructionsTokens > 0 {
			sv.InstructionsTokens = osv.InstructionsTokens
		}
		if osv.DefinitionTokens > 0 {
			sv.DefinitionTokens = osv.DefinitionTokens
		}
		for name, ot := range osv.tools {
			sv.tool(name, false).add(ot, ot.DefinitionTokens > 0)
		}
		for name, ot := range osv.prompts {
			sv.tool(name, true).add(ot, ot.DefinitionTokens > 0)
		}
		sv.ListsReplaced += osv.ListsReplaced
		sv.ToolsAdded += osv.ToolsAdded
		sv.ToolsRemoved += osv.ToolsRemoved
		if osv.FirstDefinitionTokens > 0 {
			sv.FirstDefinitionTokens = osv.FirstDefinitionTokens
		}
		sv.LongestSessionMs = max(sv.LongestSessionMs, osv.LongestSessionMs)
		sv.WaitingMs += osv.WaitingMs
	}
}

// server is the table's server of that name and version, made when new.
func (st *Stats) server(name, version string) *StatsServer {
	key := statsServerKey{name, version}
	sv := st.servers[key]
	if sv == nil {
		sv = &StatsServer{Name: name, Version: version, tools: map[string]*StatsTool{}, prompts: map[string]*StatsTool{}}
		st.servers[key] = sv
	}
	return sv
}

// tool is the server's tool (or prompt) of that name, made when new.
func (sv *StatsServer) tool(name string, prompt bool) *StatsTool {
	of := sv.tools
	if prompt {
		of = sv.prompts
	}
	t := of[name]
	if t == nil {
		t = &StatsTool{Name: name}
		of[name] = t
	}
	return t
}

// add adds another tally of the tool; listed says its definition counts (the
// latest listing's).
func (t *StatsTool) add(o *StatsTool, listed bool) {
	t.Calls += o.Calls
	t.RPCErrors += o.RPCErrors
	t.ToolErrors += o.ToolErrors
	t.Cancelled += o.Cancelled
	t.Unanswered += o.Unanswered
	t.ArgBytes += o.ArgBytes
	t.ResultBytes += o.ResultBytes
	t.LargestResult = max(t.LargestResult, o.LargestResult)
	t.Base64Bytes += o.Base64Bytes
	if listed {
		t.DefinitionTokens = o.DefinitionTokens
	}
	if room := maxStatsLatencies - len(t.latencies); room > 0 {
		t.latencies = append(t.latencies, o.latencies[:min(room, len(o.latencies))]...)
	}
}

// Servers lists the servers, the costliest context first, with their tools
// sorted the same way (then by calls, then by name), latencies summed up.
func (st *Stats) Servers() []*StatsServer {
	out := make([]*StatsServer, 0, len(st.servers))
	for _, sv := range st.servers {
		sv.Tools, sv.Prompts = sortedTools(sv.Tools, sv.tools), sortedTools(sv.Prompts, sv.prompts)
		out = append(out, sv)
	}
	slices.SortFunc(out, func(a, b *StatsServer) int {
		return cmp.Or(cmp.Compare(b.InstructionsTokens+b.DefinitionTokens, a.InstructionsTokens+a.DefinitionTokens),
			cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version))
	})
	return out
}

// sortedTools lists tools with their latencies summed up, the costliest
// definition first (then by calls, then by name), in into's memory.
func sortedTools(into []*StatsTool, tools map[string]*StatsTool) []*StatsTool {
	into = append(into[:0:0], make([]*StatsTool, 0, len(tools))...) // [] in JSON when none
	into = into[:0]
	for _, t := range tools {
		t.P50, t.P95, t.Max = percentile(t.latencies, 50), percentile(t.latencies, 95), percentile(t.latencies, 100)
		into = append(into, t)
	}
	slices.SortFunc(into, func(a, b *StatsTool) int {
		return cmp.Or(cmp.Compare(b.DefinitionTokens, a.DefinitionTokens), cmp.Compare(b.Calls, a.Calls), cmp.Compare(a.Name, b.Name))
	})
	return into
}

// percentile is the p-th percentile of ds in milliseconds, by the nearest rank
// (nil when ds is empty); ds is sorted in place.
func percentile(ds []time.Duration, p int) *float64 {
	if len(ds) == 0 {
		return nil
	}
	slices.Sort(ds)
	rank := (p*len(ds) + 99) / 100 // ceil(p/100 * n)
	ms := float64(ds[max(rank, 1)-1]) / float64(time.Millisecond)
	return &ms
}

// WriteStatsJSON writes the table as JSON: {"servers":[...], "timed": bool}.
func WriteStatsJSON(w io.Writer, st *Stats) error {
	doc := struct {
		Encoding string         `json:"encoding"`
		Timed    bool           `json:"timed"`
		Servers  []*StatsServer `json:"servers"`
	}{Encoding: "o200k_base", Timed: st.timed, Servers: st.Servers()}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("mcpsleuth: the stats: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteStatsText writes the table people read: per server what it carries on
// every turn, then its tools, the costliest definition first.
func WriteStatsText(w io.Writer, st *Stats, width int) error {
	if width <= 0 {
		width = 80
	}
	var b bytes.Buffer
	servers := st.Servers()
	if len(servers) == 0 {
		b.WriteString("no session in the input\n")
	}
	for i, sv := range servers {
		if i > 0 {
			b.WriteByte('\n')
		}
		name := Safe(strings.TrimSpace(sv.Name + " " + sv.Version))
		if name == "" {
			name = "(server unknown)"
		}
		fmt.Fprintf(&b, "%s: %s, %s, %s\n", name, quote.Count(sv.Sessions, "session"), quote.Count(sv.Frames, "frame"), scanMegabytes(sv.Bytes))
		fmt.Fprintf(&b, "  paid on every turn: instructions %s, tool definitions %s\n",
			quote.Count(sv.InstructionsTokens, "token"), quote.Count(sv.DefinitionTokens, "token"))
		for _, line := range serverNotes(sv) {
			b.WriteString("  " + line + "\n")
		}
		for _, part := range []struct {
			title string
			tools []*StatsTool
		}{{"TOOL", sv.Tools}, {"PROMPT", sv.Prompts}} {
			if len(part.tools) == 0 {
				continue
			}
			rows := make([][]string, len(part.tools))
			for j, t := range part.tools {
				rows[j] = []string{Safe(t.Name), fmt.Sprint(t.DefinitionTokens), fmt.Sprint(t.Calls), fmt.Sprint(t.RPCErrors + t.ToolErrors),
					fmt.Sprint(t.Cancelled + t.Unanswered), millis(t.P50), millis(t.P95), millis(t.Max)}
			}
			// Bytes are in the JSON and JSONL outputs: the text keeps to 80 columns.
			header := []string{part.title, "TOKENS", "CALLS", "FAILED", "NO REPLY", "P50", "P95", "MAX"}
			if err := writeTable(&b, header, rows, width, false); err != nil {
				return fmt.Errorf("mcpsleuth: the stats table: %w", err)
			}
		}
	}
	if len(servers) > 0 {
		b.WriteString("\ntokens: o200k_base, counted offline; a model's own tokenizer may count otherwise\n")
	}
	if len(servers) > 0 && !st.timed {
		b.WriteString("latencies: the capture has no times\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// serverNotes say, under a server's line, what its tool lists and its waits
// were: lists replaced (and what that changed), the longest session, the time
// spent waiting on its tools and prompts.
func serverNotes(sv *StatsServer) []string {
	var notes []string
	if sv.ListsReplaced > 0 {
		notes = append(notes, fmt.Sprintf("the tool list was replaced %s (+%d, -%d tools; %d tokens before, %d after)",
			quote.Count(sv.ListsReplaced, "time"), sv.ToolsAdded, sv.ToolsRemoved, sv.FirstDefinitionTokens, sv.DefinitionTokens))
	}
	if sv.LongestSessionMs > 0 || sv.WaitingMs > 0 {
		longest, waiting := sv.LongestSessionMs, sv.WaitingMs
		notes = append(notes, fmt.Sprintf("longest session %s; waiting on tools and prompts %s in all", millis(&longest), millis(&waiting)))
	}
	return notes
}

// millis writes a latency in milliseconds ("-" when none was measured).
func millis(ms *float64) string {
	if ms == nil {
		return "-"
	}
	d := time.Duration(*ms * float64(time.Millisecond))
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// statsRow is one tool (or prompt) of one capture, a line of stats --format
// jsonl; the name is under "tool" for both, Kind says which.
type statsRow struct {
	Capture string `json:"capture"`
	Server  string `json:"server"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	*StatsTool
	Encoding string `json:"encoding"`
}

// WriteStatsJSONL writes one JSON line per tool and prompt of the capture's
// table, for a warehouse: the capture, the server and version, the kind, the
// figures.
func WriteStatsJSONL(w io.Writer, capture string, st *Stats) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, sv := range st.Servers() {
		for _, part := range []struct {
			kind  string
			tools []*StatsTool
		}{{"tool", sv.Tools}, {"prompt", sv.Prompts}} {
			for _, t := range part.tools {
				if err := enc.Encode(statsRow{Capture: capture, Server: sv.Name, Version: sv.Version, Kind: part.kind, StatsTool: t, Encoding: "o200k_base"}); err != nil {
					return fmt.Errorf("mcpsleuth: the stats of %s: %w", capture, err)
				}
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}
