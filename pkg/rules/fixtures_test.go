package rules_test

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule/ruletest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// orderRules judge the order of messages going opposite ways, which a Go SDK log does
// not keep (it logs each direction from its own goroutine): they cannot judge there.
var orderRules = []string{"MCP1006"}

// timedRules tell a race from what came after it by the capture's times where it
// has them, by frames where it has none: the forms drop the times, so their
// verdicts may differ there (each has an untimed fixture of its own).
var timedRules = []string{"MCP3005", "MCP3009"}

// TestFixtures runs the catalogue over every fixture under fixtures/ and holds the
// findings to its .want (DESIGN.md section 8). Every envelope capture without stream
// keys is also rewritten as bare JSON-RPC lines and as a Go SDK server log, which
// must give the same error and warning findings: direction inference must not change
// the verdict (messages may differ where only the envelope says who sent what).
func TestFixtures(t *testing.T) {
	c := ruletest.Config{
		Catalogue: rules.All(),
		Forms:     []ruletest.Form{ruletest.Bare.Ignoring(timedRules...), ruletest.GoSDKLog.Ignoring(append(orderRules, timedRules...)...)},
	}
	if n := len(c.Run(t, "../../fixtures/...")); n < 40 {
		t.Fatalf("found only %d .want files under fixtures/", n)
	}
}

// TestEveryRuleHasFixtures: every rule of the catalogue has a firing fixture and a
// silent twin (DESIGN.md section 8; fixtures/rules/README.md).
func TestEveryRuleHasFixtures(t *testing.T) {
	ruletest.Coverage(t, rules.All(), "../../fixtures/rules/*.want", "../../fixtures/schema/*.want")
}
