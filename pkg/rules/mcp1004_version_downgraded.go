package rules

import (
	"fmt"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// VersionDowngraded reports a session negotiated down to an older revision than the
// client asked for, with what the session must therefore not use.
var VersionDowngraded = &rule.Rule{
	ID:       "MCP1004",
	Name:     "version-downgraded",
	Severity: rule.SeverityInfo,
	Title:    "The session was negotiated down to an older protocol revision than the client requested",
	Anchor:   "the initialize result",
	Hint:     "legal negotiation, but both sides must now speak the older revision: gate every method, capability and field added later on the negotiated protocolVersion, not on what the client asked for",
	Doc: rule.Doc{
		Sees: "The initialize request's protocolVersion and the initialize result's protocolVersion. When the server answered an older published revision " +
			"than the client requested, it lists what the requested revision has and the negotiated one lacks: methods (from the method table), " +
			"JSON-RPC batching, and capability fields (from the capability table). Fields added to results and content (structuredContent, titles, " +
			"icons, audio...) are MCP1010's concern.",
		Why: "A downgrade is how negotiation is meant to work when the server is older, so this is information, not a fault. But from that frame on " +
			"the older revision governs the whole session: a client that keeps using the newer revision's methods or capabilities (elicitation, " +
			"tasks, sampling with tools, batching...) talks to a peer that may not understand them and is entitled to reject or drop them. " +
			"Most version bugs in the wild are a side that negotiated one revision and then behaved as another.",
		Fix: "Nothing is broken yet. In the client, read the negotiated protocolVersion from the initialize result and switch off every feature the " +
			"listed revision lacks; in the server, make sure you answer the revision you really implement. If the downgrade is unexpected, upgrade " +
			"the server's SDK.",
		Bad: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
(the session is 2025-03-26 now: no elicitation/create, no client.elicitation)`,
		Good: `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
(or: the server answers 2025-03-26 and neither side uses what 2025-06-18 added)`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic/lifecycle#version-negotiation", Says: "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports. This SHOULD be the latest version supported by the server."},
			{Revision: spec.Rev20250618, Page: "basic/lifecycle#operation", Says: "Both parties MUST: Respect the negotiated protocol version; Only use capabilities that were successfully negotiated (SHOULD in 2024-11-05 and 2025-03-26)."},
		},
	},
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindResult || m.Request == nil || m.Request.Method != "initialize" || m.Contract == nil {
			return
		}
		c := m.Contract
		if c.Verdict != session.VerdictDowngraded || c.ResultLine != m.Line {
			return
		}
		requested, _ := spec.ParseRevision(c.Requested)
		negotiated, _ := spec.ParseRevision(c.Answered)
		p.Report(rule.At(m), rule.Sprintf("the client requested protocolVersion %s (line %d) and the server answered %s: the session is %s, so neither side may use what %s has and %s lacks: %s",
			requested, c.RequestLine, negotiated, negotiated, requested, negotiated, downgradeLosses(requested, negotiated)),
			rule.Related{Line: c.RequestLine, Note: "initialize request: protocolVersion " + c.Requested})
	}),
}

// downgradeLosses lists what revision from has and revision to lacks: methods,
// batching and capability fields, from the spec tables.
func downgradeLosses(from, to spec.Revision) string {
	var parts []string
	if methods := methodsLost(from, to); len(methods) > 0 {
		parts = append(parts, "methods "+strings.Join(methods, ", "))
	}
	if from.Batching() && !to.Batching() {
		parts = append(parts, "JSON-RPC batches (sending arrays)")
	}
	if caps := capabilitiesLost(from, to); len(caps) > 0 {
		parts = append(parts, "capabilities "+strings.Join(caps, ", "))
	}
	text := strings.Join(parts, "; ")
	if text == "" {
		text = "no method, batching or capability differs (only fields and content types may)"
	}
	if to.Batching() && !from.Batching() {
		text += fmt.Sprintf("; and %s lets the peer send JSON-RPC batches, which each side must be able to receive", to)
	}
	return text
}

// methodsLost names the core methods of revision from that revision to lacks, with
// who sends them: "elicitation/create (server)", "tasks/get (both)".
func methodsLost(from, to spec.Revision) []string {
	type lost struct {
		name  string
		sides [3]bool
	}
	var order []*lost
	byName := map[string]*lost{}
	for _, row := range spec.Methods() {
		if row.Extension != "" || row.Kind == spec.KindInputRequest || !row.In(from) {
			continue
		}
		if _, ok := spec.LookupMethod(row.Name, to, row.Dir); ok {
			continue
		}
		l := byName[row.Name]
		if l == nil {
			l = &lost{name: row.Name}
			byName[row.Name] = l
			order = append(order, l)
		}
		l.sides[row.Dir] = true
	}
	out := make([]string, 0, len(order))
	for _, l := range order {
		switch {
		case l.sides[spec.C2S] && l.sides[spec.S2C]:
			out = append(out, l.name+" (either side)")
		case l.sides[spec.C2S]:
			out = append(out, l.name+" (client)")
		default:
			out = append(out, l.name+" (server)")
		}
	}
	return out
}

// capabilitiesLost names the capability fields of revision from that revision to
// lacks, leaving out fields whose parent is listed already.
func capabilitiesLost(from, to spec.Revision) []string {
	var out []string
	for _, c := range spec.Capabilities() {
		if !c.In(from) || c.In(to) {
			continue
		}
		name := c.String()
		covered := false
		for _, parent := range out {
			if strings.HasPrefix(name, parent+".") {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, name)
		}
	}
	return out
}
