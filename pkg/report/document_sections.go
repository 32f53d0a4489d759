package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Limits of the Markdown and HTML reports.
const (
	// detailedFindings per session are shown with their evidence; the rest in a table.
	detailedFindings = 30
	// listedFindings per session at most appear in that table; the rest are counted.
	listedFindings = 500
)

// formatRequires names what the writing format requires of the analysis, in
// the sentences that say a part is missing because the report was built
// without it.
var formatRequires = inlineVariants{markdown: []inline{ours("MarkdownRequires")}, html: []inline{ours("HTMLRequires")}}

// documentOf builds the document of the Markdown and HTML reports: a header
// with the verdict, the worst findings, the inputs and their errors, a row per
// session, then per session its findings with their evidence and its notes, its
// contract, sequence diagram and timeline (HTML), and at the end what to do
// about each rule that fired. What failed comes first: the first screen of the
// page shows the verdict and the findings, whatever kind they are; the
// contract, the diagram and the long timeline follow.
func documentOf(r *Report) document {
	header := []block{heading{1, []inline{ours("mcpsleuth report")}}, reportVerdict(r)}
	if r.Redacted {
		header = append(header, paragraph{attrs: []attr{class("note")}, aside: true, content: []inline{
			strong{[]inline{ours("Redacted")}}, ours(" ("), code("--redact"), ours("): the values in params and results are replaced by their type and length, " +
				"secret-looking strings (tokens, keys, cookies, credentials) are masked everywhere; methods, ids, capability objects, " +
				"protocol versions, error codes and messages, tool names and schemas are kept.")}})
	}
	if c := configuration(r.Config); c != nil {
		header = append(header, *c)
	}
	body := append(findingsSummary(r), overview(r)...)
	for i, s := range r.Sessions {
		body = append(body, sessionSection(r, s, i+1))
	}
	body = append(body, costSection(r)...)
	body = append(body, whatToDo(r)...)
	return document{title: headline(r), blocks: []block{container{element: "header", blocks: header}, container{element: "main", blocks: body}}}
}

// headline is the report's verdict in words: counts of findings by severity.
func headline(r *Report) string {
	f := r.Summary.Findings
	return fmt.Sprintf("%s, %s, %s in %s", quote.Count(f["error"], "error"), quote.Count(f["warning"], "warning"), quote.Count(f["info"], "info finding"), quote.Count(r.Summary.Sessions, "session"))
}

// reportVerdict is the report's verdict: its icon, the findings by severity,
// the inputs and the tool that judged them.
func reportVerdict(r *Report) paragraph {
	verdict, icon := verdictClass(r.worst()), verdictIcon(r.worst())
	if failedInputs(r.Errors) > 0 {
		verdict, icon = "error", statusIcon("failed") // an input not read or not judged: never a clean run
	}
	f := r.Summary.Findings
	inputs := quote.Count(len(r.Inputs), "input")
	return paragraph{attrs: []attr{class("verdict v-" + verdict)}, content: []inline{
		icon,
		inlineVariants{
			markdown: []inline{strongIf(ours(quote.Count(f["error"], "error")), f["error"] > 0), ours(", "),
				strongIf(ours(quote.Count(f["warning"], "warning")), f["warning"] > 0),
				oursf(", %s in %s of %s", quote.Count(f["info"], "info finding"), quote.Count(r.Summary.Sessions, "session"), inputs)},
			html: []inline{ours(headline(r) + ", from " + inputs)},
		},
		ours(", checked by "), captured(r.Tool.Name), ours(" "), code(r.Tool.Version), ours("."),
	}}
}

