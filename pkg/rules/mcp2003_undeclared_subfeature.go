package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// UndeclaredSubfeature reports a request that uses a parameter-level feature (tools in
// sampling, includeContext, an elicitation mode, task augmentation) that the receiver's
// declaration does not cover, although it declared the method's capability itself.
var UndeclaredSubfeature = &rule.Rule{
	ID:               "MCP2003",
	Name:             "undeclared-subfeature",
	Severity:         rule.SeverityError,
	CapabilityScaled: true,
	Title:            "A request uses a sub-feature the receiver did not declare",
	Anchor:           "the request; 2026-07-28: the InputRequiredResult whose inputRequests entry uses the sub-feature",
	Hint:             "check the sub-capability before using the parameter (sampling.tools for tools/toolChoice, sampling.context for includeContext thisServer/allServers, elicitation.url for mode \"url\", elicitation.form or an empty elicitation object for form mode, tasks.requests.* for params.task), and fall back to the plain request when it is absent",
	Doc: rule.Doc{
		Sees: "From 2025-11-25 on, some features live below a method's capability: sampling/createMessage with `params.tools` or `params.toolChoice` " +
			"needs the client's `sampling.tools`; `includeContext: \"thisServer\"` or `\"allServers\"` needs `sampling.context`; elicitation/create " +
			"with `mode: \"url\"` needs `elicitation.url`, and form mode (or no mode) needs `elicitation.form` or an empty `elicitation: {}` " +
			"(an object that declares only `url` excludes forms); `params.task` needs the receiver's `tasks.requests` entry for that method " +
			"(tools/call: the server's `tasks.requests.tools.call`; sampling/createMessage and elicitation/create: the client's " +
			"`tasks.requests.sampling.createMessage` / `tasks.requests.elicitation.create`). Under 2026-07-28 the same checks apply to " +
			"sampling/createMessage and elicitation/create entries of an InputRequiredResult, against the clientCapabilities in that " +
			"request's `_meta`. A request whose method capability is missing altogether is MCP2002's (or MCP2008's) finding, not this one.",
		Why: "The receiver declared the method but not the variant. A client without `sampling.tools` must answer a tool-enabled " +
			"sampling request with an error; one without `elicitation.url` cannot open a URL flow; a task-augmented request to a " +
			"receiver that did not declare it is processed as a plain request, so the task the sender waits for never exists. The " +
			"feature the server relied on silently does not happen.",
		Fix: "Read the sub-capability from the peer's declaration before using the parameter. Without `sampling.tools`, send the " +
			"sampling request without `tools`/`toolChoice`; without `sampling.context`, omit `includeContext` or use \"none\"; without " +
			"`elicitation.url`, use a form (or tell the user the URL another way); without the `tasks.requests` entry, send the request " +
			"without `task` and wait for the ordinary result.",
		Bad: `{"id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},...}}
{"id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},...}}
{"id":0,"method":"sampling/createMessage","params":{"messages":[...],"maxTokens":200,
  "tools":[{"name":"lookup","inputSchema":{"type":"object"}}]}}`,
		Good: `{"id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{"tools":{}}},...}}
{"id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},...}}
{"id":0,"method":"sampling/createMessage","params":{"messages":[...],"maxTokens":200,
  "tools":[{"name":"lookup","inputSchema":{"type":"object"}}]}}`,
		Spec: []rule.SpecRef{
			{Revision: spec.Rev20251125, Page: "client/sampling#capabilities", Says: "servers MUST NOT send tool-enabled sampling requests (tools, toolChoice) unless the client declared sampling.tools; includeContext thisServer/allServers SHOULD only be used when the client declared sampling.context"},
			{Revision: spec.Rev20251125, Page: "client/elicitation#capabilities", Says: "servers MUST NOT send elicitation requests with modes the client does not support; an empty elicitation object is equivalent to declaring form mode only"},
			{Revision: spec.Rev20251125, Page: "basic/utilities/tasks#capabilities", Says: "without server tasks.requests.tools.call clients MUST NOT augment tools/call with a task; requestors SHOULD only augment requests whose type the receiver listed in tasks.requests"},
			{Revision: spec.Rev20260728, Page: "basic/patterns/mrtr#server-requirements-basic-workflow", Says: "input requests carry the same sampling and elicitation parameters, judged against the clientCapabilities of the request they answer"},
		},
	},
	New: rule.PerMessage(checkSubfeatures),
}

