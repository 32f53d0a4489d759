package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// htmlTimelineMax caps the frames one session's timeline carries in the page; the
// page's script shows them a page at a time (htmlPageSize in html.js), so the
// document stays small however long the session is. The analysis keeps no more
// of a session for an HTML report (Format.MaxFrames): the summaries past them,
// with their JSON, would be held until the report is written, and not shown.
const htmlTimelineMax = 20_000

// HTMLMaxRunFrames caps the frames the analysis keeps for an HTML report over
// the whole run (Format.MaxRunFrames): the report holds every session until it
// is written, so a capture of millions of frames would otherwise hold them all
// (with their JSON: 2.9 GB for the 1.9 million frames of 512 MiB of capturegen's
// healthy profile) and write a page no browser opens. The sessions past it keep
// their findings and lose their timelines' frames, and say so.
const HTMLMaxRunFrames = 50_000

// timelineRow is one frame of the HTML timeline as the page's script reads it
// (short keys: a page may carry thousands). Every string is captured text that
// the script shows with textContent, never as markup.
type timelineRow struct {
	Line     int          `json:"l"`
	Seq      int          `json:"q"`
	Time     string       `json:"t,omitempty"`
	Dir      string       `json:"d"`
	Kind     string       `json:"k"`
	Method   string       `json:"m"`
	Label    string       `json:"x"`
	Severity string       `json:"v"`
	Findings []string     `json:"f,omitempty"`
	Marks    []timelineMk `json:"mk,omitempty"`
	JSON     string       `json:"j,omitempty"`
	Cut      bool         `json:"c,omitempty"`
}

type timelineMk struct {
	Text string `json:"t"`
	Bad  bool   `json:"b,omitempty"`
}

// htmlData encodes a value for a <script type="application/json"> block: the
// encoder escapes <, > and & (and U+2028, U+2029), so no captured text can
// close the block or open a comment in it; escapeJSONText escapes the other
// characters no report carries raw.
func htmlData(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encoding the timeline data: %w", err)
	}
	return strings.TrimRight(string(escapeJSONText(buf.Bytes())), "\n"), nil
}

// timelineRows builds the rows of a session's timeline: every kept frame, with
// its worst finding, what became of it, and its JSON.
func timelineRows(s Session) (rows []timelineRow, left int) {
	byLine := map[int][]Finding{}
	for _, f := range s.Findings {
		byLine[f.Line] = append(byLine[f.Line], f)
	}
	for _, fs := range s.Trace.Frames {
		if (fs.Context && fs.Exchange == nil) || fs.Gap > 0 {
			continue
		}
		if len(rows) == htmlTimelineMax {
			left++
			continue
		}
		row := timelineRow{Line: fs.Line, Seq: fs.Seq, Dir: dirName(fs), Kind: entryClass(fs), Method: Safe(fs.Method), Label: Safe(arrowLabel(fs)), Cut: fs.RawCut}
		if !fs.Time.IsZero() {
			row.Time = fs.Time.UTC().Format(time.RFC3339Nano)
		}
		worst := rule.Severity(0)
		for _, f := range byLine[fs.Line] {
			worst = max(worst, f.severity)
			row.Findings = append(row.Findings, Safe(f.Severity+" "+f.Rule+" "+f.Name+": "+f.Message))
		}
		if worst > 0 {
			row.Severity = worst.String()
		}
		for _, m := range frameMarkers(fs) {
			row.Marks = append(row.Marks, timelineMk{Text: Safe(m.Text), Bad: m.Bad})
		}
		if len(fs.Raw) > 0 {
			lines := strings.Split(Pretty(fs.Raw, PrettyOptions{maxLines: 200, MaxItems: 50, MaxString: 400}), "\n")
			for i, l := range lines {
				lines[i] = Safe(l)
			}
			row.JSON = strings.Join(lines, "\n")
		}
		rows = append(rows, row)
	}
	return rows, left
}

