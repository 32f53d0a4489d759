package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// MarkdownRequires is what the Markdown report needs of the analysis: the
// contract table, and the frames its sequence diagram draws.
var MarkdownRequires = trace.Needs{Frames: true, Diagram: true, Contract: true, Cost: true, Declaring: true}

// WriteMarkdown writes the report as a self-contained GitHub-flavoured Markdown
// document to attach to a ticket: the worst findings under the verdict, a summary
// line per session, then per session each finding with its evidence, the contract
// (each capability, who declared it, who used it) and a sequence diagram in which
// flagged messages stand out; at the end what to do about each rule that fired. Everything taken from a capture is escaped
// for Markdown, HTML and Mermaid.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	writeMarkdownBlocks(&b, documentOf(r).blocks)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the Markdown report: %w", err)
	}
	return nil
}

// writeMarkdownBlocks writes blocks of the document (document.go) in Markdown.
func writeMarkdownBlocks(b *strings.Builder, blocks []block) {
	for _, bl := range blocks {
		switch bl := bl.(type) {
		case heading:
			b.WriteString(strings.Repeat("#", bl.level) + " " + markdownInlines(bl.content) + "\n\n")
		case paragraph:
			if bl.aside {
				b.WriteString("> ")
			}
			b.WriteString(markdownInlines(bl.content) + "\n\n")
		case list:
			for _, item := range bl.items {
				b.WriteString("- " + markdownInlines(item.content) + "\n")
			}
			b.WriteString("\n")
		case table:
			writeMarkdownTable(b, bl)
		case codeBlock:
			writeCodeBlock(b, bl.language, bl.text)
		case details:
			// Raw HTML in Markdown: the summary is written as HTML.
			b.WriteString("<details><summary>" + htmlInlines(bl.summary) + "</summary>\n\n")
			writeMarkdownBlocks(b, bl.blocks)
			b.WriteString("</details>\n\n")
		case container:
			writeMarkdownBlocks(b, bl.blocks)
		case entries:
			for i, e := range bl.items {
				fmt.Fprintf(b, "#### %d. %s\n\n", i+1, markdownInlines(e.heading))
				writeMarkdownBlocks(b, e.blocks)
			}
		case blockVariants:
			writeMarkdownBlocks(b, bl.markdown)
		case sequenceDiagram:
			var d strings.Builder
			writeMermaid(&d, bl.session, bl.frames)
			writeCodeBlock(b, "mermaid", d.String())
		}
	}
}

// writeMarkdownTable writes a GFM table, numeric columns aligned right.
func writeMarkdownTable(b *strings.Builder, t table) {
	titles := make([]string, len(t.columns))
	aligns := make([]string, len(t.columns))
	for i, c := range t.columns {
		titles[i], aligns[i] = c.title, "---"
		if c.numeric {
			aligns[i] = "---:"
		}
	}
	b.WriteString("| " + strings.Join(titles, " | ") + " |\n| " + strings.Join(aligns, " | ") + " |\n")
	for _, r := range t.rows {
		cells := make([]string, len(r.cells))
		for i, c := range r.cells {
			cells[i] = cell(markdownInlines(c.content))
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// markdownInlines writes text in Markdown, each piece escaped by its kind.
func markdownInlines(content []inline) string {
	var b strings.Builder
	for _, in := range content {
		switch in := in.(type) {
		case text:
			switch in.kind {
			case textCaptured:
				b.WriteString(mdText(in.value))
			case textCode:
				b.WriteString(mdCode(in.value))
			default: // our words and the rules' Markdown
				b.WriteString(in.value)
			}
		case strong:
			b.WriteString("**" + markdownInlines(in.content) + "**")
		case span:
			b.WriteString(markdownInlines(in.content))
		case link:
			b.WriteString("[" + markdownInlines(in.content) + "](" + in.href + ")")
		case quotation:
			b.WriteString(`"` + markdownInlines(in.content) + `"`)
		case inlineVariants:
			b.WriteString(markdownInlines(in.markdown))
		}
	}
	return b.String()
}

// mdText escapes captured text for Markdown prose and table cells: control
// characters (Safe), Markdown syntax (emphasis, code, links, tables), HTML (tags,
// entities) and bare links.
func mdText(s string) string {
	s = Safe(s)
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		switch r {
		case '\\', '`', '*', '[', ']', '|', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '_':
			// intraword underscores (list_changed) never emphasise in GFM
			if i > 0 && i < len(rs)-1 && isWordRune(rs[i-1]) && isWordRune(rs[i+1]) {
				b.WriteRune(r)
			} else {
				b.WriteString(`\_`)
			}
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		default:
			b.WriteRune(r)
		}
	}
	out := strings.ReplaceAll(b.String(), "://", "&#58;//")
	return strings.ReplaceAll(out, "www.", "www&#46;")
}

// mdCode renders captured text as an inline code span that no backtick inside it
// can close early.
func mdCode(s string) string {
	s = Safe(s)
	if s == "" {
		return "` `"
	}
	fence := strings.Repeat("`", longestBacktickRun(s)+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// isWordRune runes make an underscore between them intraword (GFM).
func isWordRune(r rune) bool {
	return r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r > 0x7f
}

// cell makes inline Markdown safe inside a table cell: GFM splits cells at every
// unescaped pipe, even inside code spans.
func cell(s string) string {
	var b strings.Builder
	escaped := false
	for _, r := range s {
		if r == '|' && !escaped {
			b.WriteString(`\|`)
			continue
		}
		escaped = r == '\\' && !escaped
		b.WriteRune(r)
	}
	return b.String()
}

// writeCodeBlock writes a fenced block with a fence longer than any backtick run
// inside it.
func writeCodeBlock(b *strings.Builder, lang, text string) {
	fence := strings.Repeat("`", max(3, longestBacktickRun(text)+1))
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = Safe(l)
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimRight(strings.Join(lines, "\n"), "\n"), fence)
}

// longestBacktickRun is the length of the longest run of backticks in s: a
// code span or block fenced by a longer run holds s whole.
func longestBacktickRun(s string) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}