// subfeatureUse is one parameter-level feature a request uses, with the capability
// that must cover it.
type subfeatureUse struct {
	what     string    // how the request uses it: `params.tools`, `mode "url"`
	effect   string    // what the receiver does with it
	gate     spec.Gate // the capability that must be declared
	parent   string    // the method's own capability ("" when the sub-feature stands alone)
	severity rule.Severity
	// covered decides whether the declaration covers the use (nil: gate declared).
	covered func(c *session.Contract) bool
}

// subfeatureUses lists the sub-features used by a request of method with params.
// withTasks is false under 2026-07-28, where params.task is an extension's.
func subfeatureUses(method string, params frame.Node, withTasks bool) []subfeatureUse {
	var uses []subfeatureUse
	switch method {
	case "sampling/createMessage":
		_, tools := params.Get("tools")
		if _, toolChoice := params.Get("toolChoice"); tools || toolChoice {
			what := "params.tools"
			if !tools {
				what = "params.toolChoice"
			}
			uses = append(uses, subfeatureUse{what: what, effect: "the client must answer it with an error", gate: spec.Gate{Side: spec.Client, Path: "sampling.tools"}, parent: "sampling", severity: rule.SeverityError})
		}
		if ctx := get(params, "includeContext").Text(); ctx == "thisServer" || ctx == "allServers" {
			uses = append(uses, subfeatureUse{what: `includeContext "` + ctx + `"`, effect: "the client may ignore it and sample without the context", gate: spec.Gate{Side: spec.Client, Path: "sampling.context"}, parent: "sampling", severity: rule.SeverityWarning})
		}
		if withTasks && taskParam(params) {
			uses = append(uses, subfeatureUse{what: "params.task", effect: "the client processes it as a plain request and creates no task", gate: spec.Gate{Side: spec.Client, Path: "tasks.requests.sampling.createMessage"}, severity: rule.SeverityWarning})
		}
	case "elicitation/create":
		switch mode := get(params, "mode"); {
		case mode.Text() == "url":
			uses = append(uses, subfeatureUse{what: `mode "url"`, effect: "the client cannot open the URL flow", gate: spec.Gate{Side: spec.Client, Path: "elicitation.url"}, parent: "elicitation", severity: rule.SeverityError})
		case !mode.Exists() || mode.Text() == "form":
			what := `mode "form"`
			if !mode.Exists() {
				what = "form mode (no params.mode)"
			}
			uses = append(uses, subfeatureUse{what: what, effect: "the client cannot show the form", gate: spec.Gate{Side: spec.Client, Path: "elicitation.form"}, parent: "elicitation", severity: rule.SeverityError,
				covered: elicitationFormDeclared})
		}
		if withTasks && taskParam(params) {
			uses = append(uses, subfeatureUse{what: "params.task", effect: "the client processes it as a plain request and creates no task", gate: spec.Gate{Side: spec.Client, Path: "tasks.requests.elicitation.create"}, severity: rule.SeverityWarning})
		}
	case "tools/call":
		if withTasks && taskParam(params) {
			uses = append(uses, subfeatureUse{what: "params.task", effect: "the server processes it as a plain call and creates no task", gate: spec.Gate{Side: spec.Server, Path: "tasks.requests.tools.call"}, severity: rule.SeverityError})
		}
	}
	return uses
}

func taskParam(params frame.Node) bool {
	t, ok := params.Get("task")
	return ok && !t.IsNull()
}

// elicitationFormDeclared: form mode is covered by elicitation.form, or by an
// elicitation object that does not declare url (2025-11-25: {} means form only).
func elicitationFormDeclared(c *session.Contract) bool {
	form, _ := c.Declares(spec.Client, "elicitation.form", false)
	url, _ := c.Declares(spec.Client, "elicitation.url", false)
	return form || !url
}

// subfeatureSender is the side that sends method as a request (legacy era).
func subfeatureSender(method string) spec.Direction {
	if method == "tools/call" {
		return spec.C2S
	}
	return spec.S2C
}

func checkSubfeatures(p *rule.Pass, m *session.Message) {
	switch {
	case m.Kind == frame.KindRequest:
		switch m.Method {
		case "sampling/createMessage", "elicitation/create", "tools/call":
			checkSubfeatureRequest(p, m)
		}
	case m.Kind == frame.KindResult && m.Request != nil && isInputRequired(m):
		checkSubfeatureInputRequests(p, m)
	}
}

