package report

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Limits of the Markdown report.
const (
	// mdDetailed findings per session are shown with their evidence; the rest in a table.
	mdDetailed = 30
	// mdListed findings per session at most appear in that table; the rest are counted.
	mdListed = 500
)

// WriteMarkdown writes the report as a self-contained GitHub-flavoured Markdown
// document to attach to a ticket: a summary line per session, then per session the
// contract (each capability, who declared it, who used it), a sequence diagram in
// which flagged messages stand out, and each finding with its evidence; at the end
// what to do about each rule that fired. Everything taken from a capture is escaped
// for Markdown, HTML and Mermaid.
func WriteMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	writeMarkdownHeader(&b, r)
	for i, s := range r.Sessions {
		writeMarkdownSession(&b, r, s, i+1)
	}
	writeWhatToDo(&b, r)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the Markdown report: %w", err)
	}
	return nil
}

func writeMarkdownHeader(b *strings.Builder, r *Report) {
	b.WriteString("# mcpsleuth report\n\n")
	f := r.Summary.Findings
	icon := verdictIcon(r.Worst())
	if failedInputs(r.Errors) > 0 {
		icon = "⛔" // an input not read or not judged: never a clean run
	}
	fmt.Fprintf(b, "%s %s, %s, %s in %s of %s, checked by %s %s.\n\n", icon,
		bold(quote.Count(f["error"], "error"), f["error"] > 0), bold(quote.Count(f["warning"], "warning"), f["warning"] > 0), quote.Count(f["info"], "info finding"),
		quote.Count(r.Summary.Sessions, "session"), quote.Count(len(r.Inputs), "input"), mdText(r.Tool.Name), mdCode(r.Tool.Version))
	if r.Redacted {
		b.WriteString("> **Redacted** (`--redact`): the values in params and results are replaced by their type and length, " +
			"secret-looking strings (tokens, keys, cookies, credentials) are masked everywhere; methods, ids, capability objects, " +
			"protocol versions, error codes and messages, tool names and schemas are kept.\n\n")
	}
	if len(r.Inputs) > 0 {
		b.WriteString("| input | format | lines | frames | rejected | context lines |\n| --- | --- | ---: | ---: | ---: | ---: |\n")
		for _, in := range r.Inputs {
			fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d |\n", cell(mdCode(in.Name)), cell(mdText(in.Format)), in.Lines, in.Frames, in.Rejected, in.Context)
		}
		b.WriteString("\n")
		if len(r.Errors) == 0 { // a report built without them: the lossy inputs still say so
			for _, in := range r.Unjudged() {
				fmt.Fprintf(b, "> ⚠️ %s: %s\n\n", mdCode(in.Name), mdText(in.Lossy))
			}
		}
	}
	writeMarkdownErrors(b, r.Errors)
	if len(r.Sessions) == 0 {
		b.WriteString("No session was found in the input: nothing to judge.\n\n")
		return
	}
	several := len(r.Inputs) > 1
	if several {
		b.WriteString("| session | input | client | server | revision | verdict |\n| --- | --- | --- | --- | --- | --- |\n")
	} else {
		b.WriteString("| session | client | server | revision | verdict |\n| --- | --- | --- | --- | --- |\n")
	}
	for i, s := range r.Sessions {
		input := ""
		if several {
			input = " " + cell(mdCode(s.Input)) + " |"
		}
		fmt.Fprintf(b, "| [%d](#session-%d) |%s %s | %s | %s | %s |\n", i+1, i+1, input, cell(mdText(peerName(s.Client))), cell(mdText(peerName(s.Server))),
			cell(revisionText(s)), cell(sessionVerdict(s)))
	}
	b.WriteString("\n")
}

// writeMarkdownErrors lists the inputs that could not be read or judged.
func writeMarkdownErrors(b *strings.Builder, errs []InputError) {
	if len(errs) == 0 {
		return
	}
	fmt.Fprintf(b, "**%s could not be read or judged:**\n\n", quote.Count(len(errs), "input"))
	for _, e := range errs {
		icon := "⛔"
		if !e.Kind.Fails() {
			icon = "⚠️"
		}
		fmt.Fprintf(b, "- %s %s (%s): %s\n", icon, mdCode(e.Input), mdText(string(e.Kind)), mdText(e.Message))
	}
	b.WriteString("\n")
}

