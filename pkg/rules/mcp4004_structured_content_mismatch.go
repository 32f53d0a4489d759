package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// StructuredContentMismatch reports a tools/call result of a tool that published an
// outputSchema, without structuredContent or with one that breaks the schema.
var StructuredContentMismatch = &rule.Rule{
	ID:       "MCP4004",
	Name:     "structured-content-mismatch",
	Severity: rule.SeverityError,
	Title:    "A tool with an outputSchema returned no structuredContent, or one that violates it",
	Anchor:   "the tools/call result",
	Hint:     "when a tool publishes an outputSchema, every successful result must carry structuredContent that validates against it: fix the value (a number, not a numeric string) or the schema, and keep the text content for older clients",
	Doc: rule.Doc{
		Sees: "Each successful result (isError not true) of a tools/call for a tool whose latest tools/list entry in the session published an outputSchema, under a revision that defines outputSchema (2025-06-18 on): the result must carry structuredContent, and it is validated against the outputSchema the way a client does (the schema's dialect, formats asserted). Error results, task and input-required results are left alone, as are tools never listed and schemas that do not compile (MCP4002).",
		Why:  "A tool that declares an outputSchema promises typed data: clients and agents read structuredContent instead of parsing text, and SDK clients validate it. A missing structuredContent or a value of the wrong type makes the TypeScript SDK client throw (\"Tool ... has an output schema but did not return structured content\", or an Ajv error) and the call fails for the user although the server did its work; clients that trust the schema without checking hand the model a string where a number was promised.",
		Fix:  "Return structuredContent on every successful result, built from the same type the outputSchema was generated from; send numbers as JSON numbers, not formatted strings (\"129.90\"), and every required member. If the tool cannot always produce it, drop the outputSchema, or return the failure as isError: true.",
		Bad: `s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get_invoice","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"total":{"type":"number"}},"required":["total"]}}]}}
c->s {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_invoice","arguments":{}}}
s->c {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"129.90 EUR"}],"structuredContent":{"total":"129.90"}}}`,
		Good: `s->c {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"{\"total\":129.9}"}],"structuredContent":{"total":129.9}}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "server/tools#output-schema", Says: "If an output schema is provided, servers MUST provide structured results that conform to this schema; clients SHOULD validate structured results against it."},
			{Revision: "2025-06-18", Page: "server/tools#structured-content", Says: "Structured content is returned as a JSON object in the structuredContent field of a result."},
			{Revision: "2025-11-25", Page: "server/tools#output-schema", Says: "The same requirement; schemas default to JSON Schema 2020-12."},
		},
	},
	Requires: []*rule.Analysis{PublishedTools},
	// The shapes of structuredContent that validated, by schema, for the whole run.
	Shared: func() any { return schema.NewValidShapes(maxRunShapes) },
	New:    func() rule.Checker { return &structuredWatch{} },
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"tools/call"},
}

// maxPendingCalls bounds the tools/call requests remembered until their result.
const maxPendingCalls = 4096

type structuredWatch struct {
	// calls are the tools/call requests in flight whose result must be checked.
	calls map[*session.Request]*schema.Tool
	memo  *schema.Memo // the run's shapes of structuredContent that validated (set at first use)
	// outputs says whether the revision of the latest call (outputRev) defines
	// outputSchema.
	outputRev spec.Revision
	outputs   outputSchemaIn
}

// outputSchemaIn says whether a revision's Tool defines outputSchema.
type outputSchemaIn uint8

const (
	outputsNotAsked outputSchemaIn = iota
	outputsNoRevision
	outputsDefined
	outputsUndefined
)

// outputSchemaOf answers, once per revision in a row, whether its Tool defines
// outputSchema.
func (w *structuredWatch) outputSchemaOf(rev spec.Revision) outputSchemaIn {
	if w.outputs != outputsNotAsked && w.outputRev == rev {
		return w.outputs
	}
	w.outputRev, w.outputs = rev, outputsDefined
	if d, err := schema.DocFor(rev); err != nil {
		w.outputs = outputsNoRevision
	} else if _, defined := d.ToolSchema("outputSchema"); !defined {
		w.outputs = outputsUndefined
	}
	return w.outputs
}

func (w *structuredWatch) End(*rule.Pass) {}

func (w *structuredWatch) Message(p *rule.Pass, m *session.Message) {
	switch {
	case isToolsCall(m) && m.Request != nil:
		w.call(p, m)
	case m.Kind.IsResponse() && m.Request != nil && m.Request.Method == "tools/call":
		tool, ok := w.calls[m.Request]
		if !ok {
			return
		}
		delete(w.calls, m.Request)
		if m.Kind == frame.KindResult {
			w.result(p, m, tool)
		}
	}
}

// call remembers a tools/call whose result will need checking: a call to a listed
// tool that published an outputSchema, under a revision that defines outputSchema.
func (w *structuredWatch) call(p *rule.Pass, m *session.Message) {
	name, ok := m.ToolName() // a lookup key, never kept
	if !ok {
		return
	}
	switch w.outputSchemaOf(m.Revision()) {
	case outputsNoRevision:
		p.CannotJudge(reasonNoRevisionToolsCall)
		return
	case outputsUndefined:
		return // no outputSchema in this revision (MCP1010 notes one sent anyway)
	}
	tools := p.ResultOf(PublishedTools).(*ToolLog)
	tool := listedTool(p, tools.Tools, tools.Listed, name)
	if tool == nil {
		return
	}
	if tool.Output == nil {
		if tool.TooLarge {
			p.CannotJudge(because(reasonOutputSchemaLargef, schema.MaxSchemaBytes))
		}
		return
	}
	if len(w.calls) >= maxPendingCalls {
		clear(w.calls) // requests never answered; their results are not judged
	}
	if w.calls == nil {
		w.calls = map[*session.Request]*schema.Tool{} // made on first use: most sessions never need it
	}
	w.calls[m.Request] = tool
}

func (w *structuredWatch) result(p *rule.Pass, m *session.Message, tool *schema.Tool) {
	res := m.ResultNode()
	if _, task := res.Get("task"); get(res, "isError").Truthy() || task || get(res, "resultType").Text() == spec.ResultTypeInputRequired {
		return
	}
	name := tool.Name
	sc := get(res, "structuredContent").Raw() // aliases the frame: read, never kept
	if sc == nil {
		p.Report(rule.At(m), rule.Sprintf("tools/call %s result (line %d) has no structuredContent although the tool published an outputSchema (tools/list result line %d): clients that validate it fail the call",
			rule.Quote(rule.ValueName, name), m.Line, tool.Line), rule.Related{Line: tool.Line, Note: "tools/list result that published the outputSchema"})
		return
	}
	compiled := tool.CompiledOutput(p.Schemas())
	if compiled.Err != nil {
		return // MCP4002 reports the schema
	}
	if w.memo == nil {
		w.memo = schema.NewSharedMemo(p.Shared().(*schema.ValidShapes))
	}
	violations, err := compiled.ValidateWith(w.memo, sc)
	if err != nil {
		p.CannotJudge(because(reasonStructuredUncheckedf, err))
		return
	}
	if len(violations) == 0 {
		return
	}
	p.Report(rule.At(m), rule.Sprintf("tools/call %s result (line %d): structuredContent breaks the outputSchema of %s: %s",
		rule.Quote(rule.ValueName, name), m.Line, toolLabel(tool), listViolations(violations, "its root", rule.ValueData)),
		rule.Related{Line: tool.Line, Note: "tools/list result that published the outputSchema"})
}
