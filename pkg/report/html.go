package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// The HTML report is one self-contained file: its style and script are inline,
// allowed by their hashes in a Content-Security-Policy that forbids every other
// load (no network, no CDN, no other script or style). Everything taken from a
// capture is escaped once here, by htmlText (text and attribute values, in HTML
// and in the inline SVG) or by htmlData (the timeline's JSON data block, which
// the script shows with textContent only, never as markup).

//go:embed html.css
var htmlStyle string

//go:embed html.js
var htmlScript string

// HTMLRequires is what the HTML report needs of the analysis: every frame's
// summary (the timeline), a copy of each (the raw JSON shown on click) and the
// contract table; the sequence diagram is picked from the frames.
var HTMLRequires = trace.Needs{Frames: true, Raw: true, Contract: true, Cost: true, Declaring: true}

// cspHash is the CSP source allowing one inline element by its content.
func cspHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// HTMLPolicy is the Content-Security-Policy of the HTML report: nothing may be
// loaded, only the report's own style and script run.
func HTMLPolicy() string {
	return "default-src 'none'; script-src " + cspHash(htmlScript) + "; style-src " + cspHash(htmlStyle) +
		"; img-src 'none'; connect-src 'none'; font-src 'none'; object-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'"
}

// WriteHTML writes the report as one self-contained HTML page: the content of the
// Markdown report, in its order (verdict and worst findings first, then per
// session the findings with evidence, contract table, diagram; what to do,
// specification links), the sequence diagrams drawn as inline SVG, and per session
// a timeline of every frame that can be filtered by severity, method and
// direction, each frame's JSON shown on click. Light and dark themes follow the
// reader's preference.
func WriteHTML(w io.Writer, r *Report) error {
	doc := documentOf(r)
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", htmlText(HTMLPolicy()))
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n")
	fmt.Fprintf(&b, "<title>mcpsleuth report: %s</title>\n", htmlText(doc.title))
	b.WriteString("<style>" + htmlStyle + "</style>\n</head>\n<body>\n")
	writeHTMLBlocks(&b, doc.blocks)
	b.WriteString("<footer>Written by " + htmlText(r.Tool.Name) + " " + htmlText(r.Tool.Version) + ". This page loads nothing: its style and script are inline, and its Content-Security-Policy forbids every other load.</footer>\n")
	b.WriteString("<script>" + htmlScript + "</script>\n</body>\n</html>\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the HTML report: %w", err)
	}
	return nil
}

// writeHTMLBlocks writes blocks of the document (document.go) in HTML.
func writeHTMLBlocks(b *strings.Builder, blocks []block) {
	for _, bl := range blocks {
		switch bl := bl.(type) {
		case heading:
			fmt.Fprintf(b, "<h%d>%s</h%d>\n", bl.level, htmlInlines(bl.content), bl.level)
		case paragraph:
			b.WriteString("<p" + htmlAttrs(bl.attrs) + ">" + htmlInlines(bl.content) + "</p>\n")
		case list:
			writeHTMLList(b, bl)
		case table:
			writeHTMLTable(b, bl)
		case codeBlock:
			b.WriteString(htmlPre(bl.text))
		case details:
			b.WriteString("<details" + htmlAttrs(bl.attrs) + "><summary>" + htmlInlines(bl.summary) + "</summary>\n")
			writeHTMLBlocks(b, bl.blocks)
			b.WriteString("</details>\n")
		case container:
			b.WriteString("<" + bl.element + htmlAttrs(bl.attrs) + ">\n")
			writeHTMLBlocks(b, bl.blocks)
			b.WriteString("</" + bl.element + ">\n")
		case entries:
			b.WriteString("<ol" + htmlAttrs(bl.attrs) + ">\n")
			for _, e := range bl.items {
				b.WriteString("<li" + htmlAttrs(e.attrs) + ">\n<h4>" + htmlInlines(e.heading) + "</h4>\n")
				writeHTMLBlocks(b, e.blocks)
				b.WriteString("</li>\n")
			}
			b.WriteString("</ol>\n")
		case blockVariants:
			writeHTMLBlocks(b, bl.html)
		case sequenceDiagram:
			writeSVG(b, bl.session, bl.n, bl.frames)
		case frameTimeline:
			writeHTMLTimeline(b, bl.session, bl.n)
		case costChart:
			writeCostChart(b, bl.server)
		case latencyChart:
			writeLatencyChart(b, bl.server)
		}
	}
}