func verdictIcon(w rule.Severity) string {
	switch w {
	case rule.SeverityError:
		return "❌"
	case rule.SeverityWarning:
		return "⚠️"
	}
	return "✅"
}

func severityIcon(s rule.Severity) string {
	switch s {
	case rule.SeverityError:
		return "❌"
	case rule.SeverityWarning:
		return "⚠️"
	}
	return "ℹ️"
}

func bold(s string, on bool) string {
	if on {
		return "**" + s + "**"
	}
	return s
}

// sessionVerdict is the one-word verdict with the counts.
func sessionVerdict(s Session) string {
	var e, w, i int
	for _, f := range s.Findings {
		switch f.severity {
		case rule.SeverityError:
			e++
		case rule.SeverityWarning:
			w++
		default:
			i++
		}
	}
	var parts []string
	for _, c := range []struct {
		n    int
		what string
	}{{e, "error"}, {w, "warning"}, {i, "info"}} {
		if c.n > 0 {
			parts = append(parts, quote.Count(c.n, c.what))
		}
	}
	switch {
	case e > 0:
		return "❌ broken: " + strings.Join(parts, ", ")
	case w > 0:
		return "⚠️ at risk: " + strings.Join(parts, ", ")
	case i > 0:
		return "✅ clean (" + strings.Join(parts, ", ") + ")"
	}
	return "✅ clean"
}

func revisionText(s Session) string {
	v := s.ProtocolVersion
	switch {
	case !s.HasContract():
		return "unknown (no handshake)"
	case s.Era == "modern":
		return mdText(orDash(v.Requested)) + " (per request)"
	case v.Negotiated != "":
		return mdText(v.Negotiated) + " (" + mdText(v.Verdict) + ")"
	}
	return "requested " + mdText(orDash(v.Requested)) + ", answered " + mdText(orDash(v.Answered)) + " (" + mdText(v.Verdict) + ")"
}

// writeMarkdownSession writes session n (its position in the report: sessions are
// numbered per input, and a report may hold several inputs).
func writeMarkdownSession(b *strings.Builder, r *Report, s Session, n int) {
	fmt.Fprintf(b, "## Session %d\n\n", n)
	fmt.Fprintf(b, "**%s ⇄ %s · %s · %s**\n\n", mdText(peerName(s.Client)), mdText(peerName(s.Server)), revisionText(s), sessionVerdict(s))
	where := fmt.Sprintf("lines %d–%d", s.FirstLine, s.LastLine)
	if s.StreamKey != "" {
		where += ", stream " + mdCode(s.StreamKey)
	}
	input := mdCode(s.Input)
	if s.Index != n {
		input += fmt.Sprintf(" (its session %d)", s.Index)
	}
	fmt.Fprintf(b, "- Capture: %s, %s, %s era, %s: %s, %s, %s", input, where, mdText(s.Era), quote.Count(s.Frames, "frame"),
		quote.Count(s.Requests, "request"), quote.Count(s.Notifications, "notification"), quote.Count(s.Responses, "response"))
	if s.Invalid > 0 {
		fmt.Fprintf(b, ", %d invalid", s.Invalid)
	}
	b.WriteString(".\n")
	if s.HasContract() {
		fmt.Fprintf(b, "- Revision: %s\n", negotiationText(s))
	}
	b.WriteString("\n")
	writeContract(b, s)
	writeSequence(b, s)
	writeFindings(b, r, s)
	if len(s.Notes) > 0 {
		b.WriteString("### Notes\n\n")
		for _, n := range s.Notes {
			fmt.Fprintf(b, "- %s\n", mdText(n))
		}
		b.WriteString("\n")
	}
}

