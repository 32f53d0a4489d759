package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// The diff command's views: the comparison of two sessions (trace.Diff, computed
// by the analysis) as text that fits the terminal, JSON, Markdown and HTML. They
// render and never compare.

// DiffFormats are the diff command's --format values.
var DiffFormats = []string{"text", "json", "markdown", "html"}

// DiffOptions are how a diff is written.
type DiffOptions struct {
	// Version is mcpsleuth's version (JSON, HTML).
	Version string
	// Width is the terminal width the text wraps to (0 = 100).
	Width int
	// Color turns on ANSI colour in text.
	Color bool
}

// WriteDiff writes a diff in one of DiffFormats.
func WriteDiff(w io.Writer, format string, d *trace.Diff, opt DiffOptions) error {
	var out string
	switch format {
	case "json":
		b, err := json.MarshalIndent(struct {
			Version int         `json:"version"`
			Tool    Tool        `json:"tool"`
			Diff    *trace.Diff `json:"diff"`
		}{1, Tool{Name: "mcpsleuth", Version: opt.Version}, d}, "", "  ")
		if err != nil {
			return fmt.Errorf("mcpsleuth: encoding the diff: %w", err)
		}
		out = string(escapeJSONText(b)) + "\n"
	case "markdown":
		out = diffMarkdown(d)
	case "html":
		out = diffHTML(d, opt)
	default:
		out = diffText(d, opt)
	}
	if _, err := io.WriteString(w, out); err != nil {
		return fmt.Errorf("mcpsleuth: writing the diff: %w", err)
	}
	return nil
}

func sideName(s trace.DiffSide) string {
	return fmt.Sprintf("%s#%d", s.Input, s.Session)
}

func sideSummary(s trace.DiffSide) string {
	return fmt.Sprintf("%s ⇄ %s (%s, %s)", s.Client, s.Server, quote.Count(s.Frames, "frame"), quote.Count(s.Findings, "finding"))
}

// diffVerdict says in one sentence whether B broke what A kept.
func diffVerdict(d *trace.Diff) string {
	switch {
	case d.NewErrors > 0:
		return fmt.Sprintf("B has %s that A does not.", quote.Count(d.NewErrors, "error finding"))
	case len(d.OnlyB) > 0:
		return fmt.Sprintf("B has %s that A does not, none of them an error.", quote.Count(len(d.OnlyB), "finding"))
	}
	return "B has no finding that A does not."
}

func listChangeText(c trace.ListChange) string {
	switch c.Change {
	case "added":
		return "added in B"
	case "removed":
		return "not in B"
	}
	return "changed: " + strings.Join(c.Details, "; ")
}

func diffText(d *trace.Diff, opt DiffOptions) string {
	width := opt.Width
	if width <= 0 {
		width = 100
	}
	pal := newPalette(opt.Color)
	var b strings.Builder
	line := func(indent int, text string) {
		lead := strings.Repeat(" ", indent)
		b.WriteString(strings.Join(wrapLine(lead+Safe(text), width, lead+"  "), "\n") + "\n")
	}
	heading := func(text string) { b.WriteString("\n" + pal.bold(text) + "\n") }
	line(0, "mcpsleuth diff")
	line(2, "A  "+sideName(d.A)+"  "+sideSummary(d.A))
	line(2, "B  "+sideName(d.B)+"  "+sideSummary(d.B))
	heading("Contract")
	if len(d.Contract) == 0 && len(d.Capabilities) == 0 {
		line(2, "the same: revision, negotiation, implementations and every capability")
	}
	for _, c := range d.Contract {
		line(2, fmt.Sprintf("%s: A %s, B %s", c.Field, c.A, c.B))
	}
	for _, c := range d.Capabilities {
		line(2, fmt.Sprintf("%s.%s: A %s, B %s", c.Side, c.Path, c.A, c.B))
	}
	heading("Listed by the server")
	if len(d.Lists) == 0 {
		line(2, "the same tools, prompts, resources and templates, with the same schemas")
	}
	for _, c := range d.Lists {
		line(2, fmt.Sprintf("%s %q: %s", c.Kind, c.Name, listChangeText(c)))
	}
	heading("Behaviour")
	if len(d.Behaviour) == 0 {
		line(2, "the same methods, reactions, unanswered requests and errors, as often")
	}
	for _, c := range d.Behaviour {
		line(2, fmt.Sprintf("%s %s: A %d, B %d", c.Aspect, c.What, c.A, c.B))
	}
	writeFindings := func(title string, fs []trace.DiffFinding) {
		heading(title)
		if len(fs) == 0 {
			line(2, "none")
		}
		for _, f := range fs {
			text := "  " + pal.severity(f.Severity) + " " + Safe(fmt.Sprintf("%s %s, line %d: %s", f.Rule, f.Name, f.Line, f.Message))
			b.WriteString(strings.Join(wrapLine(text, width, "    "), "\n") + "\n")
		}
	}
	writeFindings("Findings only in B", d.OnlyB)
	writeFindings("Findings only in A", d.OnlyA)
	for _, n := range d.Notes {
		line(0, "note: "+n)
	}
	b.WriteString("\n")
	verdict := diffVerdict(d)
	if d.NewErrors > 0 {
		verdict = pal.warn(verdict)
	}
	b.WriteString(verdict + "\n")
	return b.String()
}