// overview lists the inputs, the inputs that could not be read or judged, and
// the sessions with their verdicts.
func overview(r *Report) []block {
	var blocks []block
	if len(r.Inputs) > 0 {
		inputs := table{attrs: []attr{class("inputs")}, columns: []column{{title: "input"}, {title: "format"},
			{title: "lines", numeric: true}, {title: "frames", numeric: true}, {title: "rejected", numeric: true}, {title: "context lines", numeric: true}}}
		for _, in := range r.Inputs {
			inputs.rows = append(inputs.rows, row{cells: []tableCell{cellOf(code(in.Name)), cellOf(captured(in.Format)),
				cellOf(oursf("%d", in.Lines)), cellOf(oursf("%d", in.Frames)), cellOf(oursf("%d", in.Rejected)), cellOf(oursf("%d", in.Context))}})
		}
		blocks = append(blocks, inputs)
		if len(r.Errors) == 0 { // a report built without them: the lossy inputs still say so
			for _, in := range r.unjudged() {
				blocks = append(blocks, paragraph{attrs: []attr{class("note warn")}, aside: true, content: []inline{statusIcon("warning"), code(in.Name), ours(": "), captured(in.Lossy)}})
			}
		}
	}
	blocks = append(blocks, inputErrors(r.Errors)...)
	if len(r.Sessions) == 0 {
		return append(blocks, para(ours("No session was found in the input: nothing to judge.")))
	}
	// Markdown names the input of each session only when there are several.
	return append(blocks, blockVariants{markdown: []block{sessionsTable(r, len(r.Inputs) > 1)}, html: []block{sessionsTable(r, true)}})
}

// inputErrors lists the inputs that could not be read or judged: each with its
// kind and message, the failing ones marked as errors.
func inputErrors(errs []InputError) []block {
	if len(errs) == 0 {
		return nil
	}
	failed := list{attrs: []attr{class("input-errors")}}
	for _, e := range errs {
		icon, verdict := statusIcon("failed"), "v-error"
		if !e.Kind.fails() {
			icon, verdict = statusIcon("warning"), "v-warning"
		}
		failed.items = append(failed.items, listItem{attrs: []attr{class("input-error " + verdict), {"data-kind", string(e.Kind)}},
			content: []inline{icon, code(e.Input), ours(" ("), captured(string(e.Kind)), ours("): "), captured(e.Message)}})
	}
	title := paragraph{attrs: []attr{class("input-errors-title")}, content: []inline{strong{[]inline{ours(quote.Count(len(errs), "input") + " could not be read or judged:")}}}}
	return []block{title, failed}
}

// sessionsTable has a row per session: its link, its input (withInput), its
// peers, revision and verdict.
func sessionsTable(r *Report, withInput bool) table {
	t := table{attrs: []attr{class("sessions")}, columns: []column{{title: "session"}}}
	if withInput {
		t.columns = append(t.columns, column{title: "input"})
	}
	t.columns = append(t.columns, column{title: "client", class: "c-peer"}, column{title: "server", class: "c-peer"}, column{title: "revision"}, column{title: "verdict"})
	for i, s := range r.Sessions {
		cells := []tableCell{cellOf(link{href: fmt.Sprintf("#session-%d", i+1), content: []inline{oursf("%d", i+1)}})}
		if withInput {
			cells = append(cells, cellOf(code(s.Input)))
		}
		cells = append(cells, cellOf(captured(peerName(s.Client))), cellOf(captured(peerName(s.Server))), cellOf(revisionOf(s)...),
			tableCell{attrs: []attr{class("v-" + verdictClass(sessionWorst(s)))}, content: sessionVerdict(s)})
		t.rows = append(t.rows, row{cells: cells})
	}
	return t
}

// statusEmoji are the Markdown's icons of statusIcon's kinds.
var statusEmoji = map[string]string{"error": "❌", "warning": "⚠️", "info": "ℹ️", "ok": "✅", "failed": "⛔"}

// statusIcon marks a status, followed by a space: an emoji in Markdown, where
// GitHub draws it; in HTML a badge the page's style draws (class "icon
// icon-KIND"), since a browser without an emoji font shows an emoji as an
// empty box. kind is error, warning, info, ok or failed (an input not read or
// not judged); the words beside the icon always say the same.
func statusIcon(kind string) inline {
	return inlineVariants{markdown: []inline{ours(statusEmoji[kind] + " ")}, html: []inline{span{"icon icon-" + kind, nil}, ours(" ")}}
}

