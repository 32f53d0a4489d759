package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
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
var HTMLRequires = trace.Needs{Frames: true, Raw: true, Contract: true}

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
// Markdown report (verdicts, contract table, findings with evidence, what to do,
// specification links), a sequence diagram per session drawn as inline SVG, and
// a timeline of every frame that can be filtered by severity, method and
// direction, each frame's JSON shown on click. Light and dark themes follow the
// reader's preference.
func WriteHTML(w io.Writer, r *Report) error {
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", htmlText(HTMLPolicy()))
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n")
	fmt.Fprintf(&b, "<title>mcpsleuth report: %s</title>\n", htmlText(headline(r)))
	b.WriteString("<style>" + htmlStyle + "</style>\n</head>\n<body>\n")
	writeHTMLHeader(&b, r)
	for i, s := range r.Sessions {
		writeHTMLSession(&b, r, s, i+1)
	}
	writeHTMLWhatToDo(&b, r)
	b.WriteString("</main>\n<footer>Written by " + htmlText(r.Tool.Name) + " " + htmlText(r.Tool.Version) + ". This page loads nothing: its style and script are inline, and its Content-Security-Policy forbids every other load.</footer>\n")
	b.WriteString("<script>" + htmlScript + "</script>\n</body>\n</html>\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the HTML report: %w", err)
	}
	return nil
}

// headline is the report's verdict in words: counts of findings by severity.
func headline(r *Report) string {
	f := r.Summary.Findings
	return fmt.Sprintf("%s, %s, %s in %s", quote.Count(f["error"], "error"), quote.Count(f["warning"], "warning"), quote.Count(f["info"], "info finding"), quote.Count(r.Summary.Sessions, "session"))
}

func verdictClass(w rule.Severity) string {
	switch w {
	case rule.SeverityError:
		return "error"
	case rule.SeverityWarning:
		return "warning"
	}
	return "ok"
}

func writeHTMLHeader(b *strings.Builder, r *Report) {
	b.WriteString("<header>\n<h1>mcpsleuth report</h1>\n")
	class, icon := verdictClass(r.Worst()), verdictIcon(r.Worst())
	if failedInputs(r.Errors) > 0 {
		class, icon = "error", "⛔" // an input not read or not judged: never a clean run
	}
	fmt.Fprintf(b, "<p class=\"verdict v-%s\">%s %s, from %s, checked by %s %s.</p>\n", class, icon,
		htmlText(headline(r)), quote.Count(len(r.Inputs), "input"), htmlText(r.Tool.Name), htmlCode(r.Tool.Version))
	if r.Redacted {
		b.WriteString("<p class=\"note\"><strong>Redacted</strong> (<code>--redact</code>): the values in params and results are replaced by their type and length, " +
			"secret-looking strings (tokens, keys, cookies, credentials) are masked everywhere; methods, ids, capability objects, " +
			"protocol versions, error codes and messages, tool names and schemas are kept.</p>\n")
	}
	b.WriteString("</header>\n<main>\n")
	if len(r.Inputs) > 0 {
		b.WriteString("<table class=\"inputs\"><thead><tr><th>input</th><th>format</th><th class=\"n\">lines</th><th class=\"n\">frames</th><th class=\"n\">rejected</th><th class=\"n\">context lines</th></tr></thead><tbody>\n")
		for _, in := range r.Inputs {
			fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td class=\"n\">%d</td></tr>\n",
				htmlCode(in.Name), htmlText(in.Format), in.Lines, in.Frames, in.Rejected, in.Context)
		}
		b.WriteString("</tbody></table>\n")
		if len(r.Errors) == 0 { // a report built without them: the lossy inputs still say so
			for _, in := range r.Unjudged() {
				fmt.Fprintf(b, "<p class=\"note warn\">⚠️ %s: %s</p>\n", htmlCode(in.Name), htmlText(in.Lossy))
			}
		}
	}
	writeHTMLErrors(b, r.Errors)
	if len(r.Sessions) == 0 {
		b.WriteString("<p>No session was found in the input: nothing to judge.</p>\n")
		return
	}
	b.WriteString("<table class=\"sessions\"><thead><tr><th>session</th><th>input</th><th>client</th><th>server</th><th>revision</th><th>verdict</th></tr></thead><tbody>\n")
	for i, s := range r.Sessions {
		fmt.Fprintf(b, "<tr><td><a href=\"#session-%d\">%d</a></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td class=\"v-%s\">%s</td></tr>\n", i+1, i+1,
			htmlCode(s.Input), htmlText(peerName(s.Client)), htmlText(peerName(s.Server)), htmlRevision(s), verdictClass(sessionWorst(s)), htmlText(sessionVerdict(s)))
	}
	b.WriteString("</tbody></table>\n")
}

