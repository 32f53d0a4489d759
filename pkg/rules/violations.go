package rules

import (
	"strconv"
	"strings"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
)

// maxListedRequired bounds the missing properties of one object a message names.
const maxListedRequired = 6

// requiredPrefix and requiredSuffix frame the property a "required" violation
// names, as pkg/schema words it (Ajv's text): must have required property 'text'.
const (
	requiredPrefix = "must have required property '"
	requiredSuffix = "'"
)

// listViolations spells out the first few violations, the way a validator prints
// them; root names the checked value itself (a violation with an empty pointer).
// The required properties missing from one object are one item ("must have
// required properties 'a', 'b', 'c'"), not one item each repeating the object.
func listViolations(vs []schema.Violation, root string, kind rule.ValueKind) rule.Message {
	parts := make([]rule.Message, 0, maxListedViolations)
	shown := 0
	for i := 0; i < len(vs) && len(parts) < maxListedViolations; i++ {
		v := vs[i]
		ptr := v.Pointer
		if ptr == "" {
			ptr = root
		}
		missing, n := missingRequired(vs, i)
		if n <= 1 {
			parts = append(parts, rule.Sprintf("at %s %s: %s (got %s)", ptr, v.Keyword, v.Message, violationValue(v, kind)))
			shown++
			continue
		}
		parts = append(parts, rule.Sprintf("at %s required: must have required properties %s (got %s)", ptr, missing, violationValue(v, kind)))
		shown += n
		i += n - 1
	}
	s := rule.Join(parts, "; ")
	if n := len(vs) - shown; n > 0 {
		s = rule.Sprintf("%s; and %d more", s, n)
	}
	return s
}

// missingRequired reads the run of "required" violations at vs[i]'s pointer that
// starts at i (schema sorts violations by pointer, so an object's missing
// properties are adjacent): the properties named ('a', 'b', 'c', at most
// maxListedRequired, then how many more) and how many violations the run holds (0
// when vs[i] is not a required property it can name).
func missingRequired(vs []schema.Violation, i int) (string, int) {
	var names []string
	for j := i; j < len(vs); j++ {
		v := vs[j]
		name, ok := requiredName(v)
		if !ok || v.Pointer != vs[i].Pointer || v.Value != vs[i].Value {
			break
		}
		names = append(names, name)
	}
	if len(names) > maxListedRequired {
		return strings.Join(names[:maxListedRequired], ", ") + " and " + strconv.Itoa(len(names)-maxListedRequired) + " more", len(names)
	}
	return strings.Join(names, ", "), len(names)
}

// requiredName is the property a "required" violation names, quoted as the
// violation quotes it ('text').
func requiredName(v schema.Violation) (string, bool) {
	if v.Keyword != "required" {
		return "", false
	}
	name, ok := strings.CutPrefix(v.Message, requiredPrefix)
	if !ok || !strings.HasSuffix(name, requiredSuffix) {
		return "", false
	}
	return "'" + name, true
}

// violationValue declares the offending value of a violation (the data of the
// frame, arguments or structuredContent), unless the value is absent.
func violationValue(v schema.Violation, kind rule.ValueKind) rule.Message {
	if v.Value == schema.Absent {
		return rule.Text(v.Value)
	}
	return rule.Sprintf("%s", rule.Shown(kind, v.Value, v.Value))
}
