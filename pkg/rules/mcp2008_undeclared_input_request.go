package rules

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UndeclaredInputRequest reports a 2026-07-28 InputRequiredResult that asks for input
// the request's clientCapabilities did not declare, or that answers a method which
// may not return one.
var UndeclaredInputRequest = &rule.Rule{
	ID:               "MCP2008",
	Name:             "undeclared-input-request",
	Severity:         rule.SeverityError,
	CapabilityScaled: true,
	Title:            "An InputRequiredResult asks for input the request did not declare, or answers a method that cannot take one",
	Anchor:           "the InputRequiredResult",
	Hint:             "read the clientCapabilities in the request's _meta before building inputRequests (roots/list needs roots, sampling/createMessage needs sampling, elicitation/create needs elicitation), and return input_required only from tools/call, prompts/get and resources/read",
	Doc: rule.Doc{
		Sees: "2026-07-28 results with `resultType: \"input_required\"`. Each `inputRequests` entry's `method` is matched " +
			"against the `io.modelcontextprotocol/clientCapabilities` in the `_meta` of the request being answered (not " +
			"those of any other request): roots/list needs `roots`, sampling/createMessage needs `sampling`, " +
			"elicitation/create needs `elicitation`. The request's method must be tools/call, prompts/get or resources/read. " +
			"A request without clientCapabilities cannot be judged (that is MCP1012's finding).",
		Why: "In the stateless era each request carries its own declaration, and a client that did not declare a feature " +
			"on this request has no way to fulfil the input request: it cannot retry with the inputResponses the server " +
			"waits for, so the call fails after a round trip, or the client gives up on a result type it does not handle " +
			"for that method.",
		Fix: "Build inputRequests from the capabilities in the current request's `_meta` only, and fall back (answer without " +
			"the input, or return a tool error explaining what is missing) when the capability is absent. Return " +
			"InputRequiredResult only from tools/call, prompts/get and resources/read.",
		Bad: `{"id":4,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
  "io.modelcontextprotocol/clientCapabilities":{}},"name":"summarise","arguments":{...}}}
{"id":4,"result":{"resultType":"input_required","inputRequests":{"s1":{"method":"sampling/createMessage","params":{...}}}}}`,
		Good: `{"id":4,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
  "io.modelcontextprotocol/clientCapabilities":{"sampling":{}}},"name":"summarise","arguments":{...}}}
{"id":4,"result":{"resultType":"input_required","inputRequests":{"s1":{"method":"sampling/createMessage","params":{...}}}}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20260728, Page: "basic/patterns/mrtr#server-requirements-basic-workflow", Says: "servers MUST NOT send an inputRequests entry that the client has not declared support for in its capabilities"},
			{Revision: spec.Rev20260728, Page: "basic/patterns/mrtr#supported-requests", Says: "InputRequiredResult MAY answer prompts/get, resources/read and tools/call; servers MUST NOT send it on any other client request"},
		},
	},
	Requires: []*rule.Analysis{Gates},
	New:      rule.PerMessage(checkInputRequests),
}

// inputRequiredMethods may be answered with an InputRequiredResult.
var inputRequiredMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

func checkInputRequests(p *rule.Pass, m *session.Message) {
	if m.Kind != frame.KindResult || m.Request == nil || !isInputRequired(m) {
		return
	}
	res := m.ResultNode()
	if get(res, "resultType").Text() != spec.ResultTypeInputRequired {
		return
	}
	r := m.Request
	c := r.Contract
	if c == nil || c.Era != session.EraModern {
		return // InputRequiredResult exists only in 2026-07-28 (MCP1010 reports it elsewhere)
	}
	if !inputRequiredMethods[r.Method] {
		p.Report(rule.At(m), rule.Sprintf("%s id=%s (line %d) was answered with an InputRequiredResult, which only tools/call, prompts/get and resources/read may return",
			r.Method, r.ID, r.Line), rule.Related{Line: r.Line, Note: "the request"})
	}
	if c.ClientCaps == nil {
		p.CannotJudge(reasonNoMetaCapabilities)
		return
	}
	missing := map[string][]rule.Message{} // capability -> input request keys
	for _, e := range p.ResultOf(Gates).(*GateLog).InputRequests(m) {
		if e.Judged && !e.Declared { // one the spec does not define: the schema rule's finding
			missing[e.Gate.Path] = append(missing[e.Gate.Path], rule.Sprintf("%s (%s)", rule.Quote(rule.ValueName, e.Key), e.Method))
		}
	}
	if len(missing) == 0 {
		return
	}
	for _, capability := range slices.Sorted(maps.Keys(missing)) {
		keys := missing[capability]
		more := ""
		if len(keys) > 3 {
			keys, more = keys[:3], fmt.Sprintf(" and %d more", len(keys)-3)
		}
		p.Report(rule.At(m), rule.Sprintf("InputRequiredResult for %s id=%s asks inputRequests %s%s, but the request's _meta clientCapabilities (line %d) declared no %s (capabilities: %s)",
			r.Method, r.ID, rule.Join(keys, ", "), more, r.Line, capability, rule.QuoteJSON(rule.ValueDefinition, string(c.ClientCaps))),
			rule.Note(r.Line, rule.Sprintf("the request's _meta clientCapabilities: %s", rule.QuoteJSON(rule.ValueDefinition, string(c.ClientCaps)))))
	}
}

// isInputRequired reports whether a result is an InputRequiredResult: only the modern
// era has them, so legacy results are not even read. Its resultType is read in
// place first; the text is then searched for input_required as written (a
// resultType written with escapes is not taken for one), only in that case.
func isInputRequired(m *session.Message) bool {
	rev := m.Revision()
	if rev != "" && !rev.Modern() {
		return false
	}
	return get(m.ResultNode(), "resultType").Text() == spec.ResultTypeInputRequired && bytes.Contains(m.Result, []byte(`input_required`))
}
