package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// NotJSONRPC reports valid JSON that is not a JSON-RPC 2.0 message.
var NotJSONRPC = &rule.Rule{
	ID:       "MCP0002",
	Name:     "not-jsonrpc",
	Severity: rule.SeverityError,
	Title:    "Valid JSON that is not a JSON-RPC 2.0 message",
	Anchor:   "the frame that is not JSON-RPC (a batch member's problem is anchored at its batch)",
	Hint:     `every MCP message is a JSON-RPC 2.0 object: "jsonrpc":"2.0", and either a method (request, notification) or exactly one of result and error (response)`,
	Doc: rule.Doc{
		Sees: `A frame that is valid JSON but not a JSON-RPC 2.0 message: no "jsonrpc" member, or one other than the string "2.0"; a "method" that is not a string; "method" together with "result" or "error"; both "result" and "error"; none of "method", "result" and "error"; a bare JSON string, number, boolean or null; an empty array. A batch member that is not a JSON-RPC object is reported at its batch. The message names the defect.`,
		Why:  `The receiver sorts every frame into a request (method and id), a notification (method, no id) or a response (id and exactly one of result and error). A frame that fits none of them cannot be routed: SDKs reject it with -32600 Invalid Request or drop it without a word. If it was meant as a request, its sender waits forever; if it was meant as a response, the request stays pending; and a response carrying both result and error leaves the receiver to guess whether the call succeeded. Typical sources are hand-rolled servers that omit "jsonrpc", a proxy that rewrites messages, and an error handler that adds an error member to a result already built.`,
		Fix:  `On the side that sent it: build messages with an MCP SDK or a JSON-RPC library rather than by hand. Always set "jsonrpc":"2.0"; a request has method and id, a notification has method and no id, a response has the request's id and exactly one of result and error (on failure: error only).`,
		Bad: `c->s {"jsonrpc":"2.0","id":4,"method":"ping"}
s->c {"id":4,"result":{}}
c->s {"jsonrpc":"2.0","id":5,"method":"tools/list"}
s->c {"jsonrpc":"2.0","id":5,"result":{"tools":[]},"error":{"code":-32603,"message":"Internal error"}}`,
		Good: `c->s {"jsonrpc":"2.0","id":4,"method":"ping"}
s->c {"jsonrpc":"2.0","id":4,"result":{}}
c->s {"jsonrpc":"2.0","id":5,"method":"tools/list"}
s->c {"jsonrpc":"2.0","id":5,"error":{"code":-32603,"message":"Internal error"}}`,
		Spec: []rule.SpecRef{
			{Revision: "2024-11-05", Page: "basic/messages", Says: "All messages in MCP MUST follow the JSON-RPC 2.0 specification; the protocol defines three types of messages: requests, responses and notifications."},
			{Revision: "2025-06-18", Page: "basic#responses", Says: "Either a result or an error MUST be set. A response MUST NOT set both."},
		},
	},
	Kinds: rule.KindsOf(frame.KindInvalid),
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind == frame.KindInvalid && m.Problem == frame.ProblemNotJSONRPC {
			msg := "not a JSON-RPC 2.0 message: " + m.Detail
			if m.Batch != nil {
				msg = "a member of the batch is " + msg
			}
			p.Report(rule.At(m), rule.Text(msg))
		}
	}),
}
