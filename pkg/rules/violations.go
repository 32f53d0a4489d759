package rules

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
)

// listViolations spells out the first few violations, the way a validator prints
// them; root names the checked value itself (a violation with an empty pointer).
func listViolations(vs []schema.Violation, root string, kind rule.ValueKind) rule.Message {
	parts := make([]rule.Message, 0, maxListedViolations)
	for i, v := range vs {
		if i == maxListedViolations {
			break
		}
		ptr := v.Pointer
		if ptr == "" {
			ptr = root
		}
		parts = append(parts, rule.Sprintf("at %s %s: %s (got %s)", ptr, v.Keyword, v.Message, violationValue(v, kind)))
	}
	s := rule.Join(parts, "; ")
	if n := len(vs) - maxListedViolations; n > 0 {
		s = rule.Sprintf("%s; and %d more", s, n)
	}
	return s
}

// violationValue declares the offending value of a violation (the data of the
// frame, arguments or structuredContent), unless the value is absent.
func violationValue(v schema.Violation, kind rule.ValueKind) rule.Message {
	if v.Value == schema.Absent {
		return rule.Text(v.Value)
	}
	return rule.Sprintf("%s", rule.Shown(kind, v.Value, v.Value))
}
