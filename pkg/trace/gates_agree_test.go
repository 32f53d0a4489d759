package trace_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// TestContractBrokenGatesAreFindings runs every fixture with every rule and the
// contract table, and requires the table's broken rows (uses of a capability
// that rules.Gates judged undeclared) to be the gate findings: as many
// undeclared requests and notifications in the table as MCP2001 and MCP2002
// findings in the session, undeclared input requests (2026-07-28) exactly when
// MCP2008 says a request declared no capability they need, and a row broken
// exactly when a capability used is known not to be declared. All read
// rules.Gates; this fails when one judges on its own.
func TestContractBrokenGatesAreFindings(t *testing.T) {
	gateRules := map[string]bool{rules.UndeclaredNotification.ID: true, rules.UndeclaredRequest.ID: true}
	broken, found := 0, 0
	eachFixtureSession(t, trace.Needs{Contract: true}, func(in string, sr *rule.SessionResult, tr *trace.Trace) {
		undeclared, inputs := 0, 0
		for _, row := range tr.Contract {
			for _, u := range row.Uses {
				if inputRequest(sr.Session.Era, u) {
					inputs += u.Undeclared
				} else {
					undeclared += u.Undeclared
				}
			}
			used := len(row.Uses) > 0
			if (row.Undeclared > 0) != (!row.Declared && row.Known && used) {
				t.Errorf("%s: %s.%s: %d uses judged undeclared, declared %v, known %v, used %v", in, row.Side, row.Path, row.Undeclared, row.Declared, row.Known, used)
			}
			if row.Undeclared > 0 {
				broken++
			}
		}
		findings, inputFindings := 0, 0
		for _, fd := range sr.Findings {
			switch {
			case gateRules[fd.Rule]:
				findings++
			case fd.Rule == rules.UndeclaredInputRequest.ID && strings.Contains(fd.Message, "declared no"):
				inputFindings++
			}
		}
		found += findings + inputFindings
		if undeclared != findings {
			t.Errorf("%s: the contract table has %d requests and notifications judged undeclared; MCP2001 and MCP2002 report %d", in, undeclared, findings)
		}
		if (inputs > 0) != (inputFindings > 0) {
			t.Errorf("%s: the contract table has %d input requests judged undeclared; MCP2008 reports %d results that ask for undeclared input", in, inputs, inputFindings)
		}
	})
	if broken == 0 || found == 0 {
		t.Errorf("%d broken rows and %d gate findings across the fixtures: the test compared nothing", broken, found)
	}
	t.Logf("%d broken contract rows, %d gate findings", broken, found)
}

// inputRequest says a use is an input request: in a 2026-07-28 session a
// server sends no request of its own, so its roots/list, sampling/createMessage
// and elicitation/create are entries of an InputRequiredResult.
func inputRequest(era session.Era, u trace.MethodUse) bool {
	return era == session.EraModern && u.Dir == spec.S2C
}
