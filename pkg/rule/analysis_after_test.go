package rule_test

import (
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// counting is a view's analysis that counts messages and notes what End saw.
type counting struct {
	messages int
	findings int
}

func (c *counting) Message(*session.Message) { c.messages++ }

func (c *counting) End(r *rule.SessionResult) { c.findings = len(r.Findings) }
func (c *counting) Result() any               { return c }

// TestAnalysisAfterRulesSeesFindings: an analysis that runs after the rules (a
// view's) sees every message of each session in the same pass, ends after the
// rules with their findings, and its result is the session's ResultOf; the rules'
// findings and notes do not change.
func TestAnalysisAfterRulesSeesFindings(t *testing.T) {
	const capture = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	every := sample("MCP0001", "every-request")
	every.New = rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind == frame.KindRequest {
			p.Reportf(rule.At(m), "a request")
		}
	})
	obs := &rule.Analysis{Name: "count", AfterRules: true, New: func(*session.Session, rule.Results) rule.Computation { return &counting{} }}
	other := &rule.Analysis{Name: "other", AfterRules: true, New: func(*session.Session, rule.Results) rule.Computation { return &counting{} }}
	alone, err := driver.Run("c.jsonl", strings.NewReader(capture), []*rule.Rule{every}, driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := driver.Run("c.jsonl", strings.NewReader(capture), []*rule.Rule{every}, driver.RunOptions{Analyses: []*rule.Analysis{obs}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 || len(alone.Sessions) != 1 {
		t.Fatalf("%d and %d sessions", len(res.Sessions), len(alone.Sessions))
	}
	sr := res.Sessions[0]
	c, ok := sr.ResultOf(obs).(*counting)
	if !ok || c.messages != 4 || c.findings != 2 {
		t.Errorf("analysis result %+v, want 4 messages and the 2 findings", sr.ResultOf(obs))
	}
	if sr.ResultOf(other) != nil {
		t.Errorf("an analysis that did not run has a result")
	}
	if len(sr.Findings) != len(alone.Sessions[0].Findings) || len(sr.Notes) != len(alone.Sessions[0].Notes) {
		t.Errorf("the analysis changed what the rules found: %v vs %v", sr.Findings, alone.Sessions[0].Findings)
	}
}