// verdictIcon marks a verdict of the worst severity w.
func verdictIcon(w rule.Severity) inline {
	switch w {
	case rule.SeverityError:
		return statusIcon("error")
	case rule.SeverityWarning:
		return statusIcon("warning")
	}
	return statusIcon("ok")
}

// severityIcon marks a finding: as a verdict of its severity, an information
// apart.
func severityIcon(s rule.Severity) inline {
	if s < rule.SeverityWarning {
		return statusIcon("info")
	}
	return verdictIcon(s)
}

// verdictClass is the HTML class of a verdict of the worst severity w.
func verdictClass(w rule.Severity) string {
	if w < rule.SeverityWarning {
		return "ok"
	}
	return w.String()
}

func sessionWorst(s Session) rule.Severity {
	var w rule.Severity
	for _, f := range s.Findings {
		w = max(w, f.severity)
	}
	return w
}

// sessionVerdict is the one-word verdict with the counts, after its icon.
func sessionVerdict(s Session) []inline {
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
	}{{e, "error"}, {w, "warning"}, {i, "info finding"}} {
		if c.n > 0 {
			parts = append(parts, quote.Count(c.n, c.what))
		}
	}
	switch {
	case e > 0:
		return []inline{statusIcon("error"), ours("broken: " + strings.Join(parts, ", "))}
	case w > 0:
		return []inline{statusIcon("warning"), ours("at risk: " + strings.Join(parts, ", "))}
	case i > 0:
		return []inline{statusIcon("ok"), ours("clean (" + strings.Join(parts, ", ") + ")")}
	}
	return []inline{statusIcon("ok"), ours("clean")}
}

// revisionOf is the session's revision in a few words.
func revisionOf(s Session) []inline {
	v := s.ProtocolVersion
	switch {
	case !s.hasContract():
		return []inline{ours("unknown (no handshake)")}
	case s.Era == "modern":
		return []inline{captured(orDash(v.Requested)), ours(" (per request)")}
	case v.Negotiated != "":
		return []inline{captured(v.Negotiated), ours(" ("), captured(v.Verdict), ours(")")}
	}
	return []inline{ours("requested "), captured(orDash(v.Requested)), ours(", answered "), captured(orDash(v.Answered)), ours(" ("), captured(v.Verdict), ours(")")}
}

// negotiationOf tells how the session's revision was negotiated.
func negotiationOf(s Session) []inline {
	v := s.ProtocolVersion
	if s.Era == "modern" {
		return []inline{ours("stateless (2026-07-28 and later): every request carries its own protocolVersion; the latest one was "), code(orDash(v.Requested)), ours(".")}
	}
	requested := []inline{ours("the client requested "), code(orDash(v.Requested))}
	answered := slices.Concat(requested, []inline{ours(", the server answered "), code(orDash(v.Answered))})
	switch v.Verdict {
	case "echoed":
		return append(answered, ours(": the session runs under "), code(v.Negotiated), ours("."))
	case "downgraded":
		return append(answered, ours(": negotiated down to the older "), code(v.Negotiated), ours("; nothing added after it may be used."))
	case "not offered":
		return append(answered, ours(", a newer revision the client never offered (a negotiation bug in the server)."))
	case "initialize failed":
		return append(answered, ours(": initialize was answered with an error, no session was established."))
	case "no answer":
		return append(requested, ours(" and initialize was never answered in the capture."))
	}
	return append(answered, ours(" ("), captured(v.Verdict), ours(")."))
}