// writeHTMLErrors lists the inputs that could not be read or judged, as the
// Markdown report does: each with its kind and message, the failing ones marked
// as errors.
func writeHTMLErrors(b *strings.Builder, errs []InputError) {
	if len(errs) == 0 {
		return
	}
	fmt.Fprintf(b, "<p class=\"input-errors-title\"><strong>%s could not be read or judged:</strong></p>\n<ul class=\"input-errors\">\n", quote.Count(len(errs), "input"))
	for _, e := range errs {
		icon, class := "⛔", "v-error"
		if !e.Kind.Fails() {
			icon, class = "⚠️", "v-warning"
		}
		fmt.Fprintf(b, "<li class=\"input-error %s\" data-kind=\"%s\">%s %s (%s): %s</li>\n", class, htmlText(string(e.Kind)), icon, htmlCode(e.Input), htmlText(string(e.Kind)), htmlText(e.Message))
	}
	b.WriteString("</ul>\n")
}

func sessionWorst(s Session) rule.Severity {
	var w rule.Severity
	for _, f := range s.Findings {
		w = max(w, f.severity)
	}
	return w
}

func htmlRevision(s Session) string {
	v := s.ProtocolVersion
	switch {
	case !s.HasContract():
		return "unknown (no handshake)"
	case s.Era == "modern":
		return htmlText(orDash(v.Requested)) + " (per request)"
	case v.Negotiated != "":
		return htmlText(v.Negotiated) + " (" + htmlText(v.Verdict) + ")"
	}
	return "requested " + htmlText(orDash(v.Requested)) + ", answered " + htmlText(orDash(v.Answered)) + " (" + htmlText(v.Verdict) + ")"
}

func htmlNegotiation(s Session) string {
	v := s.ProtocolVersion
	if s.Era == "modern" {
		return "stateless (2026-07-28 and later): every request carries its own protocolVersion; the latest one was " + htmlCode(orDash(v.Requested)) + "."
	}
	text := "the client requested " + htmlCode(orDash(v.Requested)) + ", the server answered " + htmlCode(orDash(v.Answered))
	switch v.Verdict {
	case "echoed":
		return text + ": the session runs under " + htmlCode(v.Negotiated) + "."
	case "downgraded":
		return text + ": negotiated down to the older " + htmlCode(v.Negotiated) + "; nothing added after it may be used."
	case "not offered":
		return text + ", a newer revision the client never offered (a negotiation bug in the server)."
	case "initialize failed":
		return text + ": initialize was answered with an error, no session was established."
	case "no answer":
		return "the client requested " + htmlCode(orDash(v.Requested)) + " and initialize was never answered in the capture."
	}
	return text + " (" + htmlText(v.Verdict) + ")."
}

