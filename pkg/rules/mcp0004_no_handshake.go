package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// NoHandshake reports frames seen before any initialize or modern request.
var NoHandshake = &rule.Rule{
	ID:       "MCP0004",
	Name:     "no-handshake",
	Severity: rule.SeverityInfo,
	Title:    "Frames before any handshake: the contract is unknown",
	Anchor:   "the first frame of the session",
	Hint:     "start the capture before the client connects, so that the initialize exchange (or the first modern request) is in it",
	Doc: rule.Doc{
		Sees: `A session whose first messages came before any handshake: before an initialize request (2024-11-05 to 2025-11-25) or a request carrying _meta["io.modelcontextprotocol/protocolVersion"] (2026-07-28). One finding per session, at its first frame, with the number of messages that had no contract. Usually the capture started after the client had connected: a proxy attached to a running session, a rotated log, a recorder started late.`,
		Why:  `Without the handshake there is no known protocol revision and neither side's capabilities, so the revision and capability rules (MCP1008, MCP2001, MCP2002 and others) cannot judge these frames: no finding about them means "not checked", not "clean". If the capture really is complete, the client skipped initialization, which no legacy server has to accept: it may reject every request, or serve it under defaults the client never agreed to.`,
		Fix:  "Start the capture before the client connects, so that the initialize exchange (or the first modern request) is in it. If the capture is complete, fix the client: send initialize first and notifications/initialized after its result (2024-11-05 to 2025-11-25), or put protocolVersion and clientCapabilities in the _meta of every request (2026-07-28).",
		Bad: `# the capture starts mid-session: no initialize in it
c->s {"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"search","arguments":{"q":"mcp"}}}
s->c {"jsonrpc":"2.0","id":14,"result":{"content":[{"type":"text","text":"3 hits"}]}}`,
		Good: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","method":"notifications/initialized"}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"q":"mcp"}}}
s->c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"3 hits"}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#initialization", Says: "The initialization phase MUST be the first interaction between client and server; the client MUST initiate it by sending an initialize request."},
			{Revision: "2026-07-28", Page: "basic/versioning#protocol-version-negotiation", Says: "There is no negotiation handshake: every request declares the protocol version it is using in its _meta field."},
		},
	},
	Kinds: rule.NoMessages,
	New: rule.Stateless(rule.Funcs{OnEnd: func(p *rule.Pass) {
		s := p.Session
		if s.PreHandshake == 0 || s.Unconnected != nil || s.Unassigned != nil {
			// MCP0006 and MCP0010 say why the session has no contract.
			return
		}
		they, them := "they", "them"
		if s.PreHandshake == 1 {
			they, them = "it", "it"
		}
		what := "no initialize and no request carrying a modern _meta contract"
		if s.Legacy != nil || s.Era != 0 {
			what = they + " came before the handshake"
		}
		a := rule.Anchor{Line: s.FirstLine, Time: s.FirstTime}
		if s.StartLine == s.FirstLine {
			// The first frame is the first line (a reader may hand frames out
			// in time order): anchored at it.
			a.Entry, a.Seq = s.StartEntry, 1
		}
		p.Report(a,
			rule.Sprintf("%s with no contract to judge %s by (%s): capability and revision rules could not judge %s", count(s.PreHandshake, "message"), them, what, them))
	}}),
}