// sessionSection is session n (its position in the report: sessions are
// numbered per input, and a report may hold several inputs).
func sessionSection(r *Report, s Session, n int) container {
	blocks := []block{heading{2, []inline{oursf("Session %d", n)}}, sessionHeadline(s), sessionFacts(s, n)}
	// What went wrong first, and what the rules could not judge; then the
	// contract, the diagram and the timeline that show it in context.
	blocks = append(blocks, findingsSection(r, s, n)...)
	if len(s.Notes) > 0 {
		notes := list{attrs: []attr{class("notes")}}
		for _, note := range s.Notes {
			notes.items = append(notes.items, listItem{content: []inline{captured(note)}})
		}
		blocks = append(blocks, heading{3, []inline{ours("Notes")}}, notes)
	}
	blocks = append(blocks, contractSection(s)...)
	blocks = append(blocks, sequenceSection(s, n)...)
	blocks = append(blocks, timelineSection(s, n))
	return container{element: "section", attrs: []attr{class("session"), {"id", fmt.Sprintf("session-%d", n)}, {"data-session", fmt.Sprint(n)}}, blocks: blocks}
}

// sessionHeadline names the session's peers, its revision and its verdict.
func sessionHeadline(s Session) paragraph {
	peers := []inline{span{"peer client-name", []inline{captured(peerName(s.Client))}}, ours(" ⇄ "), span{"peer server-name", []inline{captured(peerName(s.Server))}}}
	rest := slices.Concat([]inline{ours(" · ")}, revisionOf(s), []inline{ours(" · ")}, sessionVerdict(s))
	return paragraph{attrs: []attr{class("verdict v-" + verdictClass(sessionWorst(s)))}, content: []inline{inlineVariants{
		markdown: []inline{strong{slices.Concat(peers, rest)}},
		html:     slices.Concat([]inline{strong{peers}}, rest),
	}}}
}

// sessionFacts says where the session was captured, what it holds and how its
// revision was negotiated.
func sessionFacts(s Session, n int) list {
	capture := []inline{ours("Capture: "), code(s.Input)}
	if s.Index != n {
		capture = append(capture, oursf(" (its session %d)", s.Index))
	}
	capture = append(capture, oursf(", lines %d–%d", s.FirstLine, s.LastLine))
	if s.StreamKey != "" {
		capture = append(capture, ours(", stream "), code(s.StreamKey))
	}
	capture = append(capture, ours(", "), captured(s.Era), oursf(" era, %s: %s, %s, %s", quote.Count(s.Frames, "frame"),
		quote.Count(s.Requests, "request"), quote.Count(s.Notifications, "notification"), quote.Count(s.Responses, "response")))
	if s.Invalid > 0 {
		capture = append(capture, oursf(", %d invalid", s.Invalid))
	}
	facts := list{items: []listItem{{content: append(capture, ours("."))}}}
	if s.hasContract() {
		facts.items = append(facts.items, listItem{content: append([]inline{ours("Revision: ")}, negotiationOf(s)...)})
	}
	return facts
}

