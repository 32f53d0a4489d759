package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
)

// The stats report in Markdown and HTML: one document (document.go), per server
// what it carries on every turn, a bar chart of that context cost per tool and
// a latency distribution (inline SVG in HTML; Markdown has the table), and the
// table of its tools with every figure.

// costChart is a server's context cost per tool, the instructions first: bars
// of inline SVG in HTML, nothing in Markdown (its table has the figures).
type costChart struct{ server *StatsServer }

// latencyChart is the distribution of a server's latencies over the buckets of
// latencyBuckets: bars of inline SVG in HTML, nothing in Markdown.
type latencyChart struct{ server *StatsServer }

func (costChart) isBlock()    {}
func (latencyChart) isBlock() {}

// statsDocument is the stats report as a document.
func statsDocument(st *Stats) document {
	doc := document{title: "what sessions cost"}
	doc.blocks = append(doc.blocks, heading{1, []inline{ours("mcpsleuth stats: what sessions cost")}})
	doc.blocks = append(doc.blocks, costBlocks(st, 2, true)...)
	return doc
}

// costBlocks are what sessions cost, per server (headings at level): what it
// carries on every turn, the charts, the table of its tools, and the notes. A
// full table has the bytes too (stats); the reports' keeps to what fits a page.
func costBlocks(st *Stats, level int, full bool) []block {
	var blocks []block
	servers := st.Servers()
	if len(servers) == 0 {
		blocks = append(blocks, para(ours("No session in the input.")))
	}
	for _, sv := range servers {
		name := strings.TrimSpace(sv.Name + " " + sv.Version)
		if name == "" {
			name = "(server unknown)"
		}
		blocks = append(blocks,
			heading{level, []inline{captured(name)}},
			para(oursf("%s, %s, %s. Paid on every turn: instructions %s, tool definitions %s.",
				quote.Count(sv.Sessions, "session"), quote.Count(sv.Frames, "frame"), scanMegabytes(sv.Bytes),
				quote.Count(sv.InstructionsTokens, "token"), quote.Count(sv.DefinitionTokens, "token"))))
		for _, note := range serverNotes(sv) {
			blocks = append(blocks, para(ours(strings.ToUpper(note[:1])+note[1:]+".")))
		}
		if len(sv.Tools) > 0 {
			blocks = append(blocks, costChart{sv})
		}
		if latencyCount(sv) > 0 {
			blocks = append(blocks, latencyChart{sv})
		}
		blocks = append(blocks, toolTable("tool", sv.Tools, full)...)
		blocks = append(blocks, toolTable("prompt", sv.Prompts, full)...)
	}
	if len(servers) > 0 {
		notes := "Errors: answered with a JSON-RPC error; isError: a result with isError true; no reply: never answered. "
		if full {
			notes += "Bytes of the calls' arguments and results; base64: of the results' image and audio data and embedded blobs. "
		}
		notes += "Tokens: o200k_base, counted offline; a model's own tokenizer may count otherwise."
		if !st.timed {
			notes += " Latencies: the capture has no times."
		}
		blocks = append(blocks, paragraph{aside: true, content: []inline{ours(notes)}})
	}
	return blocks
}

