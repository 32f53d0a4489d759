package config

import (
	"encoding/json"
	"slices"
)

// Schema is a JSON Schema (2020-12) of the configuration file, for editors
// (the YAML language server reads it from a "# yaml-language-server: $schema="
// comment): the keys Parse accepts, rules named by the IDs and names given,
// and durations and counts for the option keys given. What Parse refuses, the schema
// refuses (TestSchemaAgreesWithParse).
func Schema(rules []string, options OptionKeys) []byte {
	severity := map[string]any{"type": "string", "enum": []string{"error", "warning", "info"}}
	rule := map[string]any{"type": "string", "enum": slices.Clone(rules)}
	ruleList := map[string]any{"oneOf": []any{
		map[string]any{"type": "array", "items": rule},
		map[string]any{"type": "string", "description": "rule IDs or names, comma-separated"},
	}}
	props := map[string]any{
		"enable":  withDescription(ruleList, "run only these rules (IDs or names)"),
		"disable": withDescription(ruleList, "do not run these rules (IDs or names)"),
		"severity": map[string]any{"type": "object", "description": "give rules another severity",
			"propertyNames": rule, "additionalProperties": severity},
		"fail-on":      map[string]any{"type": "string", "enum": []string{"error", "warning", "info", "never"}, "description": "exit 1 when a finding is at or above this severity"},
		"min-severity": withDescription(severity, "show only findings at or above this severity"),
		"suppress": map[string]any{"type": "array", "description": "findings not shown (counted), each entry with what it matches and why",
			"items": map[string]any{"type": "object", "required": []string{"reason"}, "minProperties": 2, "additionalProperties": false,
				"properties": map[string]any{
					"rule": rule, "path": map[string]any{"type": "string", "description": "a glob on the input's path"},
					"client": map[string]any{"type": "string"}, "server": map[string]any{"type": "string"},
					"method": map[string]any{"type": "string"}, "fingerprint": map[string]any{"type": "string"},
					"reason": map[string]any{"type": "string", "minLength": 1},
				}}},
	}
	for _, name := range options.Names {
		props[name] = map[string]any{"type": "string", "pattern": `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`,
			"description": "a positive duration such as 30s or 2m (a rule's option)"}
		if slices.Contains(options.Counts, name) {
			props[name] = map[string]any{"type": "integer", "minimum": 1, "description": "a positive whole number (a rule's option)"}
		}
	}
	doc := map[string]any{
		"$schema":              "https://json-schema.org/draft/2020-12/schema",
		"title":                FileName,
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err) // maps of strings: cannot fail
	}
	return append(b, '\n')
}

func withDescription(schema map[string]any, text string) map[string]any {
	out := map[string]any{"description": text}
	for k, v := range schema {
		out[k] = v
	}
	return out
}