// contractSection explains the contract and shows its table: each capability,
// who declared it, who used it; then the capability objects as declared.
func contractSection(s Session) []block {
	blocks := []block{heading{3, []inline{ours("Contract")}}}
	if !s.hasContract() {
		return append(blocks, para(ours("No contract: the capture holds no initialize exchange and no modern request for this session, "+
			"so what each side declared is unknown and the capability rules could not judge its messages.")))
	}
	blocks = append(blocks, para(ours("In the handshake each side declares its capabilities: a promise of what it supports. A message that a capability "+
		"gates may be sent only when the side owning that capability declared it; the receiver may drop anything else. "),
		quotation{[]inline{ours("Used by")}}, ours(" counts the messages of this session that each capability gates.")))
	switch {
	case s.Trace == nil:
		blocks = append(blocks, para(ours("(No contract table: the report was built without the analysis's trace, "), formatRequires, ours(".)")))
	case len(s.Trace.Contract) == 0:
		blocks = append(blocks, para(ours("Neither side declared a capability, and no message of the session needed one.")))
	default:
		contract := table{attrs: []attr{class("contract")}, columns: []column{{title: "capability", class: "c-capability"},
			{title: "declared by", class: "c-declared"}, {title: "used by"}, {title: "agreement", class: "c-agreement"}}}
		for _, r := range s.Trace.Contract {
			var attrs []attr
			if r.Undeclared > 0 { // the gate judgement's (rules.Gates), not this view's
				attrs = []attr{class("broken")}
			}
			contract.rows = append(contract.rows, row{attrs: attrs, cells: []tableCell{cellOf(code(r.Side.String() + "." + r.Path)),
				cellOf(declaredCell(s, r)...), cellOf(usedCell(r)...), cellOf(agreementCell(s, r)...)}})
		}
		blocks = append(blocks, contract)
	}
	if s.Trace != nil && s.Trace.OtherMethods > 0 {
		blocks = append(blocks, para(oursf("(%s of more methods than the %d counted per session are not in the table.)", quote.Count(s.Trace.OtherMethods, "message"), trace.MaxMethods)))
	}
	return append(blocks, details{summary: []inline{ours("Capability objects as declared")}, blocks: []block{
		para(ours("Client ("), authored(declaredWhere(s, spec.Client)), ours("):")), codeBlock{"json", capsPretty(s.Client.Capabilities)},
		para(ours("Server ("), authored(declaredWhere(s, spec.Server)), ours("):")), codeBlock{"json", capsPretty(s.Server.Capabilities)},
	}})
}

func capsBytes(raw json.RawMessage) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