func diffMarkdown(d *trace.Diff) string {
	var b strings.Builder
	b.WriteString("# mcpsleuth diff\n\n")
	fmt.Fprintf(&b, "%s **%s**\n\n", statusEmoji[diffStatus(d)], mdText(diffVerdict(d)))
	b.WriteString("| | session | client ⇄ server |\n| --- | --- | --- |\n")
	for _, s := range []struct {
		name string
		side trace.DiffSide
	}{{"A", d.A}, {"B", d.B}} {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", s.name, cell(mdCode(sideName(s.side))), cell(mdText(sideSummary(s.side))))
	}
	b.WriteString("\n## Contract\n\n")
	if len(d.Contract) == 0 && len(d.Capabilities) == 0 {
		b.WriteString("The same: revision, negotiation, implementations and every capability.\n\n")
	} else {
		b.WriteString("| what | A | B |\n| --- | --- | --- |\n")
		for _, c := range d.Contract {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(mdText(c.Field)), cell(mdCode(c.A)), cell(mdCode(c.B)))
		}
		for _, c := range d.Capabilities {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(mdCode(c.Side+"."+c.Path)), cell(mdText(c.A)), cell(mdText(c.B)))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Listed by the server\n\n")
	if len(d.Lists) == 0 {
		b.WriteString("The same tools, prompts, resources and templates, with the same schemas.\n\n")
	} else {
		b.WriteString("| list | name | in B |\n| --- | --- | --- |\n")
		for _, c := range d.Lists {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(mdText(c.Kind)), cell(mdCode(c.Name)), cell(mdText(listChangeText(c))))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Behaviour\n\n")
	if len(d.Behaviour) == 0 {
		b.WriteString("The same methods, reactions, unanswered requests and errors, as often.\n\n")
	} else {
		b.WriteString("| aspect | what | A | B |\n| --- | --- | ---: | ---: |\n")
		for _, c := range d.Behaviour {
			fmt.Fprintf(&b, "| %s | %s | %d | %d |\n", cell(mdText(c.Aspect)), cell(mdCode(c.What)), c.A, c.B)
		}
		b.WriteString("\n")
	}
	for _, part := range []struct {
		title string
		fs    []trace.DiffFinding
	}{{"Findings only in B", d.OnlyB}, {"Findings only in A", d.OnlyA}} {
		fmt.Fprintf(&b, "## %s\n\n", part.title)
		if len(part.fs) == 0 {
			b.WriteString("None.\n\n")
			continue
		}
		b.WriteString("| severity | rule | line | message |\n| --- | --- | ---: | --- |\n")
		for _, f := range part.fs {
			fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", f.Severity, cell(mdText(f.Rule+" "+f.Name)), f.Line, cell(mdText(f.Message)))
		}
		b.WriteString("\n")
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "> %s\n\n", mdText(n))
	}
	return b.String()
}

// diffStatus is the kind of the diff's verdict (statusIcon's kinds): error when
// B has new errors, warning when it has other new findings, else ok.
func diffStatus(d *trace.Diff) string {
	switch {
	case d.NewErrors > 0:
		return "error"
	case len(d.OnlyB) > 0:
		return "warning"
	}
	return "ok"
}

