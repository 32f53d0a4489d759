package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// ProtocolHeaderMismatch reports Streamable HTTP requests whose MCP headers are
// missing or disagree with the protocol version in force (HTTP captures only).
var ProtocolHeaderMismatch = &rule.Rule{
	ID:       "MCP1011",
	Name:     "protocol-header-mismatch",
	Severity: rule.SeverityError,
	Title:    "An HTTP request's MCP-Protocol-Version header is missing or differs from the negotiated (or _meta) version; 2026-07-28: Mcp-Method or Mcp-Name missing or wrong",
	Anchor:   "the message the HTTP request carried (its HAR entry or recorded exchange)",
	Hint:     "send MCP-Protocol-Version: <negotiated revision> on every HTTP request after initialize (2026-07-28: the request's _meta protocolVersion, plus Mcp-Method, and Mcp-Name for tools/call, resources/read and prompts/get)",
	Doc: rule.Doc{
		Sees: "The HTTP request headers of every client message in an HTTP capture (a HAR, or a recording of mcpsleuth record --http, " +
			"whose records keep each request's headers): MCP-Protocol-Version on each request after the " +
			"initialize result (a POST carrying a message, the GET that opens the server's event stream, the DELETE that ends the " +
			"session: \"all subsequent requests\"), compared with the revision the initialize result settled. In a 2026-07-28 session, also Mcp-Method (every " +
			"request and notification) and Mcp-Name (tools/call: params.name, resources/read: params.uri, prompts/get: params.name), and " +
			"MCP-Protocol-Version against the message's own _meta io.modelcontextprotocol/protocolVersion (2026-07-28 has no GET stream " +
			"and no DELETE). A GET or DELETE before the initialize result, or on a stream with no session open, is not judged. The " +
			"headers belong to Streamable HTTP: a session of the 2024-11-05 HTTP+SSE transport (its exchanges go to the endpoint its " +
			"event stream named), whatever revision it negotiated, and captures of other transports are never judged.",
		Why: "The header is how an HTTP server knows which revision governs a request before it parses the body: a server that sees no " +
			"MCP-Protocol-Version assumes 2025-03-26, so a 2025-06-18 or 2025-11-25 client without it is judged by older rules (no " +
			"structured tool output, no elicitation), and a header that names another revision than the one negotiated makes the server " +
			"answer 400 Bad Request. In 2026-07-28 load balancers and gateways route by Mcp-Method and Mcp-Name without reading the body; " +
			"a server must reject a request whose headers disagree with its body (400, -32020 HeaderMismatch).",
		Fix: "In the client's HTTP transport, set MCP-Protocol-Version to the protocolVersion of the initialize result on every request " +
			"after initialize (most SDKs do once the transport is told the negotiated version: check that your custom transport or proxy " +
			"forwards the header). For 2026-07-28, set MCP-Protocol-Version from the same value as _meta, Mcp-Method to the JSON-RPC " +
			"method and Mcp-Name to the tool or prompt name or resource URI (=?base64?...?= when it is not ASCII).",
		Bad: `POST /mcp   Mcp-Session-Id: 3V2C...   (no MCP-Protocol-Version)
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
  after an initialize result with "protocolVersion":"2025-11-25"`,
		Good: `POST /mcp   Mcp-Session-Id: 3V2C...   MCP-Protocol-Version: 2025-11-25
{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic/transports#protocol-version-header", Says: "If using HTTP, the client MUST include the MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent requests to the MCP server; it SHOULD be the version negotiated during initialization. Without it the server SHOULD assume 2025-03-26; an invalid or unsupported value MUST get 400 Bad Request."},
			{Revision: spec.Rev20251125, Page: "basic/transports#protocol-version-header", Says: "The same requirement: MCP-Protocol-Version on every request after initialization."},
			{Revision: spec.Rev20260728, Page: "basic/transports/streamable-http", Says: "MCP-Protocol-Version is required on every POST and must equal the request's _meta protocol version; Mcp-Method is required on every request and Mcp-Name on tools/call, resources/read and prompts/get; a mismatch is answered 400 with -32020 (HeaderMismatch)."},
		},
	},
	New: func() rule.Checker { return &protocolHeaderChecker{} },
}

// protocolHeaderChecker judges the headers of the messages a client POSTs, and
// of its GET and DELETE requests, which carry no message (Exchange), or whose
// event stream carried the server's (judged at its first message).
type protocolHeaderChecker struct {
	judged map[int]bool // the GET and DELETE exchanges judged already
}

func (c *protocolHeaderChecker) Message(p *rule.Pass, m *session.Message) {
	if m.HTTP != nil && m.HTTP.Endpoint != "" {
		return // HTTP+SSE: the headers are Streamable HTTP's
	}
	if h := m.HTTP; h != nil && h.InResponse && (h.Method == "GET" || h.Method == "DELETE") {
		c.bodyless(p, h, m.Session, rule.At(m))
		return
	}
	checkProtocolHeaders(p, m)
}

func (c *protocolHeaderChecker) Exchange(p *rule.Pass, e *session.Exchange) {
	if (e.Method == "GET" || e.Method == "DELETE") && e.Endpoint == "" {
		c.bodyless(p, e.HTTP, e.Session, rule.AtExchange(e))
	}
}

func (c *protocolHeaderChecker) End(*rule.Pass) {}

// bodyless judges the MCP-Protocol-Version of a GET or DELETE of a legacy
// session once its revision is settled, once an exchange.
func (c *protocolHeaderChecker) bodyless(p *rule.Pass, h *frame.HTTP, s *session.Session, at rule.Anchor) {
	key := h.Exchange + h.Entry<<32
	if c.judged[key] || s == nil || s.Era == session.EraModern || s.Legacy == nil || s.Legacy.Revision == "" || s.Legacy.ResultLine == 0 {
		return
	}
	if c.judged == nil {
		c.judged = map[int]bool{}
	}
	c.judged[key] = true
	if len(c.judged) > maxPendingExchanges {
		clear(c.judged)
	}
	judgeLegacyHeader(p, at, fmt.Sprintf("%s %s (%s)", h.Method, h.Path, h.Where()), h.ProtocolVersion, s.Legacy,
		"every request after initialize, the GET of the event stream and the DELETE of the session too,")
}

func checkProtocolHeaders(p *rule.Pass, m *session.Message) {
	h := m.HTTP
	if h == nil || h.InResponse || m.Batch != nil || m.Dir != spec.C2S || m.Kind == frame.KindInvalid {
		return
	}
	if m.Session.Era == session.EraModern || (m.Contract != nil && m.Contract.Era == session.EraModern) {
		checkModernHeaders(p, m, h)
		return
	}
	if startsSession(m) {
		return // the initialize request itself: no version is negotiated yet
	}
	c := m.Session.Legacy
	if c == nil {
		p.CannotJudge(reasonNoInitialize)
		return
	}
	if c.Revision == "" {
		p.CannotJudge(reasonRevisionUnsettled)
		return
	}
	judgeLegacyHeader(p, rule.At(m), fmt.Sprintf("%s %s (%s) carrying %s", h.Method, h.Path, h.Where(), rule.Describe(m)), h.ProtocolVersion, c, "every request after initialize")
}

// judgeLegacyHeader judges the MCP-Protocol-Version of a request (where names
// it) against the revision the initialize result c settled; owed names which
// requests owe the header, for the message.
func judgeLegacyHeader(p *rule.Pass, at rule.Anchor, where, header string, c *session.Contract, owed string) {
	rev := c.Revision
	settled := fmt.Sprintf("the session negotiated %s (initialize result, line %d)", rev, c.ResultLine)
	switch {
	case header == "" && rev.Before(spec.FeatureProtocolHeader.Since):
		// the header did not exist yet
	case header == "":
		p.Report(at, rule.Sprintf("%s has no MCP-Protocol-Version header, but %s: from 2025-06-18 %s must carry MCP-Protocol-Version: %s, and a server that sees none assumes 2025-03-26", where, settled, owed, rev).By(spec.Client))
	case header != string(rev):
		p.Report(at, rule.Sprintf("%s has MCP-Protocol-Version: %s, but %s: the server judges the request by the header (or rejects it with 400)", where, rule.As(rule.ValueVersion, header), settled).By(spec.Client))
	}
}

// startsSession reports whether m is (or is a batch holding) the initialize request.
func startsSession(m *session.Message) bool {
	if m.Kind == frame.KindRequest && m.Method == "initialize" {
		return true
	}
	for i := range m.Members {
		if m.Members[i].Method == "initialize" {
			return true
		}
	}
	return false
}

// checkModernHeaders judges a 2026-07-28 POST: MCP-Protocol-Version equal to the
// message's _meta version, Mcp-Method, and Mcp-Name where the method names a target.
func checkModernHeaders(p *rule.Pass, m *session.Message, h *frame.HTTP) {
	if m.Kind != frame.KindRequest && m.Kind != frame.KindNotification {
		return
	}
	params := m.ParamsNode()
	version := get(params, "_meta", "io.modelcontextprotocol/protocolVersion").Text()
	from := "its _meta io.modelcontextprotocol/protocolVersion"
	if version == "" {
		version, from = string(m.Session.ModernRevision), "the session's revision"
	}
	var problems []rule.Message
	switch {
	case h.ProtocolVersion == "":
		problems = append(problems, rule.Sprintf("no MCP-Protocol-Version header (%s is %s)", from, orNone(version)))
	case version != "" && h.ProtocolVersion != version:
		problems = append(problems, rule.Sprintf("MCP-Protocol-Version: %s, but %s is %s", rule.As(rule.ValueVersion, h.ProtocolVersion), from, version))
	}
	switch {
	case h.McpMethod == "":
		problems = append(problems, rule.Sprintf("no Mcp-Method header (want %s)", m.Method))
	case h.McpMethod != m.Method:
		problems = append(problems, rule.Sprintf("Mcp-Method: %s, but the body's method is %s", rule.As(rule.ValueName, h.McpMethod), m.Method))
	}
	if field := spec.NameHeaderParam(m.Method); field != "" && m.Kind == frame.KindRequest {
		want := get(params, field).Text()
		got := spec.DecodeHeaderValue(h.McpName)
		switch {
		case h.McpName == "":
			problems = append(problems, rule.Sprintf("no Mcp-Name header (want params.%s %s)", field, rule.Quote(rule.ValueName, want)))
		case got != want:
			problems = append(problems, rule.Sprintf("Mcp-Name: %s, but params.%s is %s", rule.Quote(rule.ValueName, got), field, rule.Quote(rule.ValueName, want)))
		}
	}
	if len(problems) == 0 {
		return
	}
	p.Report(rule.At(m), rule.Sprintf("%s %s (%s) carrying %s: %s; a 2026-07-28 server must reject it with 400 and -32020 (HeaderMismatch)",
		h.Method, h.Path, h.Where(), rule.Describe(m), rule.Join(problems, "; ")).By(spec.Client))
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