func capsPretty(raw json.RawMessage) string {
	if len(capsBytes(raw)) == 0 {
		return "(not in the capture)"
	}
	return Pretty(raw, PrettyOptions{maxLines: 80})
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

// sequenceSection draws the session's sequence diagram.
func sequenceSection(s Session, n int) []block {
	blocks := []block{heading{3, []inline{ours("Sequence")}}}
	if s.Trace == nil {
		return append(blocks, para(ours("(No diagram: the report was built without the analysis's trace, "), formatRequires, ours(".)")))
	}
	frames := trace.DiagramFrames(s.Trace, anchorsOf(s.Findings))
	if len(frames) < s.Frames {
		blocks = append(blocks, para(oursf("The session has %s; the diagram draws the handshake, each flagged frame and its neighbours, and says where frames were left out.", quote.Count(s.Frames, "frame")),
			inlineVariants{html: []inline{ours(" The timeline below lists them all.")}}))
	}
	return append(blocks, sequenceDiagram{session: s, n: n, frames: frames})
}

// timelineSection is the HTML page's timeline of every frame of the session.
func timelineSection(s Session, n int) block {
	blocks := []block{heading{3, []inline{ours("Timeline")}}}
	if s.Trace == nil {
		blocks = append(blocks, para(ours("(No timeline: the report was built without the analysis's trace, HTMLRequires.)")))
	} else {
		blocks = append(blocks, frameTimeline{session: s, n: n})
	}
	return blockVariants{html: blocks}
}

// findingsSection shows the session's first findings with their evidence, and
// the next ones in a table.
func findingsSection(r *Report, s Session, n int) []block {
	blocks := []block{heading{3, []inline{ours("Findings")}}}
	if len(s.Findings) == 0 {
		none := "None: every frame of this session kept to the contract, as far as the rules that ran could judge"
		if len(s.Notes) > 0 {
			none += " (the notes say what they could not)"
		}
		return append(blocks, paragraph{attrs: []attr{class("clean")}, content: []inline{ours(none + ".")}})
	}
	detailed := entries{attrs: []attr{class("findings")}}
	for i, f := range s.Findings[:min(len(s.Findings), detailedFindings)] {
		e := findingEntry(r, s, n, f)
		e.attrs = append(e.attrs, attr{"id", findingAnchor(n, i)})
		detailed.items = append(detailed.items, e)
	}
	blocks = append(blocks, detailed)
	if len(s.Findings) > detailedFindings {
		blocks = append(blocks, findingTable(s.Findings[detailedFindings:], n, detailedFindings)...)
	}
	return blocks
}

// findingAnchor is the id of the i-th finding (from 0) of session n: its entry,
// or its row in the table of the findings shown without their evidence.
func findingAnchor(n, i int) string { return fmt.Sprintf("s%d-finding-%d", n, i+1) }

// summarisedFindings at most are listed under the report's verdict.
const summarisedFindings = 10

// findingsSummary lists the report's worst findings under its verdict, before
// anything else: severity, rule, session (when there are several), line and
// message, each linked in HTML to the finding with its evidence. They are the
// errors first, then the warnings, then the rest, in the report's order.
func findingsSummary(r *Report) []block {
	type located struct {
		f    Finding
		n, i int // the session's position in the report, the finding's in the session
	}
	var all []located
	for si, s := range r.Sessions {
		for fi, f := range s.Findings {
			all = append(all, located{f, si + 1, fi})
		}
	}
	if len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b located) int { return cmp.Compare(b.f.severity, a.f.severity) })
	several := len(r.Sessions) > 1
	t := table{attrs: []attr{class("summary")}, columns: []column{{title: "severity", class: "c-severity"}, {title: "rule", class: "c-rule"}}}
	if several {
		t.columns = append(t.columns, column{title: "session", numeric: true, class: "c-session"})
	}
	t.columns = append(t.columns, column{title: "line", numeric: true, class: "c-line"}, column{title: "message", class: "c-message"})
	for _, l := range all[:min(len(all), summarisedFindings)] {
		f := l.f
		target := "#" + findingAnchor(l.n, l.i)
		if l.i >= detailedFindings+listedFindings { // in no table: its session
			target = fmt.Sprintf("#session-%d", l.n)
		}
		cells := []tableCell{cellOf(severityIcon(f.severity), span{"sev", []inline{ours(f.Severity)}}), cellOf(captured(f.Rule + " " + f.Name))}
		if several {
			cells = append(cells, cellOf(link{href: fmt.Sprintf("#session-%d", l.n), content: []inline{oursf("%d", l.n)}}))
		}
		line := inlineVariants{markdown: []inline{ours(strings.TrimPrefix(f.where(), "line "))}, html: []inline{link{href: target, content: []inline{oursf("%d", f.Line)}}}}
		cells = append(cells, cellOf(line), tableCell{attrs: []attr{{"title", f.Message}}, content: []inline{captured(f.Message)}})
		t.rows = append(t.rows, row{attrs: []attr{class("sev-" + f.Severity), {"data-severity", f.Severity}, {"data-rule", f.Rule}, {"data-line", fmt.Sprint(f.Line)}}, cells: cells})
	}
	blocks := []block{heading{2, []inline{ours("Findings")}}, t}
	if len(all) > summarisedFindings {
		blocks = append(blocks, para(oursf("The %d worst of %s; each session below lists its own with their evidence.", summarisedFindings, quote.Count(len(all), "finding"))))
	}
	return blocks
}

