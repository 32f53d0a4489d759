package rules

import (
	"math"
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// InvalidID reports request ids MCP does not allow, and notifications sent with an id.
var InvalidID = &rule.Rule{
	ID:       "MCP3004",
	Name:     "invalid-id",
	Severity: rule.SeverityError,
	Title:    "A request id that is null or not a string or integer, or a notification carrying an id",
	Anchor:   "the message (a batch member: its batch)",
	Hint:     "use a string or an integer as request id, never null, a fraction, a boolean or an object; send notifications without any id member",
	Doc: rule.Doc{
		Sees: "Every message with a method and an id member (JSON-RPC calls such a message a request). The id must be a string or an integer: null, " +
			"a number with a fractional part (1.5), true/false, an object or an array is reported (an integral number written 1.0 is accepted, " +
			"as JSON Schema's integer accepts it). A message whose method is a notification " +
			"(every notification is named notifications/...) that carries an id is reported too: notifications must not have one. " +
			"Ids of responses are not judged here " +
			"(an error response may carry a null id when the request's id could not be read).",
		Why: "MCP narrows JSON-RPC: ids must be strings or integers and never null, so that both sides can key their pending-request tables on " +
			"them. Strict peers (schema-validating SDKs) reject such a request outright, and loose ones may pair its response with the wrong " +
			"request or never answer. A notification with an id is, by JSON-RPC's definition, a request: the receiver may answer it " +
			"(usually with -32601), and the sender, which expects no answer, sees an unknown response.",
		Fix: "Generate request ids from an integer counter or as strings. For notifications, build the message without an id member at all " +
			"(not id: null): check the code path that reuses a request builder for notifications.",
		Bad: `{"jsonrpc":"2.0","id":null,"method":"tools/list"}
{"jsonrpc":"2.0","id":1.5,"method":"ping"}
{"jsonrpc":"2.0","id":7,"method":"notifications/initialized"}`,
		Good: `{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":"req-3","method":"ping"}
{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20250618, Page: "basic#requests", Says: "Requests MUST include a string or integer ID. Unlike base JSON-RPC, the ID MUST NOT be null."},
			{Revision: spec.Rev20250618, Page: "basic#notifications", Says: "Notifications MUST NOT include an ID."},
			{Revision: spec.Rev20260728, Page: "basic#requests", Says: "Unchanged in 2026-07-28: a string or integer ID, never null."},
		},
	},
	Kinds: rule.KindsOf(frame.KindRequest),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindRequest {
			return
		}
		if isNotificationMethod(m.Method) {
			p.Report(rule.At(m), rule.Sprintf("%s carries id %s, but it is a notification: notifications must not include an id (with one it is a request, and the receiver may answer it)",
				m.Method, rule.QuoteJSON(rule.ValueID, m.ID)))
			return
		}
		switch why := badRequestID(m.ID); why {
		case "":
		case "null":
			p.Report(rule.At(m), rule.Sprintf("%s has id null: MCP request ids must be a string or an integer, never null", m.Method))
		default:
			p.Report(rule.At(m), rule.Sprintf("%s has id %s, %s: MCP request ids must be a string or an integer", m.Method, rule.QuoteJSON(rule.ValueID, m.ID), why))
		}
	}),
}

// isNotificationMethod reports whether a method is a notification. Every
// notification of the spec's method tables is named notifications/..., and custom
// ones follow the same convention.
func isNotificationMethod(method string) bool {
	return strings.HasPrefix(method, "notifications/")
}

// badRequestID says what is wrong with a raw JSON id token ("" when it is a string
// or an integer).
func badRequestID(raw string) string {
	if raw == "" {
		return ""
	}
	switch raw[0] {
	case '"':
		return ""
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	if _, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return ""
	}
	f, err := strconv.ParseFloat(raw, 64)
	switch {
	case err != nil && !strings.ContainsAny(raw, ".eE"):
		return "" // an integer too large for 64 bits is still an integer
	case err != nil:
		return "a number that cannot be read as an integer"
	case math.Trunc(f) != f:
		return "a number with a fractional part"
	}
	return ""
}