// diffPolicy forbids every load and every script: the diff page has none.
func diffPolicy() string {
	return "default-src 'none'; script-src 'none'; style-src " + cspHash(htmlStyle) + "; img-src 'none'; base-uri 'none'; form-action 'none'"
}

func diffHTML(d *trace.Diff, opt DiffOptions) string {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", htmlText(diffPolicy()))
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n")
	fmt.Fprintf(&b, "<title>mcpsleuth diff: %s</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>mcpsleuth diff</h1>\n", htmlText(diffVerdict(d)), htmlStyle)
	// The badge the report's style draws, not an emoji (an empty box without an emoji font).
	status := diffStatus(d)
	fmt.Fprintf(&b, "<p class=\"verdict v-%s\"><span class=\"icon icon-%[1]s\"></span> %s</p>\n</header>\n<main>\n", status, htmlText(diffVerdict(d)))
	b.WriteString("<table class=\"sides\"><thead><tr><th></th><th>session</th><th>client ⇄ server</th></tr></thead><tbody>\n")
	fmt.Fprintf(&b, "<tr><th>A</th><td>%s</td><td>%s</td></tr>\n<tr><th>B</th><td>%s</td><td>%s</td></tr>\n</tbody></table>\n",
		htmlCode(sideName(d.A)), htmlText(sideSummary(d.A)), htmlCode(sideName(d.B)), htmlText(sideSummary(d.B)))
	table := func(title, empty string, head []string, rows [][]string) {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", title)
		if len(rows) == 0 {
			fmt.Fprintf(&b, "<p>%s</p>\n", empty)
			return
		}
		b.WriteString("<table><thead><tr>")
		for _, h := range head {
			fmt.Fprintf(&b, "<th>%s</th>", h)
		}
		b.WriteString("</tr></thead><tbody>\n")
		for _, r := range rows {
			b.WriteString("<tr>")
			for _, c := range r {
				fmt.Fprintf(&b, "<td>%s</td>", c) // cells are escaped by their builders
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody></table>\n")
	}
	var rows [][]string
	for _, c := range d.Contract {
		rows = append(rows, []string{htmlText(c.Field), htmlCode(c.A), htmlCode(c.B)})
	}
	for _, c := range d.Capabilities {
		rows = append(rows, []string{htmlCode(c.Side + "." + c.Path), htmlText(c.A), htmlText(c.B)})
	}
	table("Contract", "The same: revision, negotiation, implementations and every capability.", []string{"what", "A", "B"}, rows)
	rows = nil
	for _, c := range d.Lists {
		rows = append(rows, []string{htmlText(c.Kind), htmlCode(c.Name), htmlText(listChangeText(c))})
	}
	table("Listed by the server", "The same tools, prompts, resources and templates, with the same schemas.", []string{"list", "name", "in B"}, rows)
	rows = nil
	for _, c := range d.Behaviour {
		rows = append(rows, []string{htmlText(c.Aspect), htmlCode(c.What), fmt.Sprint(c.A), fmt.Sprint(c.B)})
	}
	table("Behaviour", "The same methods, reactions, unanswered requests and errors, as often.", []string{"aspect", "what", "A", "B"}, rows)
	for _, part := range []struct {
		title string
		fs    []trace.DiffFinding
	}{{"Findings only in B", d.OnlyB}, {"Findings only in A", d.OnlyA}} {
		rows = nil
		for _, f := range part.fs {
			rows = append(rows, []string{"<span class=\"v-" + htmlText(f.Severity) + "\">" + htmlText(f.Severity) + "</span>", htmlText(f.Rule + " " + f.Name), fmt.Sprint(f.Line), htmlText(f.Message)})
		}
		table(part.title, "None.", []string{"severity", "rule", "line", "message"}, rows)
	}
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "<p class=\"note\">%s</p>\n", htmlText(n))
	}
	fmt.Fprintf(&b, "</main>\n<footer>Written by mcpsleuth %s. This page loads nothing and runs no script.</footer>\n</body>\n</html>\n", htmlText(opt.Version))
	return b.String()
}