// findingEntry is one finding of session n: its rule, message, what to do, the
// offending frame and the related ones.
func findingEntry(r *Report, s Session, n int, f Finding) entry {
	// HTML links the finding to its arrow in the diagram; Markdown names the
	// entry of a document format too.
	where := inlineVariants{markdown: []inline{ours(f.where())}, html: []inline{link{href: "#" + frameAnchor(n, f.Line), content: []inline{oursf("line %d", f.Line)}}}}
	e := entry{
		attrs: []attr{class("finding sev-" + f.Severity), {"data-rule", f.Rule}, {"data-line", fmt.Sprint(f.Line)}, {"data-severity", f.Severity}},
		heading: []inline{severityIcon(f.severity), span{"sev", []inline{ours(f.Severity)}}, ours(" "),
			span{"rule", []inline{captured(f.Rule), ours(" "), captured(f.Name)}}, ours(", "), where},
	}
	message := paragraph{attrs: []attr{class("message")}}
	if ru := r.rule(f.Rule); ru != nil {
		message.content = []inline{strong{[]inline{authored(ru.Title), ours(".")}}, ours(" ")}
	}
	message.content = append(message.content, captured(f.Message))
	e.blocks = []block{message, para(ours("What to do: "), captured(f.hint), ours(" ("), link{href: "#" + ruleAnchor(f.Rule, f.Name), content: []inline{ours("more")}}, ours(")."))}
	if len(f.Evidence) > 0 {
		frame := []inline{ours("The offending frame, "), inlineVariants{markdown: []inline{ours(f.where())}, html: []inline{oursf("line %d", f.Line)}}}
		if f.Direction != nil {
			frame = append(frame, ours(", "+directionText(*f.Direction)))
		}
		if f.Time != nil {
			frame = append(frame, ours(", "), captured(*f.Time))
		}
		if f.Truncated {
			frame = append(frame, oursf(" (cut at %d KiB when captured)", rule.MaxEvidence>>10))
		}
		e.blocks = append(e.blocks, para(append(frame, ours(":"))...), codeBlock{"json", Pretty(f.Evidence, PrettyOptions{})})
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
			e.blocks = append(e.blocks, blockVariants{
				markdown: []block{list{items: []listItem{{content: []inline{captured(label)}}}}},
				html:     []block{paragraph{attrs: []attr{class("related")}, content: []inline{captured(label)}}},
			})
			continue
		}
		e.blocks = append(e.blocks, details{attrs: []attr{class("related")}, summary: []inline{captured(label)}, blocks: []block{codeBlock{"json", Pretty(raw, PrettyOptions{})}}})
	}
	return e
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

// frameAnchor is the id of a frame's arrow in session n's diagram.
func frameAnchor(n, line int) string { return fmt.Sprintf("s%d-line-%d", n, line) }

func ruleAnchor(id, name string) string { return strings.ToLower(id + "-" + name) }

// findingTable lists the findings of session n shown without their evidence;
// first is the position of the first of them in the session (from 0).
func findingTable(rest []Finding, n, first int) []block {
	more := table{attrs: []attr{class("more-findings")}, columns: []column{{title: "line", numeric: true, class: "c-line"}, {title: "rule", class: "c-rule"},
		{title: "severity", class: "c-severity"}, {title: "message"}}}
	for i, f := range rest[:min(len(rest), listedFindings)] {
		line := inlineVariants{markdown: []inline{ours(strings.TrimPrefix(f.where(), "line "))}, html: []inline{oursf("%d", f.Line)}}
		more.rows = append(more.rows, row{attrs: []attr{class("finding sev-" + f.Severity), {"data-severity", f.Severity}, {"id", findingAnchor(n, first+i)}},
			cells: []tableCell{cellOf(line), cellOf(captured(f.Rule + " " + f.Name)), cellOf(ours(f.Severity)), cellOf(captured(f.Message))}})
	}
	blocks := []block{para(ours(quote.Count(len(rest), "finding") + " more, without their evidence:")), more}
	if len(rest) > listedFindings {
		blocks = append(blocks, para(oursf("… and %s not listed here (the JSON report has them all).", quote.Count(len(rest)-listedFindings, "more finding"))))
	}
	return blocks
}

