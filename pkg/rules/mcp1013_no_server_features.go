package rules

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/tidwall/gjson"
)

// NoServerFeatures reports a server that declares none of tools, resources, prompts.
var NoServerFeatures = &rule.Rule{
	ID:       "MCP1013",
	Name:     "no-server-features",
	Severity: rule.SeverityWarning,
	Title:    "The server declares none of tools, resources, prompts",
	Anchor:   "the initialize (or server/discover) result",
	Hint:     `declare the base capability of everything the server implements: "capabilities": {"tools": {}} is the minimum for a server with tools; an empty object means "supported, no sub-features"`,
	New: rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind != frame.KindResult || m.Request == nil {
			return
		}
		var caps gjson.Result
		switch m.Request.Method {
		case "initialize", "server/discover":
			caps = gjson.GetBytes(m.Result, "capabilities")
		default:
			return
		}
		for _, feature := range []string{"tools", "resources", "prompts"} {
			if caps.Get(feature).Exists() {
				return
			}
		}
		shown := "no capabilities object at all"
		if caps.Exists() {
			shown = "capabilities: " + shortJSON(caps.Raw)
		}
		p.Report(rule.At(m), fmt.Sprintf("the %s result declares none of tools, resources, prompts (%s): a %s that follows the spec will never list or call anything, however many handlers the server registered",
			m.Request.Method, shown, spec.Client))
	}),
}
