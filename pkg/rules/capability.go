package rules

import (
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

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