func writeHTMLSession(b *strings.Builder, r *Report, s Session, n int) {
	fmt.Fprintf(b, "<section class=\"session\" id=\"session-%d\" data-session=\"%d\">\n<h2>Session %d</h2>\n", n, n, n)
	fmt.Fprintf(b, "<p class=\"verdict v-%s\"><strong><span class=\"peer client-name\">%s</span> ⇄ <span class=\"peer server-name\">%s</span></strong> · %s · %s</p>\n",
		verdictClass(sessionWorst(s)), htmlText(peerName(s.Client)), htmlText(peerName(s.Server)), htmlRevision(s), htmlText(sessionVerdict(s)))
	where := fmt.Sprintf("lines %d–%d", s.FirstLine, s.LastLine)
	if s.StreamKey != "" {
		where += ", stream " + htmlCode(s.StreamKey)
	}
	input := htmlCode(s.Input)
	if s.Index != n {
		input += fmt.Sprintf(" (its session %d)", s.Index)
	}
	fmt.Fprintf(b, "<ul><li>Capture: %s, %s, %s era, %s: %s, %s, %s", input, where, htmlText(s.Era), quote.Count(s.Frames, "frame"),
		quote.Count(s.Requests, "request"), quote.Count(s.Notifications, "notification"), quote.Count(s.Responses, "response"))
	if s.Invalid > 0 {
		fmt.Fprintf(b, ", %d invalid", s.Invalid)
	}
	b.WriteString(".</li>\n")
	if s.HasContract() {
		fmt.Fprintf(b, "<li>Revision: %s</li>\n", htmlNegotiation(s))
	}
	b.WriteString("</ul>\n")
	writeHTMLContract(b, s)
	writeHTMLSequence(b, s, n)
	writeHTMLTimeline(b, s, n)
	writeHTMLFindings(b, r, s, n)
	if len(s.Notes) > 0 {
		b.WriteString("<h3>Notes</h3>\n<ul class=\"notes\">\n")
		for _, note := range s.Notes {
			fmt.Fprintf(b, "<li>%s</li>\n", htmlText(note))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</section>\n")
}

func writeHTMLContract(b *strings.Builder, s Session) {
	b.WriteString("<h3>Contract</h3>\n")
	if !s.HasContract() {
		b.WriteString("<p>No contract: the capture holds no initialize exchange and no modern request for this session, " +
			"so what each side declared is unknown and the capability rules could not judge its messages.</p>\n")
		return
	}
	b.WriteString("<p>In the handshake each side declares its capabilities: a promise of what it supports. A message that a capability " +
		"gates may be sent only when the side owning that capability declared it; the receiver may drop anything else. " +
		"“Used by” counts the messages of this session that each capability gates.</p>\n")
	switch {
	case s.Trace == nil:
		b.WriteString("<p>(No contract table: the report was built without the analysis's trace, HTMLRequires.)</p>\n")
	case len(s.Trace.Contract) == 0:
		b.WriteString("<p>Neither side declared a capability, and no message of the session needed one.</p>\n")
	default:
		b.WriteString("<table class=\"contract\"><thead><tr><th>capability</th><th>declared by</th><th>used by</th><th>agreement</th></tr></thead><tbody>\n")
		for _, row := range s.Trace.Contract {
			class := ""
			if !row.Declared && row.Known && len(row.Uses) > 0 {
				class = " class=\"broken\""
			}
			fmt.Fprintf(b, "<tr%s><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", class, htmlCode(row.Side.String()+"."+row.Path),
				htmlMarkup.declared(s, row), htmlMarkup.used(row), htmlMarkup.agreement(s, row))
		}
		b.WriteString("</tbody></table>\n")
	}
	if s.Trace != nil && s.Trace.OtherMethods > 0 {
		fmt.Fprintf(b, "<p>(%s of more methods than the %d counted per session are not in the table.)</p>\n", quote.Count(s.Trace.OtherMethods, "message"), trace.MaxMethods)
	}
	b.WriteString("<details><summary>Capability objects as declared</summary>\n")
	fmt.Fprintf(b, "<p>Client (%s):</p>\n%s", htmlText(declaredWhere(s, spec.Client)), htmlPre(capsPretty(s.Client.Capabilities)))
	fmt.Fprintf(b, "<p>Server (%s):</p>\n%s", htmlText(declaredWhere(s, spec.Server)), htmlPre(capsPretty(s.Server.Capabilities)))
	b.WriteString("</details>\n")
}

func writeHTMLFindings(b *strings.Builder, r *Report, s Session, n int) {
	b.WriteString("<h3>Findings</h3>\n")
	if len(s.Findings) == 0 {
		text := "None: every frame of this session kept to the contract, as far as the rules that ran could judge"
		if len(s.Notes) > 0 {
			text += " (the notes say what they could not)"
		}
		b.WriteString("<p class=\"clean\">" + text + ".</p>\n")
		return
	}
	b.WriteString("<ol class=\"findings\">\n")
	for i, f := range s.Findings {
		if i == mdDetailed {
			b.WriteString("</ol>\n")
			writeHTMLFindingTable(b, s.Findings[i:])
			return
		}
		writeHTMLFinding(b, r, s, n, f)
	}
	b.WriteString("</ol>\n")
}

func writeHTMLFinding(b *strings.Builder, r *Report, s Session, n int, f Finding) {
	fmt.Fprintf(b, "<li class=\"finding sev-%s\" data-rule=\"%s\" data-line=\"%d\" data-severity=\"%s\">\n", f.Severity, htmlText(f.Rule), f.Line, f.Severity)
	fmt.Fprintf(b, "<h4>%s <span class=\"sev\">%s</span> <span class=\"rule\">%s %s</span>, <a href=\"#%s\">line %d</a></h4>\n", severityIcon(f.severity), f.Severity,
		htmlText(f.Rule), htmlText(f.Name), frameAnchor(n, f.Line), f.Line)
	title := ""
	if ru := r.rule(f.Rule); ru != nil {
		title = "<strong>" + htmlText(ru.Title) + ".</strong> "
	}
	fmt.Fprintf(b, "<p class=\"message\">%s%s</p>\n", title, htmlText(f.Message))
	fmt.Fprintf(b, "<p>What to do: %s (<a href=\"#%s\">more</a>).</p>\n", htmlText(f.hint), ruleAnchor(f.Rule, f.Name))
	where := []string{fmt.Sprintf("line %d", f.Line)}
	if f.Direction != nil {
		where = append(where, directionText(*f.Direction))
	}
	if f.Time != nil {
		where = append(where, htmlText(*f.Time))
	}
	if len(f.Evidence) > 0 {
		cutNote := ""
		if f.Truncated {
			cutNote = fmt.Sprintf(" (cut at %d KiB when captured)", rule.MaxEvidence>>10)
		}
		fmt.Fprintf(b, "<p>The offending frame, %s%s:</p>\n%s", strings.Join(where, ", "), cutNote, htmlPre(Pretty(f.Evidence, PrettyOptions{})))
	}
	for _, rel := range f.Related {
		raw := rel.Raw
		if len(raw) == 0 && s.Trace != nil {
			raw = s.Trace.Declaring[rel.Line]
		}
		label := rel.Note
		if !strings.Contains(label, fmt.Sprintf("line %d)", rel.Line)) {
			label = fmt.Sprintf("Line %d: %s", rel.Line, rel.Note)
		}
		if len(raw) == 0 {
			fmt.Fprintf(b, "<p class=\"related\">%s</p>\n", htmlText(label))
			continue
		}
		fmt.Fprintf(b, "<details class=\"related\"><summary>%s</summary>\n%s</details>\n", htmlText(label), htmlPre(Pretty(raw, PrettyOptions{})))
	}
	b.WriteString("</li>\n")
}

func writeHTMLFindingTable(b *strings.Builder, rest []Finding) {
	fmt.Fprintf(b, "<p>%s more, without their evidence:</p>\n<table class=\"more-findings\"><thead><tr><th class=\"n\">line</th><th>rule</th><th>severity</th><th>message</th></tr></thead><tbody>\n", quote.Count(len(rest), "finding"))
	for i, f := range rest {
		if i == mdListed {
			b.WriteString("</tbody></table>\n")
			fmt.Fprintf(b, "<p>… and %s not listed here (the JSON report has them all).</p>\n", quote.Count(len(rest)-i, "more finding"))
			return
		}
		fmt.Fprintf(b, "<tr class=\"finding sev-%s\" data-severity=\"%s\"><td class=\"n\">%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", f.Severity, f.Severity, f.Line,
			htmlText(f.Rule+" "+f.Name), f.Severity, htmlText(f.Message))
	}
	b.WriteString("</tbody></table>\n")
}

// frameAnchor is the id of a frame's arrow in session n's diagram.
func frameAnchor(n, line int) string { return fmt.Sprintf("s%d-line-%d", n, line) }

// writeHTMLWhatToDo explains each rule that fired, once, with the specification it
// rests on (the Markdown report's "What to do").
func writeHTMLWhatToDo(b *strings.Builder, r *Report) {
	type fired struct {
		name, hint string
		count      int
		sessions   []int
	}
	byRule := map[string]*fired{}
	var ids []string
	for i, s := range r.Sessions {
		for _, f := range s.Findings {
			fr := byRule[f.Rule]
			if fr == nil {
				fr = &fired{name: f.Name, hint: f.hint}
				byRule[f.Rule] = fr
				ids = append(ids, f.Rule)
			}
			fr.count++
			if k := len(fr.sessions); k == 0 || fr.sessions[k-1] != i+1 {
				fr.sessions = append(fr.sessions, i+1)
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	sort.Strings(ids)
	b.WriteString("<section class=\"what-to-do\">\n<h2>What to do</h2>\n")
	for _, id := range ids {
		fr := byRule[id]
		fmt.Fprintf(b, "<article id=\"%s\">\n<h3>%s %s</h3>\n", htmlText(ruleAnchor(id, fr.name)), htmlText(id), htmlText(fr.name))
		var sess []string
		for _, n := range fr.sessions {
			sess = append(sess, fmt.Sprintf("<a href=\"#session-%d\">%d</a>", n, n))
		}
		found := fmt.Sprintf("Found %s in session %s.", quote.Count(fr.count, "time"), strings.Join(sess, ", "))
		ru := r.rule(id)
		if ru == nil {
			fmt.Fprintf(b, "<p>%s</p>\n<p><strong>How to fix it.</strong> %s</p>\n</article>\n", found, htmlText(fr.hint))
			continue
		}
		d := ru.Documentation()
		fmt.Fprintf(b, "<p><strong>%s</strong> (%s). %s</p>\n", htmlText(ru.Title), htmlText(d.Severity), found)
		b.WriteString("<ul>")
		for _, sec := range d.Sections {
			fmt.Fprintf(b, "<li><strong>%s.</strong> %s</li>", htmlText(sec.Title), htmlText(oneParagraph(sec.Text)))
		}
		b.WriteString("</ul>\n")
		if d.Example != "" || d.Fixed != "" {
			fmt.Fprintf(b, "<details><summary>Example, and the same fixed</summary>\n<p>%s:</p>\n%s<p>%s:</p>\n%s</details>\n",
				htmlText(rule.ExampleTitle), htmlPre(d.Example), htmlText(rule.FixedTitle), htmlPre(d.Fixed))
		}
		if len(d.Spec) > 0 {
			b.WriteString("<p>Specification:</p>\n<ul class=\"spec\">\n")
			for _, ref := range d.Spec {
				fmt.Fprintf(b, "<li><a href=\"%s\" rel=\"noreferrer noopener\">%s</a>: %s</li>\n", htmlText(ref.URL), htmlText(ref.Label), htmlText(oneParagraph(ref.Says)))
			}
			b.WriteString("</ul>\n")
		}
		b.WriteString("</article>\n")
	}
	b.WriteString("</section>\n")
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
