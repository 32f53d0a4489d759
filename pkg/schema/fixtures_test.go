package schema_test

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule/ruletest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// TestSchemaFixtures runs fixtures/schema with the whole catalogue and holds the
// rules built on this package to their .want at every severity (elsewhere info-level
// findings pass unlisted), also when the capture is rewritten as bare JSON-RPC and as
// the Go SDK log of the server: the rules infer who sent what from the session, not
// from the envelope.
func TestSchemaFixtures(t *testing.T) {
	c := ruletest.Config{
		Catalogue: rules.All(),
		Strict:    []string{"MCP1010", "MCP4001", "MCP4002", "MCP4003", "MCP4004", "MCP4005"},
		Forms:     []ruletest.Form{ruletest.Bare, ruletest.GoSDKLog.Ignoring("MCP1006")},
	}
	if n := len(c.Run(t, "../../fixtures/schema/*.want")); n < 12 {
		t.Fatalf("only %d fixtures in fixtures/schema", n)
	}
}
