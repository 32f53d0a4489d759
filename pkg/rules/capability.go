package rules

import (
	"fmt"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// gated is a message's capability gate under its governing revision, resolved
// against the contract.
type gated struct {
	row      spec.MethodFacts
	declared bool
}

// judgeGate looks up the gate of a request or notification sent in direction d
// under the message's revision and checks it against the declaring side. ok=false
// means there is nothing to judge (no gate, unknown method) or the rule could not
// judge (recorded through p.CannotJudge).
func judgeGate(p *rule.Pass, m *session.Message, method string, d spec.Direction) (g gated, ok bool) {
	if !spec.GatedAnywhere(method) {
		return g, false // unknown to the spec, or never capability-gated
	}
	if d == spec.DirUnknown {
		p.CannotJudge("direction unknown")
		return g, false
	}
	rev := m.Revision()
	switch {
	case m.Contract == nil:
		p.CannotJudge("no contract (no handshake before it)")
		return g, false
	case rev == "":
		p.CannotJudge("no governing revision (an unknown protocolVersion)")
		return g, false
	}
	row, found := spec.Facts(method, rev, d)
	if !found || row.Gate.None() {
		return g, false // a method the revision lacks is MCP1008's; an ungated one needs no declaration
	}
	if row.Gate.Extension != "" {
		p.CannotJudge("extension capabilities (" + row.Gate.Extension + ") are not checked yet")
		return g, false
	}
	declared, known := m.Contract.Declares(row.Gate.Side, row.Gate.Path, row.Gate.Boolean())
	if !known {
		p.CannotJudge(fmt.Sprintf("the %s's capabilities are unknown (%s not seen)", row.Gate.Side, m.Contract.DeclaredIn(row.Gate.Side)))
		return g, false
	}
	return gated{row: row, declared: declared}, true
}

// declaration says what a side declared for a gate, as evidence in a message:
// `initialize result (line 2) declared resources: {} (no listChanged)`.
func declaration(c *session.Contract, g spec.Gate) (string, rule.Related) {
	top, sub, _ := strings.Cut(g.Path, ".")
	summary := c.CapabilitySummary(g.Side, top)
	text := c.DeclaredIn(g.Side) + " declared " + summary
	if sub != "" && !strings.HasPrefix(summary, "no ") {
		text += " (no " + sub + ")"
	}
	if strings.HasPrefix(summary, "no ") {
		text = c.DeclaredIn(g.Side) + " declared no " + top
		if caps := capsOf(c, g.Side); caps != "" {
			text += " (capabilities: " + caps + ")"
		}
	}
	return text, rule.Related{Line: c.DeclaredLine(g.Side), Note: c.DeclaredIn(g.Side) + ": " + summary, Raw: c.DeclaredRaw(g.Side)}
}

func capsOf(c *session.Contract, side spec.Side) string {
	caps := c.ClientCaps
	if side == spec.Server {
		caps = c.ServerCaps
	}
	if caps == nil {
		return ""
	}
	return shortJSON(string(caps))
}

// undeclaredEvidence says, from the sender's point of view, what the owner of a gate
// declared: "its initialize result (line 2) declared resources: {} (no listChanged)"
// or "the client's initialize request (line 1) declared no sampling (capabilities: {})".
func undeclaredEvidence(m *session.Message, g spec.Gate) (string, rule.Related) {
	text, related := declaration(m.Contract, g)
	owner := m.Contract.DeclaredIn(g.Side)
	return strings.Replace(text, owner, possessive(m.Sender(), g.Side)+" "+owner, 1), related
}

// possessive renders "its" when the gate is the sender's own declaration, else "the <side>'s".
func possessive(sender, owner spec.Side) string {
	if sender == owner {
		return "its"
	}
	return "the " + owner.String() + "'s"
}