// checkSubfeatureRequest judges a JSON-RPC request (2025-11-25: the only legacy
// revision with sub-feature capabilities).
func checkSubfeatureRequest(p *rule.Pass, m *session.Message) {
	c := m.Contract
	switch {
	case c == nil:
		p.CannotJudge(reasonNoContract)
		return
	case m.Revision() == "":
		p.CannotJudge(reasonUnknownVersion)
		return
	case !m.Revision().Has(spec.FeatureSubfeatureCapabilities):
		return // no sub-feature capabilities before 2025-11-25; not a JSON-RPC request from 2026-07-28
	case m.Dir == spec.DirUnknown:
		p.CannotJudge(reasonDirectionUnknown)
		return
	case m.Dir != subfeatureSender(m.Method):
		return
	}
	uses := subfeatureUses(m.Method, m.ParamsNode(), true)
	for _, u := range uses {
		declared, ok := subfeatureDeclared(p, c, u)
		if !ok || declared {
			continue
		}
		evidence, related := undeclaredEvidence(m, u.gate)
		p.ReportSeverity(subfeatureSeverity(p, u, m.Revision()), rule.At(m),
			rule.Sprintf("%s sent %s with %s but %s: %s", m.Sender(), rule.Describe(m), u.what, evidence, u.effect), related)
	}
}

// checkSubfeatureInputRequests judges the input requests of a 2026-07-28
// InputRequiredResult against the clientCapabilities of the request it answers.
func checkSubfeatureInputRequests(p *rule.Pass, m *session.Message) {
	res := m.ResultNode()
	if get(res, "resultType").Text() != spec.ResultTypeInputRequired {
		return
	}
	c := m.Request.Contract
	switch {
	case c == nil || c.Era != session.EraModern:
		return // not a modern request: InputRequiredResult does not exist there
	case c.ClientCaps == nil:
		p.CannotJudge(reasonNoMetaCapabilities)
		return
	}
	eachKeyed(get(res, "inputRequests"), func(key string, entry frame.Node) bool {
		method := get(entry, "method").Text()
		for _, u := range subfeatureUses(method, get(entry, "params"), false) {
			declared, ok := subfeatureDeclared(p, c, u)
			if !ok || declared {
				continue
			}
			text, related := declaration(c, u.gate)
			p.ReportSeverity(subfeatureSeverity(p, u, c.Revision), rule.At(m),
				rule.Sprintf("InputRequiredResult for %s id=%s (line %d) asks inputRequests[%s] %s with %s but %s: %s",
					m.Request.Method, m.Request.ID, m.Request.Line, rule.Quote(rule.ValueName, key), method, u.what, text, u.effect),
				rule.Related{Line: m.Request.Line, Note: "the request and its _meta clientCapabilities"}, related)
		}
		return true
	})
}

// subfeatureDeclared reports whether the contract covers a use; ok=false when the
// receiver's declaration is unknown or lacks the method's capability itself (the
// finding then belongs to MCP2002 / MCP2008).
func subfeatureDeclared(p *rule.Pass, c *session.Contract, u subfeatureUse) (declared, ok bool) {
	if u.parent != "" {
		parent, known := c.Declares(u.gate.Side, u.parent, false)
		if !known {
			p.CannotJudge(because(reasonCapsUnknownf, u.gate.Side, c.DeclaredIn(u.gate.Side)))
			return false, false
		}
		if !parent {
			return false, false
		}
	}
	if u.covered != nil {
		return u.covered(c), true
	}
	declared, known := c.Declares(u.gate.Side, u.gate.Path, false)
	if !known {
		p.CannotJudge(because(reasonCapsUnknownf, u.gate.Side, c.DeclaredIn(u.gate.Side)))
		return false, false
	}
	return declared, true
}

// subfeatureSeverity: MUST-level uses follow the rule's (revision-scaled) severity,
// SHOULD-level ones are warnings.
func subfeatureSeverity(p *rule.Pass, u subfeatureUse, rev spec.Revision) rule.Severity {
	if u.severity == rule.SeverityWarning {
		return rule.SeverityWarning
	}
	return p.SeverityAt(rev)
}