// whatToDo explains each rule that fired, once: what it sees, why it matters,
// how to fix it, an example, and the specification it rests on.
func whatToDo(r *Report) []block {
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
			if n := len(fr.sessions); n == 0 || fr.sessions[n-1] != i+1 {
				fr.sessions = append(fr.sessions, i+1)
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	sort.Strings(ids)
	blocks := []block{heading{2, []inline{ours("What to do")}}}
	for _, id := range ids {
		fr := byRule[id]
		article := []block{heading{3, []inline{captured(id), ours(" "), captured(fr.name)}}}
		found := []inline{oursf("Found %s in session ", quote.Count(fr.count, "time"))}
		for i, n := range fr.sessions {
			if i > 0 {
				found = append(found, ours(", "))
			}
			found = append(found, link{href: fmt.Sprintf("#session-%d", n), content: []inline{oursf("%d", n)}})
		}
		found = append(found, ours("."))
		if ru := r.rule(id); ru == nil {
			article = append(article, para(found...), para(strong{[]inline{ours("How to fix it.")}}, ours(" "), captured(fr.hint)))
		} else {
			article = append(article, ruleAdvice(ru, found)...)
		}
		blocks = append(blocks, container{element: "article", attrs: []attr{{"id", ruleAnchor(id, fr.name)}}, blocks: article})
	}
	return []block{container{element: "section", attrs: []attr{class("what-to-do")}, blocks: blocks}}
}

// ruleAdvice is a rule's documentation: its title, where it was found, its
// sections, an example and the specification it rests on.
func ruleAdvice(ru *rule.Rule, found []inline) []block {
	d := ru.Documentation()
	blocks := []block{para(slices.Concat([]inline{strong{[]inline{authored(ru.Title)}}, ours(" ("), authored(d.Severity), ours("). ")}, found)...)}
	sections := list{packed: true}
	for _, sec := range d.Sections {
		sections.items = append(sections.items, listItem{content: []inline{strong{[]inline{authored(sec.Title), ours(".")}}, ours(" "), authored(oneParagraph(sec.Text))}})
	}
	blocks = append(blocks, sections)
	if d.Example != "" || d.Fixed != "" {
		blocks = append(blocks, details{summary: []inline{ours("Example, and the same fixed")}, blocks: []block{
			para(authored(rule.ExampleTitle), ours(":")), codeBlock{"", d.Example},
			para(authored(rule.FixedTitle), ours(":")), codeBlock{"", d.Fixed},
		}})
	}
	if len(d.Spec) > 0 {
		refs := list{attrs: []attr{class("spec")}}
		for _, ref := range d.Spec {
			refs.items = append(refs.items, listItem{content: []inline{link{href: ref.URL, external: true, content: []inline{authored(ref.Label)}}, ours(": "), authored(oneParagraph(ref.Says))}})
		}
		blocks = append(blocks, para(ours("Specification:")), refs)
	}
	return blocks
}

// oneParagraph keeps documentation text inside one list item.
func oneParagraph(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// configuration says what the report was made under when it is not the
// defaults (a file, rules left out, severities changed, findings suppressed or
// in a baseline, a threshold): what a reader of the report does not see.
func configuration(c *Config) *paragraph {
	if c == nil {
		return nil
	}
	var parts []string
	if c.File != "" {
		parts = append(parts, "configuration file "+c.File)
	}
	if c.RulesRun < c.Rules {
		parts = append(parts, fmt.Sprintf("%d of %d rules ran", c.RulesRun, c.Rules))
	}
	if len(c.Disable) > 0 {
		parts = append(parts, "disabled: "+strings.Join(c.Disable, ", "))
	}
	if len(c.Severity) > 0 {
		var sev []string
		for _, k := range slices.Sorted(maps.Keys(c.Severity)) {
			sev = append(sev, k+" "+c.Severity[k])
		}
		parts = append(parts, "severities: "+strings.Join(sev, ", "))
	}
	if c.FailOn != "error" {
		parts = append(parts, "fail-on "+c.FailOn)
	}
	if c.MinSeverity != "" && c.MinSeverity != "info" {
		parts = append(parts, "min-severity "+c.MinSeverity)
	}
	if len(c.Suppress) > 0 {
		parts = append(parts, quote.Count(len(c.Suppress), "suppression")+" (each session's notes count what they hid)")
	}
	if c.Baseline != "" {
		parts = append(parts, "baseline "+c.Baseline+" (its findings are not shown)")
	}
	if len(parts) == 0 {
		return nil
	}
	return &paragraph{attrs: []attr{class("note")}, aside: true, content: []inline{
		strong{[]inline{ours("Configuration")}}, ours(": "), captured(strings.Join(parts, "; ")), ours(".")}}
}
