package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// VersionNotOffered reports a server that answered a revision newer than the one requested.
var VersionNotOffered = &rule.Rule{
	ID:       "MCP1003",
	Name:     "version-not-offered",
	Severity: rule.SeverityError,
	Title:    "The server answered a protocol revision the client never offered",
	Anchor:   "the initialize result",
	Hint:     "the server must echo the requested revision when it supports it, and otherwise answer another revision it supports (its latest); answering a newer one than requested is a negotiation bug in the server",
	Doc: rule.Doc{
		Sees: "An initialize result whose protocolVersion is a published revision newer than the published revision the client requested: a client that asked for 2025-03-26 and a server that answered 2025-06-18. An older answer is ordinary negotiation (the client must then disable newer features); an unpublished one is MCP1002's.",
		Why:  `The requested revision is the client saying "this is the newest I speak". A server that answers a newer one believes the newer rules govern the session while the client knows only the older ones: the server may send elicitation/create or return structuredContent the client has never heard of, and treat the JSON-RPC batches the client relies on as invalid. A spec-following client disconnects; a lenient one carries on with two different contracts and fails later in ways that look random. The cause is almost always a server that ignores the requested version and always answers its own latest.`,
		Fix:  "On the server: keep the list of revisions you support and, when the requested one is in it, answer exactly that string. Answer a different revision only when you do not support the requested one; the spec then expects the client to disconnect if it cannot speak your answer, so a newer answer ends the session with most clients. On the client: if the answered revision is not one you implement, disconnect instead of carrying on.",
		Bad: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
# the server ignores the request and answers its own latest revision
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		Good: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
# the server supports 2025-03-26 too, so it echoes it
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#version-negotiation", Says: "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports. If the client does not support the version in the server's response, it SHOULD disconnect (the same text from 2024-11-05 to 2025-11-25)."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#operation", Says: "Both parties MUST respect the negotiated protocol version."},
		},
	},
	Kinds: rule.KindsOf(frame.KindResult),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindResult || m.Request == nil || m.Request.Method != "initialize" || m.Contract == nil {
			return
		}
		c := m.Contract
		if c.Verdict != session.VerdictNotOffered {
			return
		}
		p.Report(rule.At(m), rule.Sprintf("the client requested protocolVersion %s (line %d) and the server answered %s, a newer revision the client never offered: a server that supports %s must echo it, and a client that cannot speak %s should disconnect rather than go on",
			c.Requested, c.RequestLine, c.Answered, c.Requested, c.Answered), rule.Related{Line: c.RequestLine, Note: "initialize request: protocolVersion " + c.Requested, Raw: c.RequestRaw})
	}),
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"initialize"},
}