func negotiationText(s Session) string {
	v := s.ProtocolVersion
	if s.Era == "modern" {
		return fmt.Sprintf("stateless (2026-07-28 and later): every request carries its own protocolVersion; the latest one was %s.", mdCode(orDash(v.Requested)))
	}
	text := fmt.Sprintf("the client requested %s, the server answered %s", mdCode(orDash(v.Requested)), mdCode(orDash(v.Answered)))
	switch v.Verdict {
	case "echoed":
		return text + ": the session runs under " + mdCode(v.Negotiated) + "."
	case "downgraded":
		return text + ": negotiated down to the older " + mdCode(v.Negotiated) + "; nothing added after it may be used."
	case "not offered":
		return text + ", a newer revision the client never offered (a negotiation bug in the server)."
	case "initialize failed":
		return text + ": initialize was answered with an error, no session was established."
	case "no answer":
		return "the client requested " + mdCode(orDash(v.Requested)) + " and initialize was never answered in the capture."
	}
	return text + " (" + mdText(v.Verdict) + ")."
}

// MarkdownRequires is what the Markdown report needs of the analysis: the
// contract table, and the frames its sequence diagram draws.
var MarkdownRequires = trace.Needs{Frames: true, Diagram: true, Contract: true}

func capsBytes(raw json.RawMessage) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

func writeContract(b *strings.Builder, s Session) {
	b.WriteString("### Contract\n\n")
	if !s.HasContract() {
		b.WriteString("No contract: the capture holds no initialize exchange and no modern request for this session, " +
			"so what each side declared is unknown and the capability rules could not judge its messages.\n\n")
		return
	}
	b.WriteString("In the handshake each side declares its capabilities: a promise of what it supports. A message that a capability " +
		"gates may be sent only when the side owning that capability declared it; the receiver may drop anything else. " +
		"\"Used by\" counts the messages of this session that each capability gates.\n\n")
	switch {
	case s.Trace == nil:
		b.WriteString("(No contract table: the report was built without the analysis's trace, MarkdownRequires.)\n\n")
	case len(s.Trace.Contract) == 0:
		b.WriteString("Neither side declared a capability, and no message of the session needed one.\n\n")
	default:
		rows := s.Trace.Contract
		b.WriteString("| capability | declared by | used by | agreement |\n| --- | --- | --- | --- |\n")
		for _, row := range rows {
			fmt.Fprintf(b, "| %s | %s | %s | %s |\n", cell(mdCode(row.Side.String()+"."+row.Path)), cell(markdownMarkup.declared(s, row)), cell(markdownMarkup.used(row)), cell(markdownMarkup.agreement(s, row)))
		}
		b.WriteString("\n")
	}
	if s.Trace != nil && s.Trace.OtherMethods > 0 {
		fmt.Fprintf(b, "(%s of more methods than the %d counted per session are not in the table.)\n\n", quote.Count(s.Trace.OtherMethods, "message"), trace.MaxMethods)
	}
	fmt.Fprintf(b, "<details><summary>Capability objects as declared</summary>\n\n")
	fmt.Fprintf(b, "Client (%s):\n\n", declaredWhere(s, spec.Client))
	writeCodeBlock(b, "json", capsPretty(s.Client.Capabilities))
	fmt.Fprintf(b, "Server (%s):\n\n", declaredWhere(s, spec.Server))
	writeCodeBlock(b, "json", capsPretty(s.Server.Capabilities))
	b.WriteString("</details>\n\n")
}

func capsPretty(raw json.RawMessage) string {
	if len(capsBytes(raw)) == 0 {
		return "(not in the capture)"
	}
	return Pretty(raw, PrettyOptions{MaxLines: 80})
}

func declaredWhere(s Session, side spec.Side) string {
	line, what := s.ServerLine, "initialize result"
	if side == spec.Client {
		line, what = s.ClientLine, "initialize request"
	}
	if s.Era == "modern" {
		what = "server/discover result"
		if side == spec.Client {
			what = "the latest request's _meta"
		}
	}
	if line == 0 {
		return what + ", not in the capture"
	}
	return fmt.Sprintf("%s, line %d", what, line)
}