// toolTable is the table of a server's tools (or prompts), every figure in a
// full one; none when there are none.
func toolTable(kind string, tools []*StatsTool, full bool) []block {
	if len(tools) == 0 {
		return nil
	}
	t := table{attrs: []attr{class("stats")}, columns: []column{
		{title: kind}, {title: "tokens", numeric: true}, {title: "calls", numeric: true},
		{title: "errors", numeric: true}, {title: "isError", numeric: true}, {title: "cancelled", numeric: true},
		{title: "no reply", numeric: true}, {title: "p50", numeric: true}, {title: "p95", numeric: true}, {title: "max", numeric: true},
	}}
	if full {
		t.columns = append(t.columns, column{title: "args B", numeric: true}, column{title: "results B", numeric: true},
			column{title: "largest B", numeric: true}, column{title: "base64 B", numeric: true})
	}
	for _, tl := range tools {
		cells := []tableCell{
			cellOf(captured(tl.Name)), cellOf(oursf("%d", tl.DefinitionTokens)), cellOf(oursf("%d", tl.Calls)),
			cellOf(oursf("%d", tl.RPCErrors)), cellOf(oursf("%d", tl.ToolErrors)), cellOf(oursf("%d", tl.Cancelled)),
			cellOf(oursf("%d", tl.Unanswered)), cellOf(ours(millis(tl.P50))), cellOf(ours(millis(tl.P95))), cellOf(ours(millis(tl.Max))),
		}
		if full {
			cells = append(cells, cellOf(oursf("%d", tl.ArgBytes)), cellOf(oursf("%d", tl.ResultBytes)), cellOf(oursf("%d", tl.LargestResult)),
				cellOf(oursf("%d", tl.Base64Bytes)))
		}
		t.rows = append(t.rows, row{cells: cells})
	}
	return []block{t}
}

// costSection is the reports' section of what the sessions cost (the
// accounts the trace kept, Needs.Cost): none when no session listed a tool or
// carried instructions.
func costSection(r *Report) []block {
	st := NewStats()
	worth := false
	for _, s := range r.Sessions {
		if s.Trace == nil || s.Trace.Account == nil {
			continue
		}
		a := s.Trace.Account
		st.Add(a)
		worth = worth || len(a.Tools) > 0 || a.InstructionsTokens > 0
	}
	if !worth {
		return nil
	}
	return append([]block{heading{2, []inline{ours("What the sessions cost")}},
		para(ours("What each server's instructions and tool definitions take in the model's context on every turn, and how its tools answered (as "), code("mcpsleuth stats"), ours(" shows it)."))},
		costBlocks(st, 3, false)...)
}

// WriteStatsMarkdown writes the stats report in Markdown.
func WriteStatsMarkdown(w io.Writer, st *Stats) error {
	var b strings.Builder
	writeMarkdownBlocks(&b, statsDocument(st).blocks)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the stats: %w", err)
	}
	return nil
}

// WriteStatsHTML writes the stats report as one self-contained HTML page (no
// script; the style inline, allowed by its hash; nothing loaded).
func WriteStatsHTML(w io.Writer, st *Stats, version string) error {
	doc := statsDocument(st)
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", htmlText(diffPolicy()))
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n")
	fmt.Fprintf(&b, "<title>mcpsleuth stats: %s</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", htmlText(doc.title), htmlStyle)
	writeHTMLBlocks(&b, doc.blocks)
	b.WriteString("</main>\n<footer>Written by mcpsleuth " + htmlText(version) + ". This page loads nothing: its style is inline, and its Content-Security-Policy forbids every other load.</footer>\n</body>\n</html>\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the stats: %w", err)
	}
	return nil
}

// Chart geometry.
const (
	chartWidth   = 720
	chartLabel   = 240 // the labels' column
	chartRow     = 20
	chartMaxRows = 40
	chartBar     = "#4a7bd0"
	chartAlt     = "#d0884a"
)

