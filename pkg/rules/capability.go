package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"strings"
)

// gated is a message's capability gate under its governing revision, resolved
// against the contract.
type gated struct {
	row      spec.MethodFacts
	declared bool
	// settled is set when the outcome (nothing to judge, or declared) follows
	// from the message's class alone, with nothing noted (rule.Pass.Settled).
	settled bool
}

// judgeGate looks up the gate of a request or notification (its method resolved)
// sent in direction d under the message's revision and checks it against the
// declaring side. ok=false means there is nothing to judge (no gate, unknown
// method) or the rule could not judge (recorded through p.CannotJudge).
func judgeGate(p *rule.Pass, m *session.Message, method spec.MethodRef, d spec.Direction) (g gated, ok bool) {
	if !method.GatedAnywhere() {
		return gated{settled: true}, false // unknown to the spec, or never capability-gated
	}
	if d == spec.DirUnknown {
		p.CannotJudge(reasonDirectionUnknown)
		return g, false
	}
	rev := m.Revision()
	switch {
	case m.Contract == nil:
		p.CannotJudge(reasonNoContract)
		return g, false
	case rev == "":
		p.CannotJudge(reasonUnknownVersion)
		return g, false
	}
	row, found := method.Facts(rev, d)
	if !found || row.Gate.None() {
		return gated{settled: true}, false // a method the revision lacks is MCP1008's; an ungated one needs no declaration
	}
	if row.Gate.Extension != "" {
		p.CannotJudge(because(reasonExtensionUncheckedf, row.Gate.Extension))
		return g, false
	}
	declared, known := m.Contract.DeclaresGate(row.Gate)
	if !known {
		p.CannotJudge(because(reasonCapsUnknownf, row.Gate.Side, m.Contract.DeclaredIn(row.Gate.Side)))
		return g, false
	}
	return gated{row: row, declared: declared, settled: declared}, true
}

// declaration says what a side declared for a gate, as evidence in a message
// (session.Contract.Declaration), with the declaring frame as related evidence:
// `initialize result (line 2) declared resources: {} (no listChanged)`.
func declaration(c *session.Contract, g spec.Gate) (rule.Message, rule.Related) {
	return declarationBy(c, g, c.DeclaredIn(g.Side))
}

// declarationBy is declaration with the declaring frame named as owner says.
func declarationBy(c *session.Contract, g spec.Gate, owner string) (rule.Message, rule.Related) {
	text, caps := c.Declaration(g, owner)
	msg := rule.Text(text)
	if caps != nil {
		msg = rule.Sprintf("%s (capabilities: %s)", msg, rule.QuoteJSON(rule.ValueDefinition, string(caps)))
	}
	return msg, declaredAt(c, g.Side, g.Path)
}

// declaredAt points at the frame that declared side's capabilities, noting what it
// declared at path's top level.
func declaredAt(c *session.Contract, side spec.Side, path string) rule.Related {
	return rule.Related{Line: c.DeclaredLine(side), Note: c.DeclarationNote(side, path), Raw: c.DeclaredRaw(side)}
}

// undeclaredEvidence says, from the sender's point of view, what the owner of a gate
// declared: "its initialize result (line 2) declared resources: {} (no listChanged)"
// or "the client's initialize request (line 1) declared no sampling (capabilities: {})".
func undeclaredEvidence(m *session.Message, g spec.Gate) (rule.Message, rule.Related) {
	return declarationBy(m.Contract, g, possessive(m.Sender(), g.Side)+" "+m.Contract.DeclaredIn(g.Side))
}

// possessive renders "its" when the gate is the sender's own declaration, else "the <side>'s".
func possessive(sender, owner spec.Side) string {
	if sender == owner {
		return "its"
	}
	return "the " + owner.String() + "'s"
}

// capsOf is one side's declared capability object (nil when not seen).
func capsOf(c *session.Contract, side spec.Side) []byte {
	if side == spec.Server {
		return c.ServerCaps
	}
	return c.ClientCaps
}

// capabilityExample writes what declaring a gate looks like in a capability
// object: logging: {}, resources: {"listChanged": true}.
func capabilityExample(g spec.Gate) string {
	top, sub, hasSub := strings.Cut(g.Path, ".")
	if !hasSub {
		if g.Boolean() {
			return top + ": true"
		}
		return top + ": {}"
	}
	value := "{}"
	if g.Boolean() {
		value = "true"
	}
	return top + `: {"` + strings.ReplaceAll(sub, ".", `": {"`) + `": ` + value + strings.Repeat("}", strings.Count(sub, ".")+1)
}
