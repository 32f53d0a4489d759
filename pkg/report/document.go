package report

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// The Markdown and the HTML reports are one document written in two syntaxes.
// documentOf (document_sections.go) decides once what the document says: its
// sections in order, their headings, paragraphs, lists, tables and code blocks,
// and every piece of text with its kind (our words, the rules' documentation,
// captured text, code). The Markdown writer (markdown.go) and the HTML writer
// (html.go) only turn that document into syntax, each escaping every piece of
// text once, by its kind.

// document is the report as the Markdown and HTML writers write it.
type document struct {
	// title names the report in a few words of ours (the HTML page's title).
	title string
	// blocks are the document's content, in order.
	blocks []block
}

// block is a part of the document that stands on lines of its own: heading,
// paragraph, list, table, codeBlock, details, container, entries,
// blockVariants, sequenceDiagram and frameTimeline.
type block interface{ isBlock() }

// inline is a part of a block's text: text, strong, span, link, quotation and
// inlineVariants.
type inline interface{ isInline() }

// attr is an HTML attribute of an element (a class, an id, data for the page's
// script). Markdown has no place for them: its writer leaves them out.
type attr struct{ name, value string }

// class is the class attribute.
func class(value string) attr { return attr{"class", value} }

// textKind is what a piece of text is, which decides how each syntax escapes it.
type textKind int

const (
	// textOurs are words of the program (fixed sentences, counts, line
	// numbers), written as they are in both syntaxes.
	textOurs textKind = iota
	// textAuthored is text written for people with the rules (titles,
	// documentation, where a capability was declared): Markdown source kept as
	// it is in Markdown, escaped in HTML.
	textAuthored
	// textCaptured is text taken from a capture (names, methods, messages),
	// escaped in both syntaxes.
	textCaptured
	// textCode is captured text shown as inline code.
	textCode
)

// text is a piece of text of one kind.
type text struct {
	kind  textKind
	value string
}

// strong is text that stands out.
type strong struct{ content []inline }

// span is text the HTML page styles by its class; Markdown writes its content
// only.
type span struct {
	class   string
	content []inline
}

// link points to an anchor of the document ("#session-1") or, when external,
// to a page elsewhere (the specification).
type link struct {
	href     string
	external bool
	content  []inline
}

// quotation is quoted text: in straight quotes in Markdown, typographic ones in
// HTML.
type quotation struct{ content []inline }

// inlineVariants is text the two syntaxes word differently.
type inlineVariants struct{ markdown, html []inline }

// heading opens a part of the document (level 1 to 4).
type heading struct {
	level   int
	content []inline
}

// paragraph is a paragraph of text; an aside (a note beside the text) is a
// quote in Markdown.
type paragraph struct {
	attrs   []attr
	aside   bool
	content []inline
}

// list is a bulleted list. A packed list's HTML items follow each other on one
// line.
type list struct {
	attrs  []attr
	packed bool
	items  []listItem
}

// listItem is one item of a list.
type listItem struct {
	attrs   []attr
	content []inline
}

// table is a table with a header row.
type table struct {
	attrs   []attr
	columns []column
	rows    []row
}

// column is a table's column; a numeric one is aligned right. class names
// the column for the HTML page's style (its width, whether its cells wrap):
// the page lays its tables out with fixed column widths, set by the class of
// each header cell. Markdown has no use for it.
type column struct {
	title   string
	numeric bool
	class   string
}

// row is one row of a table, a cell per column.
type row struct {
	attrs []attr
	cells []tableCell
}

// tableCell is one cell of a table.
type tableCell struct {
	attrs   []attr
	content []inline
}

// codeBlock is a block of text (pretty JSON, an example) shown as it is, each
// line escaped as captured text; language names its syntax for Markdown.
type codeBlock struct {
	language string
	text     string
}

// details is content shown on demand under a summary. Markdown writes it as
// raw HTML, so its summary is written as HTML in both syntaxes.
type details struct {
	attrs   []attr
	summary []inline
	blocks  []block
}

// container groups blocks in an HTML element (header, main, section,
// article); Markdown writes the blocks only.
type container struct {
	element string
	attrs   []attr
	blocks  []block
}

// entries are numbered parts under a heading each (the findings of a
// session): an ordered list in HTML, headings numbered in Markdown.
type entries struct {
	attrs []attr
	items []entry
}

// entry is one of entries: a level 4 heading and its blocks.
type entry struct {
	attrs   []attr
	heading []inline
	blocks  []block
}

// blockVariants are blocks the two syntaxes show differently (one syntax may
// show none).
type blockVariants struct{ markdown, html []block }

// sequenceDiagram is a session's sequence diagram: drawn in Mermaid in
// Markdown, in inline SVG in HTML. n is the session's position in the report.
type sequenceDiagram struct {
	session Session
	n       int
	frames  []trace.FrameSummary
}

// frameTimeline is the HTML page's timeline of every frame of a session, drawn
// by the page's script. n is the session's position in the report.
type frameTimeline struct {
	session Session
	n       int
}

func (heading) isBlock()         {}
func (paragraph) isBlock()       {}
func (list) isBlock()            {}
func (table) isBlock()           {}
func (codeBlock) isBlock()       {}
func (details) isBlock()         {}
func (container) isBlock()       {}
func (entries) isBlock()         {}
func (blockVariants) isBlock()   {}
func (sequenceDiagram) isBlock() {}
func (frameTimeline) isBlock()   {}

func (text) isInline()           {}
func (strong) isInline()         {}
func (span) isInline()           {}
func (link) isInline()           {}
func (quotation) isInline()      {}
func (inlineVariants) isInline() {}

// ours is words of the program.
func ours(s string) text { return text{textOurs, s} }

// oursf is words of the program, formatted.
func oursf(format string, args ...any) text { return text{textOurs, fmt.Sprintf(format, args...)} }

// authored is text written with the rules.
func authored(s string) text { return text{textAuthored, s} }

// captured is text taken from a capture.
func captured(s string) text { return text{textCaptured, s} }

// code is captured text shown as inline code.
func code(s string) text { return text{textCode, s} }

// strongIf makes text stand out when on is set.
func strongIf(t inline, on bool) inline {
	if on {
		return strong{[]inline{t}}
	}
	return t
}

// para is a paragraph without attributes.
func para(content ...inline) paragraph { return paragraph{content: content} }

// cellOf is a table cell without attributes.
func cellOf(content ...inline) tableCell { return tableCell{content: content} }
