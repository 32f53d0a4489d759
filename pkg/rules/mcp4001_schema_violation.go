package rules

import (
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// SchemaViolation reports a frame that does not validate against the definition
// the governing revision's official schema.json gives for it.
var SchemaViolation = &rule.Rule{
	ID:       "MCP4001",
	Name:     "schema-violation",
	Severity: rule.SeverityError,
	Title:    "A frame does not validate against the governing revision's official schema",
	Anchor:   "the frame that breaks the schema",
	Hint:     "make the sender produce the shape the revision's schema.json defines for this message (the pointer names the member, the keyword the rule it breaks); SDK-typed messages rarely break it, hand-built maps and pass-through proxies often do",
	Doc: rule.Doc{
		Sees: "Every request, notification, result and error response, checked against the definition of the revision that governs its session in that revision's official schema.json (JSON Schema draft-07 for 2024-11-05 to 2025-06-18, 2020-12 from 2025-11-25). The definition is chosen by method and sender: a request or notification by the member of the ClientRequest/ServerRequest (ClientNotification/ServerNotification) union whose method const matches (tools/call sent by a client: CallToolRequest); a result by the request it answers (tools/call: CallToolResult; from 2026-07-28 the whole CallToolResultResponse); an error response by JSONRPCError (JSONRPCErrorResponse from 2025-11-25). URIs are checked against their declared format. An error response with \"id\": null is not reported for its id: JSON-RPC 2.0 requires null when the request's id could not be read (a parse error, an invalid request), which the MCP schemas do not spell out. Methods the revision does not define are MCP1008's, and the inside of a tool's published inputSchema/outputSchema is MCP4002's. A frame whose revision is unknown is not judged.",
		Why:  "The schema is the wire contract: SDKs decode each message into the types generated from it. A member of the wrong type, a missing required member or a malformed URI makes a strict peer (the Python SDK's pydantic models, the TypeScript SDK's zod schemas) reject the whole message: the request fails with -32602 or -32603, a result is dropped and its request times out, a notification vanishes. Lenient peers let it through, so the same server works with one client and breaks with the next.",
		Fix:  "Change the sender so that the member at the reported pointer satisfies the reported keyword: add the missing required member (content on a tools/call result, name on a tool), send the declared type (a number, not a numeric string), use an absolute URI. Build messages with the SDK's typed structures instead of hand-built maps, and check proxies that rewrite frames.",
		Bad: `c->s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_invoice","arguments":{"id":"INV-0042"}}}
s->c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text"}]}}`,
		Good: `c->s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_invoice","arguments":{"id":"INV-0042"}}}
s->c {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Invoice INV-0042: 129.90 EUR"}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "basic#schema", Says: "The full specification of the protocol is defined as a TypeScript schema, the source of truth for all protocol messages and structures; schema.json is generated from it."},
			{Revision: "2025-06-18", Page: "basic#messages", Says: "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification: requests MUST include a string or integer id, responses either a result or an error, and error codes MUST be integers."},
			{Revision: "2025-11-25", Page: "basic#json-schema-usage", Says: "From 2025-11-25 the schemas are JSON Schema 2020-12."},
		},
	},
	Kinds:      rule.KindsOf(frame.KindRequest, frame.KindNotification, frame.KindResult, frame.KindError),
	New:        func() rule.Checker { return wireSchemaCheck{} },
	WireShapes: true,
	Shared:     func() any { return schema.NewValidShapes(maxRunShapes) },
}

// maxRunShapes bounds the verdicts by wire shape a rule keeps for a whole run.
const maxRunShapes = 1 << 16

// maxListedViolations bounds how many violations one finding spells out.
const maxListedViolations = 3

// wireSchemaCheck is MCP4001's per-session state: none. The wire shapes that
// validated are the run's (Pass.Shared), so a shape is validated once per run.
type wireSchemaCheck struct{}

func (wireSchemaCheck) End(*rule.Pass) {}

func (wireSchemaCheck) Message(p *rule.Pass, m *session.Message) {
	if m.Kind == frame.KindBatch || m.Kind == frame.KindInvalid {
		return
	}
	rev := m.Revision()
	if rev == "" {
		if m.Contract == nil {
			p.CannotJudge(reasonNoContract)
		} else {
			p.CannotJudge(reasonUnknownVersion)
		}
		return
	}
	wire, err := schema.For(rev)
	if err != nil {
		p.CannotJudge(because(reasonSchemaUnavailablef, err))
		return
	}
	target, raw, ok := wireTarget(p, wire.Doc(), m)
	if !ok {
		if m.Kind != frame.KindResult || m.Request != nil {
			p.Settled() // no definition for the method: none for its class either
		}
		return
	}
	valid, _ := p.Shared().(*schema.ValidShapes)
	violations, err := wire.CheckShaped(valid, m.Shape(), target, raw)
	if err != nil {
		p.CannotJudge(because(reasonFrameUncheckedf, err))
		return
	}
	if len(violations) == 0 {
		p.Settled() // valid: so is every message of its class (its wire shape)
		return
	}
	violations = withoutPublishedSchemas(target, violations)
	if m.Kind == frame.KindError && m.ID == "null" {
		violations = withoutNullErrorID(violations)
	}
	if len(violations) == 0 {
		return
	}
	p.Report(rule.At(m), rule.Sprintf("%s (line %d) breaks %s of the %s schema: %s",
		rule.Describe(m), m.Line, target, rev, listViolations(violations, "(the message)", rule.ValueData)))
}

// wireTarget chooses the definition a message is checked against and the bytes it
// covers; ok=false when there is nothing to check (a method the revision does not
// define, or a response nobody asked for, recorded as cannot-judge).
func wireTarget(p *rule.Pass, d *schema.Doc, m *session.Message) (schema.Target, []byte, bool) {
	var t schema.Target
	var ok bool
	switch m.Kind {
	case frame.KindRequest:
		t, ok = d.Request(m.Method, m.Sender())
	case frame.KindNotification:
		t, ok = d.Notification(m.Method, m.Sender())
	case frame.KindError:
		return d.Error(), m.Raw, true
	case frame.KindResult:
		if m.Request == nil {
			p.CannotJudge(reasonResultUnanswered)
			return t, nil, false
		}
		sender := spec.Sender(m.Request.Dir)
		task := d.TaskMatters(m.Request.Method, sender) && get(m.ResultNode(), "task").IsObject()
		t, ok = d.Result(m.Request.Method, sender, task)
		if ok && t.Member == "result" {
			return t, m.Result, true
		}
	}
	return t, m.Raw, ok
}

// withoutPublishedSchemas drops violations inside a tool's inputSchema or
// outputSchema: whether a published schema is acceptable is MCP4002's to say.
func withoutPublishedSchemas(t schema.Target, vs []schema.Violation) []schema.Violation {
	if !strings.HasPrefix(t.Definition, "ListToolsResult") {
		return vs
	}
	out := vs[:0]
	for _, v := range vs {
		if !insidePublishedSchema(v.Pointer) {
			out = append(out, v)
		}
	}
	return out
}

// withoutNullErrorID drops the violation of an error response's "id": null. JSON-RPC
// 2.0 (which every MCP revision follows) says the id "MUST be Null" when it could not
// be detected in the request, and SDKs write it so (TypeScript SDK HTTP 400 bodies,
// mcp-go and Go SDK parse errors); the MCP schemas type the id as string or integer
// only.
func withoutNullErrorID(vs []schema.Violation) []schema.Violation {
	out := vs[:0]
	for _, v := range vs {
		if v.Pointer != "/id" {
			out = append(out, v)
		}
	}
	return out
}

// insidePublishedSchema reports whether a pointer lies in /result/tools/N/inputSchema
// or /result/tools/N/outputSchema.
func insidePublishedSchema(ptr string) bool {
	rest, ok := strings.CutPrefix(ptr, "/result/tools/")
	if !ok {
		return false
	}
	_, rest, ok = strings.Cut(rest, "/")
	if !ok {
		return false
	}
	return rest == "inputSchema" || rest == "outputSchema" || strings.HasPrefix(rest, "inputSchema/") || strings.HasPrefix(rest, "outputSchema/")
}
