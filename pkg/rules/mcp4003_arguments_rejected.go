package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// ArgumentsRejected reports tools/call arguments that break the tool's published
// inputSchema: a strict client would have refused to send the call.
var ArgumentsRejected = &rule.Rule{
	ID:       "MCP4003",
	Name:     "arguments-rejected",
	Severity: rule.SeverityError,
	Title:    "tools/call arguments violate the tool's published inputSchema",
	Anchor:   "the tools/call request",
	Hint:     "a strict client refuses these arguments before they reach the server (whose log then stays empty): say the expected format with an example in the field's description, or widen the schema and normalise on the server",
	Doc: rule.Doc{
		Sees: "Each tools/call request, with the arguments checked against the inputSchema of the tool as the latest tools/list result of the session published it, the way a client validator checks them: in the schema's dialect (its $schema, else draft-07 before 2025-11-25 and 2020-12 from it), with formats asserted (date, date-time, time, email, uri, uuid, ...). Missing arguments are checked as {}. The finding prints what the client's log would say: instancePath, keyword, message and data. A call to a tool no tools/list result listed, or before any, is not judged; a schema that does not compile is MCP4002's.",
		Why:  "Strict clients validate the model's arguments against the published inputSchema and do not send the call when they fail: the user hears that the arguments were invalid and the server's log has nothing, at any level. That capture shows the call only because this client was lenient: the same arguments from a strict client are the empty log everyone misreads. The server's own validation may also answer -32602 for them.",
		Fix:  "Decide which side is wrong. If the schema is right, the model had no instruction: state the expected format in the field's description and give an example (\"ISO date, e.g. 2025-06-01\"), and in the tool's description too. If the schema is stricter than the tool needs, widen it (accept a relative expression as well as a date) and normalise on the server.",
		Bad: `s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search_invoices","inputSchema":{"type":"object","properties":{"since":{"type":"string","format":"date"}}}}]}}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_invoices","arguments":{"since":"last month"}}}`,
		Good: `s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search_invoices","inputSchema":{"type":"object","properties":{"since":{"type":"string","format":"date","description":"ISO date, e.g. 2025-06-01"}}}}]}}
c->s {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_invoices","arguments":{"since":"2025-06-01"}}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "server/tools#tool", Says: "inputSchema is the JSON Schema defining the expected parameters of the tool: the contract SDK clients check the model's arguments against before they send tools/call."},
			{Revision: "2025-06-18", Page: "server/tools#error-handling", Says: "Invalid arguments are a protocol error (-32602 Invalid params); servers MUST validate all tool inputs (security considerations)."},
			{Revision: "2025-11-25", Page: "basic#json-schema-usage", Says: "A schema without $schema is JSON Schema 2020-12."},
		},
	},
	Requires: []*rule.Analysis{PublishedTools},
	// The shapes of arguments that validated, by schema, for the whole run.
	Shared: func() any { return schema.NewValidShapes(maxRunShapes) },
	New:    func() rule.Checker { return &argumentsWatch{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"tools/call"},
}

type argumentsWatch struct {
	memo *schema.Memo // the run's shapes of arguments that validated (set at first use)
}

func (w *argumentsWatch) End(*rule.Pass) {}

func (w *argumentsWatch) Message(p *rule.Pass, m *session.Message) {
	if isToolsCall(m) {
		w.call(p, m)
	}
}

func (w *argumentsWatch) call(p *rule.Pass, m *session.Message) {
	params := m.ParamsNode()
	name, ok := m.ToolName() // a lookup key, never kept
	if !ok {
		return // a call without a name breaks the wire schema (MCP4001)
	}
	args := get(params, "arguments").Raw() // aliases the frame: read, never kept
	switch {
	case args == nil:
		args = []byte("{}")
	case args[0] != '{':
		return // arguments that are not an object break the wire schema (MCP4001)
	}
	tools := p.ResultOf(PublishedTools).(*ToolLog)
	tool := listedTool(p, tools.Tools, tools.Listed, name)
	if tool == nil {
		return
	}
	if tool.Input == nil {
		if tool.TooLarge {
			p.CannotJudge(because(reasonInputSchemaLargef, schema.MaxSchemaBytes))
		}
		return
	}
	compiled := tool.CompiledInput(p.Schemas())
	if compiled.Err != nil {
		return // MCP4002 reports the schema
	}
	if w.memo == nil {
		w.memo = schema.NewSharedMemo(p.Shared().(*schema.ValidShapes))
	}
	violations, err := compiled.ValidateWith(w.memo, args)
	if err != nil {
		p.CannotJudge(because(reasonArgumentsUncheckedf, err))
		return
	}
	if len(violations) == 0 {
		return
	}
	p.Report(rule.At(m), rule.Sprintf("tools/call %s (line %d): the arguments break the inputSchema of %s; a strict client would not have sent this call and would have logged \"tool call validation failed: %s\" with %s",
		rule.Quote(rule.ValueName, name), m.Line, toolLabel(tool), rule.As(rule.ValueName, name), clientLog(violations)),
		rule.Related{Line: tool.Line, Note: "tools/list result that published the inputSchema"})
}
