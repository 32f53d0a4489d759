package rule_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// methodLog is an analysis's state: the methods of the session's messages so far,
// and whether its session ended.
type methodLog struct {
	methods []string
	ended   bool
	// before is the result of an analysis this one requires, read on each message.
	before rule.Results
	read   *rule.Analysis
	seen   []int
}

func (l *methodLog) Message(m *session.Message) {
	l.methods = append(l.methods, m.Method)
	if l.read != nil {
		l.seen = append(l.seen, len(l.before.ResultOf(l.read).(*methodLog).methods))
	}
}
func (l *methodLog) Result() any             { return l }
func (l *methodLog) End(*rule.SessionResult) { l.ended = true }

// TestAnalysisRunsOnceBeforeItsReaders: an analysis that two rules and a view
// require runs once a session, on each message before the rules (a rule reads it
// up to the message it looks at, whole in End), after the analyses it requires;
// an analysis nobody requires does not run (its result is nil).
func TestAnalysisRunsOnceBeforeItsReaders(t *testing.T) {
	const capture = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`
	made := 0
	base := &rule.Analysis{Name: "methods", New: func(*session.Session, rule.Results) rule.Computation {
		made++
		return &methodLog{}
	}}
	derived := &rule.Analysis{Name: "derived", Requires: []*rule.Analysis{base}, New: func(_ *session.Session, r rule.Results) rule.Computation {
		return &methodLog{before: r, read: base}
	}}
	unused := &rule.Analysis{Name: "unused", New: func(*session.Session, rule.Results) rule.Computation { return &methodLog{} }}

	reader := func(id, name string) *rule.Rule {
		r := sample(id, name)
		r.Requires = []*rule.Analysis{base}
		r.New = func() rule.Checker {
			return &rule.Funcs{
				OnMessage: func(p *rule.Pass, m *session.Message) {
					got := p.ResultOf(base).(*methodLog).methods
					if len(got) == 0 || got[len(got)-1] != m.Method {
						t.Errorf("%s at %s: the analysis has %v, not this message last", id, m.Method, got)
					}
				},
				OnEnd: func(p *rule.Pass) {
					if l := p.ResultOf(base).(*methodLog); !l.ended || len(l.methods) != 4 {
						t.Errorf("%s in End: %+v, want the 4 messages and End run", id, l)
					}
				},
			}
		}
		return r
	}
	view := &rule.Analysis{Name: "uses-derived", AfterRules: true, Requires: []*rule.Analysis{derived}, New: func(*session.Session, rule.Results) rule.Computation { return &counting{} }}
	res, err := driver.Run("c.jsonl", strings.NewReader(capture), []*rule.Rule{reader("MCP0001", "first-reader"), reader("MCP0002", "second-reader")}, driver.RunOptions{Analyses: []*rule.Analysis{view}})
	if err != nil {
		t.Fatal(err)
	}
	if made != 1 {
		t.Errorf("the analysis two rules and a view require ran %d times for one session", made)
	}
	sr := res.Sessions[0]
	d := sr.ResultOf(derived).(*methodLog)
	if fmt.Sprint(d.seen) != "[1 2 3 4]" {
		t.Errorf("the derived analysis read %v of the one it requires, want [1 2 3 4]: it must run after it", d.seen)
	}
	if sr.ResultOf(unused) != nil {
		t.Errorf("an analysis nobody required has a result")
	}
}

// TestAnalysisAfterRulesIsRefusedToRules: a rule cannot require an analysis that
// runs after the rules (it would read what is not computed yet).
func TestAnalysisAfterRulesIsRefusedToRules(t *testing.T) {
	view := &rule.Analysis{Name: "view", AfterRules: true, New: func(*session.Session, rule.Results) rule.Computation { return &counting{} }}
	r := sample("MCP0001", "reads-a-view")
	r.Requires = []*rule.Analysis{view}
	_, err := driver.Run("c.jsonl", strings.NewReader("{}\n"), []*rule.Rule{r}, driver.RunOptions{})
	if err == nil || !strings.Contains(err.Error(), `rule MCP0001 requires "view", which runs after the rules`) {
		t.Errorf("err = %v", err)
	}
}

// compacting is a result that says whether it was compacted.
type compacting struct {
	methodLog
	compacted int
}

func (c *compacting) Result() any { return c }
func (c *compacting) Compact()    { c.compacted++ }

// TestKeepAnalysesCompactsWhatWaits: a result kept for a session that waits
// (KeepAnalyses) is compacted once; one let go of, or handed on as its session
// ended, is not.
func TestKeepAnalysesCompactsWhatWaits(t *testing.T) {
	const capture = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
`
	kept := &rule.Analysis{Name: "kept", New: func(*session.Session, rule.Results) rule.Computation { return &compacting{} }}
	dropped := &rule.Analysis{Name: "dropped", New: func(*session.Session, rule.Results) rule.Computation { return &compacting{} }}
	res, err := driver.Run("c.jsonl", strings.NewReader(capture), nil, driver.RunOptions{Analyses: []*rule.Analysis{kept, dropped}})
	if err != nil {
		t.Fatal(err)
	}
	sr := res.Sessions[0]
	k, d := sr.ResultOf(kept).(*compacting), sr.ResultOf(dropped).(*compacting)
	if k.compacted != 0 || d.compacted != 0 {
		t.Fatalf("results compacted as their session ended: %d, %d", k.compacted, d.compacted)
	}
	sr.KeepAnalyses([]*rule.Analysis{kept})
	if k.compacted != 1 || d.compacted != 0 {
		t.Errorf("KeepAnalyses compacted the kept result %d times and the one let go of %d, want 1 and 0", k.compacted, d.compacted)
	}
	if sr.ResultOf(dropped) != nil || sr.ResultOf(kept) != k {
		t.Errorf("KeepAnalyses kept the wrong results")
	}
}
