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
	Kinds: rule.KindsOf(frame.KindResult),
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
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"initialize"},
}

// downgradeLosses lists what revision from has and revision to lacks: methods,
// batching and capability fields, from the spec tables (spec.Lost).
func downgradeLosses(from, to spec.Revision) string {
	lost := spec.Lost(from, to)
	var parts []string
	if methods := methodsLost(lost); len(methods) > 0 {
		parts = append(parts, "methods "+strings.Join(methods, ", "))
	}
	if lost.Batching {
		parts = append(parts, "JSON-RPC batches (sending arrays)")
	}
	if len(lost.Capabilities) > 0 {
		caps := make([]string, len(lost.Capabilities))
		for i, c := range lost.Capabilities {
			caps[i] = c.String()
		}
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

// methodsLost names the lost JSON-RPC methods with who sends them:
// "elicitation/create (server)", "tasks/get (either side)".
func methodsLost(lost spec.Losses) []string {
	out := make([]string, 0, len(lost.Methods))
	for _, l := range lost.Methods {
		switch {
		case l.Kind == spec.KindInputRequest:
		case l.Client && l.Server:
			out = append(out, l.Name+" (either side)")
		case l.Client:
			out = append(out, l.Name+" (client)")
		default:
			out = append(out, l.Name+" (server)")
		}
	}
	return out
}
