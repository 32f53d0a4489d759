package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// InitializeFailed reports an initialize answered with an error, or never answered.
var InitializeFailed = &rule.Rule{
	ID:       "MCP1001",
	Name:     "initialize-failed",
	Severity: rule.SeverityError,
	Title:    "initialize was answered with an error, or never answered",
	Anchor:   "the error response; when no answer came, the initialize request",
	Hint:     "read the error: an unsupported protocolVersion is answered with -32602 and data.supported; a server that never answers is usually blocked or writing to the wrong stream (stdout pollution, a crash on start)",
	Doc: rule.Doc{
		Sees: "An initialize request answered with a JSON-RPC error (any code), anchored at the error; or an initialize request that got no response at all before the session ended (the end of the capture, or another initialize on the same stream), anchored at the request, with how much traffic followed it. An initialize an HTTP server refused by status (4xx, 5xx) got that status as its answer: MCP0005 judges it, and MCP0006 when the status is how a server of the other HTTP transport refuses it.",
		Why:  `Without a successful initialize there is no session: no agreed revision, no capabilities, nothing the client may call. Users see "failed to connect", or a client stuck on "connecting" when no answer comes. A common error case is a server that refuses a protocolVersion it does not support instead of offering one it does. A missing answer usually means the server crashed on start, is blocked, or wrote the result where the client does not read it (stdout polluted by logs: MCP0001).`,
		Fix:  "On the server: when the client asks for a published revision you do not support, answer with a result carrying a revision you do support (your latest) and let the client decide; keep the -32602 error with data.supported for version strings that make no sense. If initialize is never answered, read the server's stderr, check that the initialize handler does not wait for anything the client only sends later, and that stdout carries nothing but JSON-RPC. On the client: when the server offers a revision you cannot speak, disconnect and say why instead of hanging.",
		Bad: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
s->c {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2024-11-05"],"requested":"2025-11-25"}}}`,
		Good: `c->s {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
# the server offers the revision it supports; the client decides whether it can speak it
s->c {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
c->s {"jsonrpc":"2.0","method":"notifications/initialized"}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic/lifecycle#initialization", Says: "The client MUST initiate this phase by sending an initialize request; the server MUST respond with its own capabilities and information."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#version-negotiation", Says: "If the server supports the requested protocol version, it MUST respond with the same version. Otherwise, the server MUST respond with another protocol version it supports. If the client does not support the version in the server's response, it SHOULD disconnect."},
			{Revision: "2025-06-18", Page: "basic/lifecycle#error-handling", Says: `Example initialization error: -32602 "Unsupported protocol version" with data.supported and data.requested, for a requested version "1.0.0".`},
		},
	},
	New: rule.Stateless(rule.Funcs{
		OnMessage: func(p *rule.Pass, m *session.Message) {
			if m.Kind != frame.KindError || m.Request == nil || m.Request.Method != "initialize" {
				return
			}
			p.Report(rule.At(m), rule.Sprintf("initialize (line %d) was answered with error %d %s: no session was established",
				m.Request.Line, m.ErrorCode, rule.Quote(rule.ValueErrorMessage, m.ErrorMessage)), rule.Related{Line: m.Request.Line, Note: "initialize request"})
		},
		OnEnd: func(p *rule.Pass) {
			c := p.Session.Legacy
			if c == nil || c.ResultLine > 0 || c.ErrorLine > 0 {
				return
			}
			for _, r := range p.Session.Outstanding() {
				if r.Method == "initialize" && r.Line == c.RequestLine {
					if r.HTTPStatus >= 400 {
						// Refused at the HTTP level: the status was its answer, which
						// MCP0005 judges (and MCP0006, a server of the other HTTP
						// transport), as MCP3001 leaves such requests.
						return
					}
					p.Report(rule.AtRequest(r), rule.Sprintf("initialize (line %d) was never answered: %s; no session was established", r.Line, after(p.Session, r)))
					return
				}
			}
		},
	}),
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"initialize"},
}