func dirName(fs trace.FrameSummary) string {
	switch d := fs.Dir.String(); d {
	case "c2s", "s2c":
		return d
	}
	return "unknown"
}

// writeHTMLTimeline writes the timeline of session n (its position in the
// report), which must have a trace: the filters, the table the page's script
// fills a page at a time, and the frames' data.
func writeHTMLTimeline(b *strings.Builder, s Session, n int) {
	rows, left := timelineRows(s)
	data, err := htmlData(rows)
	if err != nil {
		fmt.Fprintf(b, "<p>(No timeline: %s.)</p>\n", htmlText(err.Error()))
		return
	}
	methods := map[string]bool{}
	for _, r := range rows {
		if r.Method != "" {
			methods[r.Method] = true
		}
	}
	names := make([]string, 0, len(methods))
	for m := range methods {
		names = append(names, m)
	}
	sort.Strings(names)
	fmt.Fprintf(b, "<div class=\"timeline\" id=\"s%d-timeline\" data-session=\"%d\">\n<div class=\"filters\">\n", n, n)
	b.WriteString("<fieldset><legend>Severity</legend>")
	for _, v := range []struct{ value, label string }{{"error", "error"}, {"warning", "warning"}, {"info", "info"}, {"", "no finding"}} {
		fmt.Fprintf(b, "<label><input type=\"checkbox\" data-filter=\"severity\" value=\"%s\" checked> %s</label> ", v.value, v.label)
	}
	b.WriteString("</fieldset>\n<fieldset><legend>Direction</legend>")
	for _, v := range []struct{ value, label string }{{"c2s", "client → server"}, {"s2c", "server → client"}, {"unknown", "unknown"}} {
		fmt.Fprintf(b, "<label><input type=\"checkbox\" data-filter=\"direction\" value=\"%s\" checked> %s</label> ", v.value, v.label)
	}
	b.WriteString("</fieldset>\n<fieldset><legend>Method</legend><select data-filter=\"method\"><option value=\"\">every method</option>")
	for _, m := range names {
		fmt.Fprintf(b, "<option value=\"%s\">%s</option>", htmlText(m), htmlText(m))
	}
	b.WriteString("</select></fieldset>\n</div>\n")
	b.WriteString("<p class=\"count\" aria-live=\"polite\"></p>\n")
	b.WriteString("<table class=\"frames\"><thead><tr><th class=\"n c-line\">line</th><th class=\"c-time\">time (UTC)</th><th class=\"c-direction\">direction</th><th>message</th><th class=\"c-findings\">findings</th></tr></thead><tbody></tbody></table>\n")
	b.WriteString("<nav class=\"pager\"><button type=\"button\" data-page=\"prev\">← previous</button> <span class=\"page\"></span> <button type=\"button\" data-page=\"next\">next →</button></nav>\n")
	b.WriteString("<noscript><p>The timeline is drawn by the page's own script, which this browser does not run.</p></noscript>\n")
	if left > 0 {
		fmt.Fprintf(b, "<p class=\"note\">%s of the session are not in this timeline (it carries the first %s); the JSON report has every finding.</p>\n",
			quote.Count(left, "more frame"), strconv.Itoa(htmlTimelineMax))
	}
	switch {
	case s.Trace.Capped && s.Trace.RunCap > 0:
		fmt.Fprintf(b, "<p class=\"note\">%s of the session, from line %d on, were not kept by the analysis (an HTML report keeps at most %s over the whole run); the JSON report has every finding.</p>\n",
			omittedEntries(s.Trace), s.Trace.CappedAt, quote.Count(s.Trace.RunCap, "frame"))
	case s.Trace.Capped:
		fmt.Fprintf(b, "<p class=\"note\">%s of the session, from line %d on, were not kept by the analysis (the cap on frames kept per session).</p>\n", omittedEntries(s.Trace), s.Trace.CappedAt)
	}
	fmt.Fprintf(b, "<script type=\"application/json\" class=\"frames-data\">%s</script>\n</div>\n", data)
}
