package rules

import (
	"sync"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// ToolSchemaInvalid reports a published inputSchema or outputSchema that strict
// clients cannot use: it does not compile, or breaks what the revision's Tool
// definition requires of it (an object schema at the root).
var ToolSchemaInvalid = &rule.Rule{
	ID:       "MCP4002",
	Name:     "tool-schema-invalid",
	Severity: rule.SeverityError,
	Title:    "A published inputSchema/outputSchema does not compile or is not an object schema",
	Anchor:   "the tools/list result that publishes the schema",
	Hint:     "publish a schema that compiles in the dialect clients read it in (its $schema, else draft-07 before 2025-11-25 and 2020-12 from it) with \"type\": \"object\" at the root: strict clients refuse every call to a tool whose schema they cannot compile",
	Doc: rule.Doc{
		Sees: "Each tool in a tools/list result: its inputSchema (and outputSchema from 2025-06-18) is checked against what the governing revision's Tool definition requires of it (inputSchema: \"type\": \"object\" at the root, properties an object of schemas, required a list of names; outputSchema the same up to 2025-11-25) and compiled as a strict client compiles it: in the dialect its $schema names, or by default draft-07 before 2025-11-25 and JSON Schema 2020-12 from 2025-11-25, with no reference to another document resolved. Each broken schema is reported once per session.",
		Why:  "Clients compile a tool's inputSchema to validate the model's arguments before they send a call, and its outputSchema to validate structured results. A schema that does not compile, or whose root is not an object, makes strict clients (the TypeScript SDK with Ajv, for instance) throw on every call to that tool: the call never reaches the server, whose log stays empty, while the user sees a tool that always fails. Lenient clients send anything, so the same tool works in one host and not in another.",
		Fix:  "Fix the schema at the reported place: put \"type\": \"object\" at the root of inputSchema (tool arguments are always an object), use keywords with the right types (\"required\" is a list of names, \"properties\" an object of schemas), declare \"$schema\" when you write a dialect other than the revision's default, and inline what a \"$ref\" to another document would fetch. Generating the schema from the handler's argument type (zod, pydantic, the Go SDK's jsonschema) avoids most of these.",
		Bad: `s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search_invoices","inputSchema":{"type":"array","items":{"type":"string"}}}]}}
s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search_invoices","inputSchema":{"type":"object","properties":{"since":{"type":"date"}}}}]}}`,
		Good: `s->c {"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search_invoices","inputSchema":{"type":"object","properties":{"since":{"type":"string","format":"date","description":"ISO date, e.g. 2025-06-01"}}}}]}}`,
		Spec: []rule.SpecRef{
			{Revision: "2025-06-18", Page: "server/tools#tool", Says: "inputSchema is a JSON Schema defining the expected parameters, and schema.json requires \"type\": \"object\" at its root; outputSchema (optional) defines the structure of structuredContent, also an object schema."},
			{Revision: "2025-11-25", Page: "server/tools#tool", Says: "inputSchema MUST be a valid JSON Schema object (not null); a schema without $schema defaults to JSON Schema 2020-12."},
			{Revision: "2025-11-25", Page: "basic#json-schema-usage", Says: "Schemas without a $schema field are JSON Schema 2020-12; implementations MUST support 2020-12."},
		},
	},
	// The verdict on a published schema depends only on its text and revision: it
	// is kept for the run, so an archive serving one tool list in every session
	// checks it once.
	Shared:   func() any { return &schemaVerdicts{by: map[string]rule.Message{}} },
	Kinds:    rule.KindsOf(frame.KindResult),
	Requires: []*rule.Analysis{Lists},
	New: func() rule.Checker {
		return &toolSchemaWatch{}
	},
	// The methods it looks at (the engine asks it about no other message).
	Methods: []string{"tools/list"},
}

// schemaVerdicts are the run's verdicts on published schemas, by revision, member
// and text; bounded by the bytes of the texts kept.
type schemaVerdicts struct {
	mu    sync.Mutex
	by    map[string]rule.Message
	bytes int
}

// maxVerdictBytes bounds the schema text the run's verdicts are kept by.
const maxVerdictBytes = 16 << 20

func (v *schemaVerdicts) judged(key []byte) (rule.Message, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	m, ok := v.by[string(key)]
	return m, ok
}

// keep remembers a verdict (a clone: it may quote the frame).
func (v *schemaVerdicts) keep(key []byte, m rule.Message) {
	m = m.Clone()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.bytes+len(key) > maxVerdictBytes {
		clear(v.by)
		v.bytes = 0
	}
	if _, had := v.by[string(key)]; !had {
		v.by[string(key)] = m // a copy of the key
		v.bytes += len(key)
	}
}

type toolSchemaWatch struct {
	once seenOnce // tool name, member, revision and content already checked
	key  []byte   // the verdicts' key of the schema judged (reused)
}

func (w *toolSchemaWatch) End(*rule.Pass) {}

// Recycle forgets the session, keeping the memory of its table (rule.Recycler).
func (w *toolSchemaWatch) Recycle() { w.once.reset() }

func (w *toolSchemaWatch) Message(p *rule.Pass, m *session.Message) {
	listing := toolsListing(p, m)
	if listing == nil {
		return
	}
	rev := m.Revision()
	if rev == "" {
		p.CannotJudge(reasonNoRevisionToolsList)
		return
	}
	wire, err := schema.For(rev)
	if err != nil {
		p.CannotJudge(because(reasonSchemaUnavailablef, err))
		return
	}
	verdicts, _ := p.Shared().(*schemaVerdicts)
	for _, item := range listing.Items {
		tool, name := item.Value, item.Name
		for _, member := range []string{"inputSchema", "outputSchema"} {
			published, ok := tool.Get(member)
			target, defined := wire.Doc().ToolSchema(member)
			if !ok || !defined {
				continue // a missing inputSchema is MCP4001's, an undefined outputSchema MCP1010's
			}
			raw := rawText(published)                          // aliases the frame: the verdicts keep copies
			if !w.once.first(name, member, string(rev), raw) { // a list repeated unchanged is judged once
				continue
			}
			w.key = append(append(append(append(append(w.key[:0], rev...), 0), member...), 0), raw...)
			problem, known := verdicts.judged(w.key)
			if !known {
				problem = w.judge(p, wire, target, published.Raw(), rev)
				verdicts.keep(w.key, problem)
			}
			if problem.Text != "" {
				p.Report(rule.At(m), rule.Sprintf("tools/list result (line %d): tool %s publishes an %s that strict clients reject: %s; %s",
					m.Line, rule.Quote(rule.ValueName, name), member, problem, consequence(member)))
			}
		}
	}
}

// judge says what is wrong with a published schema ("" when nothing is).
func (w *toolSchemaWatch) judge(p *rule.Pass, wire *schema.Wire, target schema.Target, raw []byte, rev spec.Revision) rule.Message {
	violations, err := wire.Check(target, raw)
	if err != nil {
		return rule.Text("it could not be checked: " + err.Error())
	}
	if len(violations) > 0 {
		return rule.Sprintf("it breaks the %s Tool definition: %s", rev, listViolations(violations, "the root", rule.ValueDefinition))
	}
	compiled := p.Schemas().Compile(raw, rev)
	if compiled.Err != nil {
		return rule.Sprintf("it does not compile as JSON Schema %s: %v", compiled.Dialect, compiled.Err)
	}
	return rule.Message{}
}

func consequence(member string) string {
	if member == "inputSchema" {
		return "they refuse every call to this tool before it is sent"
	}
	return "they cannot check its structured results and fail its calls"
}

// isToolsCall reports whether a message is a client's tools/call request.
func isToolsCall(m *session.Message) bool {
	return m.Kind == frame.KindRequest && m.Method == "tools/call" && m.Dir != spec.S2C
}

// listedTool finds the tool a tools/call names in a session's registry, saying why
// it cannot be judged when it is not there.
func listedTool(p *rule.Pass, tools *schema.Tools, listed bool, name string) *schema.Tool {
	if !listed {
		p.CannotJudge(reasonNoToolsList)
		return nil
	}
	tool := tools.Lookup(name)
	if tool == nil {
		if tools.Dropped > 0 {
			p.CannotJudge(because(reasonToolNotRememberedf, schema.MaxTools))
		} else {
			p.CannotJudge(reasonToolNotListed)
		}
	}
	return tool
}

// toolLabel names a tool and where it was listed, for messages.
func toolLabel(t *schema.Tool) rule.Message {
	return rule.Sprintf("%s (tools/list result line %d)", rule.Quote(rule.ValueName, t.Name), t.Line)
}

// clientLog renders violations the way a strict client logs a rejected call.
func clientLog(vs []schema.Violation) rule.Message {
	parts := make([]rule.Message, 0, len(vs))
	for i, v := range vs {
		if i == maxListedViolations {
			parts = append(parts, rule.Sprintf("and %d more", len(vs)-maxListedViolations))
			break
		}
		parts = append(parts, rule.Quoting(v.ClientStyle(), violationValue(v, rule.ValueData).Values...))
	}
	return rule.Join(parts, "; ")
}