// writeCostChart draws a server's context cost: a bar per tool definition (and
// one for the instructions), as long as its tokens.
func writeCostChart(b *strings.Builder, sv *StatsServer) {
	type bar struct {
		label  string
		tokens int
		fill   string
	}
	var bars []bar
	if sv.InstructionsTokens > 0 {
		bars = append(bars, bar{"instructions", sv.InstructionsTokens, chartAlt})
	}
	for _, t := range sv.Tools {
		if t.DefinitionTokens > 0 {
			bars = append(bars, bar{t.Name, t.DefinitionTokens, chartBar})
		}
	}
	if len(bars) == 0 {
		return
	}
	more := 0
	if len(bars) > chartMaxRows {
		more, bars = len(bars)-chartMaxRows, bars[:chartMaxRows]
	}
	most := 1
	for _, br := range bars {
		most = max(most, br.tokens)
	}
	height := (len(bars)+1)*chartRow + 8
	if more > 0 {
		height += chartRow
	}
	fmt.Fprintf(b, "<figure class=\"chart\"><svg class=\"cost\" role=\"img\" viewBox=\"0 0 %d %d\">\n", chartWidth, height)
	fmt.Fprintf(b, "<title>Tokens each tool definition and the instructions take in the model's context, on every turn</title>\n")
	span := chartWidth - chartLabel - 70
	for i, br := range bars {
		y := i*chartRow + 4
		w := max(1, br.tokens*span/most)
		fmt.Fprintf(b, "<g class=\"bar\"><text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"12\" fill=\"currentColor\">%s</text>", chartLabel-6, y+13, htmlText(quote.Clip(br.label, 36)))
		fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"></rect>", chartLabel, y+2, w, chartRow-6, br.fill)
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"currentColor\">%d</text></g>\n", chartLabel+w+6, y+13, br.tokens)
	}
	if more > 0 {
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" fill=\"currentColor\">and %s more (the table lists every tool)</text>\n", chartLabel, len(bars)*chartRow+17, quote.Count(more, "definition"))
	}
	b.WriteString("</svg><figcaption>Context cost: tokens (o200k_base) per definition, paid on every turn</figcaption></figure>\n")
}

// latencyBuckets are the latency distribution's buckets: each holds the
// latencies below its bound and at or above the previous one's.
var latencyBuckets = []struct {
	below time.Duration
	label string
}{
	{time.Millisecond, "< 1 ms"}, {10 * time.Millisecond, "1-10 ms"}, {100 * time.Millisecond, "10-100 ms"},
	{time.Second, "0.1-1 s"}, {10 * time.Second, "1-10 s"}, {1<<63 - 1, "≥ 10 s"},
}

// latencyCounts counts a server's latencies by bucket.
func latencyCounts(sv *StatsServer) []int {
	counts := make([]int, len(latencyBuckets))
	eachLatency(sv, func(d time.Duration) {
		for i, bk := range latencyBuckets {
			if d < bk.below {
				counts[i]++
				break
			}
		}
	})
	return counts
}

// eachLatency calls fn with each latency of the server's tools and prompts.
func eachLatency(sv *StatsServer, fn func(time.Duration)) {
	for _, of := range []map[string]*StatsTool{sv.tools, sv.prompts} {
		for _, t := range of {
			for _, d := range t.latencies {
				fn(d)
			}
		}
	}
}

func latencyCount(sv *StatsServer) int {
	n := 0
	eachLatency(sv, func(time.Duration) { n++ })
	return n
}

// writeLatencyChart draws the distribution of a server's tool call latencies:
// a column per bucket, as tall as its count.
func writeLatencyChart(b *strings.Builder, sv *StatsServer) {
	counts := latencyCounts(sv)
	most := 1
	for _, c := range counts {
		most = max(most, c)
	}
	const height, base, colWidth = 180, 150, 100
	fmt.Fprintf(b, "<figure class=\"chart\"><svg class=\"latency\" role=\"img\" viewBox=\"0 0 %d %d\">\n", colWidth*len(counts)+20, height)
	b.WriteString("<title>How long tool calls and prompts took to be answered, by range</title>\n")
	for i, c := range counts {
		x := 10 + i*colWidth
		h := c * (base - 20) / most
		if c > 0 {
			h = max(h, 1)
		}
		fmt.Fprintf(b, "<g class=\"bucket\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"></rect>", x+10, base-h, colWidth-20, h, chartBar)
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" fill=\"currentColor\">%d</text>", x+colWidth/2, base-h-4, c)
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" fill=\"currentColor\">%s</text></g>\n", x+colWidth/2, base+18, htmlText(latencyBuckets[i].label))
	}
	fmt.Fprintf(b, "</svg><figcaption>Latency of %s, by range</figcaption></figure>\n", quote.Count(latencyCount(sv), "answered call"))
}