func writeSequence(b *strings.Builder, s Session) {
	b.WriteString("### Sequence\n\n")
	if s.Trace == nil {
		b.WriteString("(No diagram: the report was built without the analysis's trace, MarkdownRequires.)\n\n")
		return
	}
	frames := trace.DiagramFrames(s.Trace, anchorsOf(s.Findings))
	if len(frames) < s.Frames {
		fmt.Fprintf(b, "The session has %s; the diagram draws the handshake, each flagged frame and its neighbours, and says where frames were left out.\n\n", quote.Count(s.Frames, "frame"))
	}
	var d strings.Builder
	writeMermaid(&d, s, frames)
	writeCodeBlock(b, "mermaid", d.String())
}

func writeFindings(b *strings.Builder, r *Report, s Session) {
	b.WriteString("### Findings\n\n")
	if len(s.Findings) == 0 {
		text := "None: every frame of this session kept to the contract, as far as the rules that ran could judge"
		if len(s.Notes) > 0 {
			text += " (the notes say what they could not)"
		}
		b.WriteString(text + ".\n\n")
		return
	}
	for i, f := range s.Findings {
		if i == mdDetailed {
			writeFindingTable(b, s.Findings[i:])
			break
		}
		writeFinding(b, r, s, i+1, f)
	}
}

func writeFinding(b *strings.Builder, r *Report, s Session, n int, f Finding) {
	fmt.Fprintf(b, "#### %d. %s %s %s %s, %s\n\n", n, severityIcon(f.severity), f.Severity, mdText(f.Rule), mdText(f.Name), f.Where())
	title := ""
	if ru := r.rule(f.Rule); ru != nil {
		title = "**" + ru.Title + ".** "
	}
	fmt.Fprintf(b, "%s%s\n\n", title, mdText(f.Message))
	fmt.Fprintf(b, "What to do: %s ([more](#%s)).\n\n", mdText(f.hint), ruleAnchor(f.Rule, f.Name))
	where := []string{f.Where()}
	if f.Direction != nil {
		where = append(where, directionText(*f.Direction))
	}
	if f.Time != nil {
		where = append(where, mdText(*f.Time))
	}
	if len(f.Evidence) > 0 {
		cutNote := ""
		if f.Truncated {
			cutNote = fmt.Sprintf(" (cut at %d KiB when captured)", rule.MaxEvidence>>10)
		}
		fmt.Fprintf(b, "The offending frame, %s%s:\n\n", strings.Join(where, ", "), cutNote)
		writeCodeBlock(b, "json", Pretty(f.Evidence, PrettyOptions{}))
	}
	for _, rel := range f.Related {
		raw := rel.Raw
		if len(raw) == 0 && s.Trace != nil {
			raw = s.Trace.Declaring[rel.Line]
		}
		label := rel.Note // the rules' notes usually name the line: "initialize result (line 2): ..."
		if !strings.Contains(label, fmt.Sprintf("line %d)", rel.Line)) {
			label = fmt.Sprintf("Line %d: %s", rel.Line, rel.Note)
		}
		if len(raw) == 0 {
			fmt.Fprintf(b, "- %s\n\n", mdText(label))
			continue
		}
		fmt.Fprintf(b, "<details><summary>%s</summary>\n\n", htmlText(label))
		writeCodeBlock(b, "json", Pretty(raw, PrettyOptions{}))
		b.WriteString("</details>\n\n")
	}
}

func directionText(d string) string {
	switch d {
	case "c2s":
		return "client → server"
	case "s2c":
		return "server → client"
	}
	return "direction unknown"
}