// writeHTMLList writes a list: one with attributes opens on a line of its own,
// and the items of a packed one follow each other on one line.
func writeHTMLList(b *strings.Builder, l list) {
	b.WriteString("<ul" + htmlAttrs(l.attrs) + ">")
	if len(l.attrs) > 0 {
		b.WriteString("\n")
	}
	for _, item := range l.items {
		b.WriteString("<li" + htmlAttrs(item.attrs) + ">" + htmlInlines(item.content) + "</li>")
		if !l.packed {
			b.WriteString("\n")
		}
	}
	b.WriteString("</ul>\n")
}

// writeHTMLTable writes a table: each cell carries its column's class (the
// page's style sets the column's width on the header cell), the cells of
// numeric columns class "n" too.
func writeHTMLTable(b *strings.Builder, t table) {
	b.WriteString("<table" + htmlAttrs(t.attrs) + "><thead><tr>")
	for _, c := range t.columns {
		b.WriteString("<th" + htmlAttrs(columnAttrs(c, nil)) + ">" + htmlText(c.title) + "</th>")
	}
	b.WriteString("</tr></thead><tbody>\n")
	for _, r := range t.rows {
		b.WriteString("<tr" + htmlAttrs(r.attrs) + ">")
		for i, c := range r.cells {
			b.WriteString("<td" + htmlAttrs(columnAttrs(t.columns[i], c.attrs)) + ">" + htmlInlines(c.content) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
}

// columnAttrs are a cell's attributes with its column's classes (the column's
// own, and "n" for a numeric one) before the cell's, in one class attribute.
func columnAttrs(c column, attrs []attr) []attr {
	var classes []string
	if c.numeric {
		classes = append(classes, "n")
	}
	if c.class != "" {
		classes = append(classes, c.class)
	}
	var rest []attr
	for _, a := range attrs {
		if a.name == "class" {
			classes = append(classes, a.value)
		} else {
			rest = append(rest, a)
		}
	}
	if len(classes) == 0 {
		return rest
	}
	return append([]attr{class(strings.Join(classes, " "))}, rest...)
}

// htmlAttrs writes attributes, their values escaped.
func htmlAttrs(attrs []attr) string {
	var b strings.Builder
	for _, a := range attrs {
		b.WriteString(" " + a.name + "=\"" + htmlText(a.value) + "\"")
	}
	return b.String()
}

// htmlInlines writes text in HTML, each piece escaped by its kind.
func htmlInlines(content []inline) string {
	var b strings.Builder
	for _, in := range content {
		switch in := in.(type) {
		case text:
			switch in.kind {
			case textOurs:
				b.WriteString(in.value)
			case textCode:
				b.WriteString(htmlCode(in.value))
			default: // the rules' text and captured text
				b.WriteString(htmlText(in.value))
			}
		case strong:
			b.WriteString("<strong>" + htmlInlines(in.content) + "</strong>")
		case span:
			b.WriteString("<span class=\"" + htmlText(in.class) + "\">" + htmlInlines(in.content) + "</span>")
		case link:
			rel := ""
			if in.external {
				rel = " rel=\"noreferrer noopener\""
			}
			b.WriteString("<a href=\"" + htmlText(in.href) + "\"" + rel + ">" + htmlInlines(in.content) + "</a>")
		case quotation:
			b.WriteString("“" + htmlInlines(in.content) + "”")
		case inlineVariants:
			b.WriteString(htmlInlines(in.html))
		}
	}
	return b.String()
}

// htmlText escapes captured text for HTML (text and attribute values, and raw
// HTML in Markdown such as a <summary>): control characters, tags, entities and
// quotes, so that nothing can close an element early.
func htmlText(s string) string {
	return html.EscapeString(Safe(s))
}

// htmlCode renders captured text as inline code.
func htmlCode(s string) string {
	return "<code>" + htmlText(s) + "</code>"
}

// htmlPre renders a block of text (pretty JSON, an example) escaped line by line.
func htmlPre(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = htmlText(l)
	}
	return "<pre>" + strings.Join(lines, "\n") + "</pre>\n"
}
