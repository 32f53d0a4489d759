package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Result is an audit: what was compared and what differs.
type Result struct {
	Side      spec.Side
	Contract  Contract
	Sources   []string
	Stats     Stats
	Emissions []Emission
	Findings  []Finding
	// Notes say what the audit could not judge.
	Notes []string
}

// Worst is the highest severity of the findings (0 when none).
func (r *Result) Worst() rule.Severity {
	var w rule.Severity
	for _, f := range r.Findings {
		w = max(w, f.Severity)
	}
	return w
}

// sent lists the gated methods the side sends, with their places.
func (r *Result) sent() map[string][]*Emission {
	send := spec.S2C
	if r.Side == spec.Client {
		send = spec.C2S
	}
	out := map[string][]*Emission{}
	for i := range r.Emissions {
		e := &r.Emissions[i]
		if _, sends, ambiguous := sentRow(e.Method, send, r.Contract.Revision); sends && !(ambiguous && e.Via == "literal") && spec.GatedAnywhere(e.Method) {
			out[e.Method] = append(out[e.Method], e)
		}
	}
	return out
}

// WriteText writes the audit for a terminal or a ticket.
func WriteText(w io.Writer, r *Result) error {
	var b strings.Builder
	c := r.Contract
	fmt.Fprintf(&b, "audit of %s (%s: %s) as the %s\n", report.Safe(strings.Join(r.Sources, ", ")), quote.Count(r.Stats.Files, "source file"), languageList(r.Stats.Languages), r.Side)
	fmt.Fprintf(&b, "against %s session %d: %s %s and %s %s, revision %s\n", report.Safe(c.Capture), c.Session,
		report.Safe(nameOr(c.Client.Name, "client")), report.Safe(c.Client.Version), report.Safe(nameOr(c.Server.Name, "server")), report.Safe(c.Server.Version), nameOr(string(c.Revision), "unknown"))
	fmt.Fprintf(&b, "  client capabilities %s\n  server capabilities %s\n", report.Safe(capsOf(c.ClientCaps)), report.Safe(capsOf(c.ServerCaps)))
	sections := []struct {
		kind, title string
	}{
		{KindUndeclared, "sent without a declaration"},
		{KindNotInRevision, "sent, but not in the negotiated revision"},
		{KindUnused, "declared, never sent"},
	}
	for _, sec := range sections {
		var lines []string
		for _, f := range r.Findings {
			if f.Kind != sec.kind {
				continue
			}
			where := fmt.Sprintf("%s:%d", c.Capture, f.CaptureLine)
			if f.Emission != nil {
				where = fmt.Sprintf("%s:%d", f.Emission.File, f.Emission.Line)
				if f.Emission.Via != "literal" {
					where += " (" + f.Emission.Via + ")"
				}
			}
			lines = append(lines, fmt.Sprintf("  %s %s: %s", f.Severity, report.Safe(where), report.Safe(f.Message)))
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s:\n%s\n", sec.title, strings.Join(lines, "\n"))
	}
	sent := r.sent()
	if len(sent) > 0 {
		methods := make([]string, 0, len(sent))
		for m := range sent {
			methods = append(methods, m)
		}
		sort.Strings(methods)
		b.WriteString("\ngated messages the source sends:\n")
		for _, m := range methods {
			places := sent[m]
			shown := make([]string, 0, 3)
			for _, e := range places[:min(3, len(places))] {
				shown = append(shown, fmt.Sprintf("%s:%d", e.File, e.Line))
			}
			more := ""
			if len(places) > 3 {
				more = fmt.Sprintf(" and %d more", len(places)-3)
			}
			fmt.Fprintf(&b, "  %s: %s%s\n", m, report.Safe(strings.Join(shown, ", ")), more)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", report.Safe(n))
	}
	counts := map[rule.Severity]int{}
	for _, f := range r.Findings {
		counts[f.Severity]++
	}
	fmt.Fprintf(&b, "\n%s: %s, %s, %s\n", quote.Count(len(r.Findings), "finding"), quote.Count(counts[rule.SeverityError], "error"), quote.Count(counts[rule.SeverityWarning], "warning"), quote.Count(counts[rule.SeverityInfo], "info finding"))
	_, err := io.WriteString(w, b.String())
	return err
}

func nameOr(s, or string) string {
	if s == "" {
		return or
	}
	return s
}

func capsOf(raw []byte) string {
	if raw == nil {
		return "(not in the capture)"
	}
	return string(raw)
}

func languageList(langs map[string]int) string {
	names := make([]string, 0, len(langs))
	for l, n := range langs {
		names = append(names, fmt.Sprintf("%s %d", l, n))
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// jsonReport is the JSON shape of an audit.
type jsonReport struct {
	Version   int           `json:"version"`
	Side      string        `json:"side"`
	Sources   []string      `json:"sources"`
	Capture   jsonCapture   `json:"capture"`
	Stats     Stats         `json:"stats"`
	Findings  []jsonFinding `json:"findings"`
	Emissions []Emission    `json:"emissions"`
	Notes     []string      `json:"notes,omitempty"`
	Summary   jsonSummary   `json:"summary"`
}

type jsonCapture struct {
	Name               string          `json:"name"`
	Session            int             `json:"session"`
	Revision           string          `json:"revision"`
	Client             jsonPeer        `json:"client"`
	Server             jsonPeer        `json:"server"`
	ClientCapabilities json.RawMessage `json:"clientCapabilities"`
	ServerCapabilities json.RawMessage `json:"serverCapabilities"`
}

type jsonPeer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type jsonFinding struct {
	Severity string `json:"severity"`
	Finding
}

type jsonSummary struct {
	Findings map[string]int `json:"findings"`
}

// WriteJSON writes the audit as one JSON document.
func WriteJSON(w io.Writer, r *Result) error {
	c := r.Contract
	out := jsonReport{
		Version: 1, Side: r.Side.String(), Sources: r.Sources, Stats: r.Stats, Notes: r.Notes,
		Capture: jsonCapture{
			Name: c.Capture, Session: c.Session, Revision: string(c.Revision),
			Client:             jsonPeer{c.Client.Name, c.Client.Version},
			Server:             jsonPeer{c.Server.Name, c.Server.Version},
			ClientCapabilities: rawOrNull(c.ClientCaps), ServerCapabilities: rawOrNull(c.ServerCaps),
		},
		Findings:  []jsonFinding{},
		Emissions: r.Emissions,
		Summary:   jsonSummary{Findings: map[string]int{"error": 0, "warning": 0, "info": 0}},
	}
	if out.Emissions == nil {
		out.Emissions = []Emission{}
	}
	for _, f := range r.Findings {
		out.Findings = append(out.Findings, jsonFinding{Severity: f.Severity.String(), Finding: f})
		out.Summary.Findings[f.Severity.String()]++
	}
	// Names from the capture and the source (clientInfo, serverInfo, file names)
	// are written with their control, bidi, zero-width and tag characters escaped.
	enc := json.NewEncoder(report.SafeJSONWriter(w))
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func rawOrNull(b []byte) json.RawMessage {
	if !json.Valid(b) {
		return json.RawMessage("null")
	}
	return b
}