func writeFindingTable(b *strings.Builder, rest []Finding) {
	fmt.Fprintf(b, "%s more, without their evidence:\n\n| line | rule | severity | message |\n| ---: | --- | --- | --- |\n", quote.Count(len(rest), "finding"))
	for i, f := range rest {
		if i == mdListed {
			fmt.Fprintf(b, "\n… and %s not listed here (the JSON report has them all).\n", quote.Count(len(rest)-i, "more finding"))
			break
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", strings.TrimPrefix(f.Where(), "line "), cell(mdText(f.Rule+" "+f.Name)), f.Severity, cell(mdText(f.Message)))
	}
	b.WriteString("\n")
}

func ruleAnchor(id, name string) string { return strings.ToLower(id + "-" + name) }

// writeWhatToDo explains each rule that fired, once: what it sees, why it matters,
// how to fix it, an example, and the specification it rests on.
func writeWhatToDo(b *strings.Builder, r *Report) {
	type fired struct {
		id, name, hint string
		count          int
		sessions       []int
	}
	byRule := map[string]*fired{}
	var ids []string
	for i, s := range r.Sessions {
		for _, f := range s.Findings {
			fr := byRule[f.Rule]
			if fr == nil {
				fr = &fired{id: f.Rule, name: f.Name, hint: f.hint}
				byRule[f.Rule] = fr
				ids = append(ids, f.Rule)
			}
			fr.count++
			if n := len(fr.sessions); n == 0 || fr.sessions[n-1] != i+1 {
				fr.sessions = append(fr.sessions, i+1)
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	sort.Strings(ids)
	b.WriteString("## What to do\n\n")
	for _, id := range ids {
		fr := byRule[id]
		fmt.Fprintf(b, "### %s %s\n\n", mdText(fr.id), mdText(fr.name))
		var sess []string
		for _, n := range fr.sessions {
			sess = append(sess, fmt.Sprintf("[%d](#session-%d)", n, n))
		}
		found := fmt.Sprintf("Found %s in session %s.", quote.Count(fr.count, "time"), strings.Join(sess, ", "))
		ru := r.rule(id)
		if ru == nil {
			fmt.Fprintf(b, "%s\n\n**How to fix it.** %s\n\n", found, mdText(fr.hint))
			continue
		}
		d := ru.Documentation()
		fmt.Fprintf(b, "**%s** (%s). %s\n\n", ru.Title, d.Severity, found)
		for _, sec := range d.Sections {
			fmt.Fprintf(b, "- **%s.** %s\n", sec.Title, oneParagraph(sec.Text))
		}
		b.WriteString("\n")
		if d.Example != "" || d.Fixed != "" {
			fmt.Fprintf(b, "<details><summary>Example, and the same fixed</summary>\n\n%s:\n\n", rule.ExampleTitle)
			writeCodeBlock(b, "", d.Example)
			fmt.Fprintf(b, "%s:\n\n", rule.FixedTitle)
			writeCodeBlock(b, "", d.Fixed)
			b.WriteString("</details>\n\n")
		}
		if len(d.Spec) > 0 {
			b.WriteString("Specification:\n\n")
			for _, ref := range d.Spec {
				fmt.Fprintf(b, "- [%s](%s): %s\n", ref.Label, ref.URL, oneParagraph(ref.Says))
			}
			b.WriteString("\n")
		}
	}
}

// oneParagraph keeps documentation text inside one list item.
func oneParagraph(s string) string {
	return strings.Join(strings.Fields(s), " ")
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
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
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

// htmlText escapes captured text for raw HTML (a <summary>): control characters,
// tags, entities and quotes, so that nothing can close the <details> early.
func htmlText(s string) string {
	return html.EscapeString(Safe(s))
}

// writeCodeBlock writes a fenced block with a fence longer than any backtick run
// inside it.
func writeCodeBlock(b *strings.Builder, lang, text string) {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = Safe(l)
	}
	fmt.Fprintf(b, "%s%s\n%s\n%s\n\n", fence, lang, strings.TrimRight(strings.Join(lines, "\n"), "\n"), fence)
}

// lineList renders lines as "8, 11" (with "…" when more were seen than listed).
func lineList(lines []int, count int) string {
	parts := make([]string, len(lines))
	for i, l := range lines {
		parts[i] = strconv.Itoa(l)
	}
	s := strings.Join(parts, ", ")
	if count > len(lines) {
		s += ", …"
	}
	return s
}
