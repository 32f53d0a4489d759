package config_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/mcpsleuth/mcpsleuth/pkg/config"
)

// TestSchemaAgreesWithParse: the schema accepts the files Parse accepts and
// refuses those it refuses (with the rules and options it is given).
func TestSchemaAgreesWithParse(t *testing.T) {
	rules, options := []string{"MCP2001", "undeclared-notification", "MCP3008"}, config.OptionKeys{Names: []string{"slow", "reconnect-limit"}, Counts: []string{"reconnect-limit"}}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(config.Schema(rules, options)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("config.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("config.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		ok   bool
	}{
		{"enable: [MCP2001, undeclared-notification]\nseverity:\n  MCP3008: warning\nfail-on: never\nmin-severity: info\nslow: 1m30s\n", true},
		{"disable: MCP3008, MCP2001\n", true},
		{"bogus: 1\n", false},
		{"fail-on: sometimes\n", false},
		{"min-severity: never\n", false},
		{"severity:\n  MCP2001: fatal\n", false},
		{"slow: soon\n", false},
		{"reconnect-limit: 5\n", true},
		{"reconnect-limit: 0\n", false},
		{"reconnect-limit: many\n", false},
		{"reconnect-limit: 1m\n", false},
		{"enable: [MCP9999]\n", false}, // Parse returns names for the caller to check; loadSettings refuses it
	} {
		var v any
		if err := yaml.Unmarshal([]byte(tc.file), &v); err != nil {
			t.Fatal(err)
		}
		raw, _ := json.Marshal(v)
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		verr := schema.Validate(inst)
		if (verr == nil) != tc.ok {
			t.Errorf("%q: schema says valid=%v (%v), want %v", tc.file, verr == nil, verr, tc.ok)
		}
		_, perr := config.Parse("c.yaml", []byte(tc.file), options)
		if tc.ok && perr != nil {
			t.Errorf("%q: the schema accepts it, Parse refuses it: %v", tc.file, perr)
		}
	}
}
