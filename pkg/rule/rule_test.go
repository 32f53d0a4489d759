package rule_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

func sample(id, name string) *rule.Rule {
	return &rule.Rule{ID: id, Name: name, Severity: rule.SeverityError, Title: "t", Anchor: "a", Hint: "h",
		Doc: rule.Doc{Sees: "s", Why: "w", Fix: "f", Bad: "b", Good: "g", Spec: []rule.SpecRef{{Revision: "2025-06-18", Page: "basic"}}},
		New: rule.PerMessage(func(*rule.Pass, *session.Message) {})}
}

func TestValidate(t *testing.T) {
	ok := []*rule.Rule{sample("MCP0001", "one"), sample("MCP0002", "two-words")}
	if err := rule.Validate(ok); err != nil {
		t.Fatalf("valid catalogue rejected: %v", err)
	}
	noNew := sample("MCP0003", "three")
	noNew.New = nil
	noHint := sample("MCP0003", "three")
	noHint.Hint = ""
	noDoc := sample("MCP0003", "three")
	noDoc.Doc.Bad = ""
	unknownMethod := sample("MCP0003", "three")
	unknownMethod.Methods = []string{"tools/call", "tools/cal"}
	for _, c := range []struct {
		rules []*rule.Rule
		want  string
	}{
		{[]*rule.Rule{sample("MCP1", "x")}, "id must look like"},
		{[]*rule.Rule{sample("MCP0001", "Bad_Name")}, "kebab-case"},
		{[]*rule.Rule{sample("MCP0001", "a"), sample("MCP0001", "b")}, "id used twice"},
		{[]*rule.Rule{sample("MCP0001", "a"), sample("MCP0002", "a")}, "used twice"},
		{[]*rule.Rule{noNew}, "no constructor"},
		{[]*rule.Rule{noHint}, "required"},
		{[]*rule.Rule{noDoc}, "documentation incomplete"},
		{[]*rule.Rule{unknownMethod}, `method "tools/cal" is not in the spec's table`},
	} {
		err := rule.Validate(c.rules)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate: error %v, want one containing %q", err, c.want)
		}
	}
}

func TestSelect(t *testing.T) {
	all := []*rule.Rule{sample("MCP0001", "one"), sample("MCP0002", "two"), sample("MCP0003", "three")}
	ids := func(rs []*rule.Rule) string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		enable, disable []string
		want            string
	}{
		{nil, nil, "MCP0001,MCP0002,MCP0003"},
		{[]string{"two", "mcp0003"}, nil, "MCP0002,MCP0003"},
		{nil, []string{"MCP0001"}, "MCP0002,MCP0003"},
		{[]string{"one", "two"}, []string{"two"}, "MCP0001"},
	} {
		got, err := rule.Select(all, c.enable, c.disable)
		if err != nil || ids(got) != c.want {
			t.Errorf("Select(%v, %v) = %s, %v; want %s", c.enable, c.disable, ids(got), err, c.want)
		}
	}
	if _, err := rule.Select(all, []string{"nope"}, nil); err == nil || !strings.Contains(err.Error(), `unknown rule "nope"`) {
		t.Errorf("unknown rule: %v", err)
	}
}

const session20250326 = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"ping"}
{"jsonrpc":"2.0","id":2,"method":"ping"}
{"jsonrpc":"2.0","id":3,"method":"ping"}
`

// everyPing reports each ping; scaled says whether it is a capability rule.
func everyPing(scaled bool) *rule.Rule {
	r := sample("MCP9001", "every-ping")
	r.CapabilityScaled = scaled
	r.New = rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Kind == frame.KindRequest && m.Method == "ping" {
			p.Reportf(rule.At(m), "ping %s", m.ID)
		}
	})
	return r
}

func run(t *testing.T, rules []*rule.Rule, limit int) *rule.SessionResult {
	t.Helper()
	res, err := driver.Run("t.jsonl", strings.NewReader(session20250326), rules, driver.RunOptions{FindingLimit: limit})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 1 {
		t.Fatalf("%d sessions", len(res.Sessions))
	}
	return res.Sessions[0]
}

// TestCapabilityScaling: a capability rule is a warning under 2025-03-26 (SHOULD),
// other rules keep their severity.
func TestCapabilityScaling(t *testing.T) {
	for _, c := range []struct {
		scaled bool
		want   rule.Severity
	}{{true, rule.SeverityWarning}, {false, rule.SeverityError}} {
		s := run(t, []*rule.Rule{everyPing(c.scaled)}, 0)
		if len(s.Findings) != 3 || s.Findings[0].Severity != c.want || s.Findings[0].Line != 4 || s.Findings[0].Message != "ping 1" {
			t.Errorf("scaled=%v: findings %+v, want 3 at %s starting at line 4", c.scaled, s.Findings, c.want)
		}
	}
}

// TestFindingLimit: past the limit, findings are counted in a note, not listed.
func TestFindingLimit(t *testing.T) {
	s := run(t, []*rule.Rule{everyPing(false)}, 2)
	if len(s.Findings) != 2 || s.Findings[1].Line != 5 {
		t.Fatalf("findings %+v, want the first 2", s.Findings)
	}
	if len(s.Notes) != 1 || s.Notes[0] != "MCP9001 every-ping: 1 more finding not listed (limit per rule and session reached)" {
		t.Errorf("notes %q", s.Notes)
	}
}

// TestCannotJudgeNotes: the count per rule and reason becomes a note.
func TestCannotJudgeNotes(t *testing.T) {
	r := sample("MCP9002", "cannot")
	r.New = rule.PerMessage(func(p *rule.Pass, m *session.Message) {
		if m.Method == "ping" {
			p.CannotJudge("pings are opaque")
		}
	})
	s := run(t, []*rule.Rule{r}, 0)
	if len(s.Notes) != 1 || s.Notes[0] != "MCP9002 cannot could not judge 3 messages: pings are opaque" {
		t.Errorf("notes %q", s.Notes)
	}
}

// TestSessionsReleased: once a session has ended and its rules have run, the state
// kept to follow its traffic is dropped, so that memory does not grow with the
// number of sessions in a capture.
func TestSessionsReleased(t *testing.T) {
	var capture strings.Builder
	for s := 0; s < 3; s++ {
		capture.WriteString(session20250326)
		for i := 10; i < 20; i++ {
			fmt.Fprintf(&capture, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":%d}}}`+"\n", i, i)
			fmt.Fprintf(&capture, `{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`+"\n", i)
		}
	}
	res, err := driver.Run("t.jsonl", strings.NewReader(capture.String()), nil, driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Sessions) != 3 {
		t.Fatalf("%d sessions, want 3", len(res.Sessions))
	}
	for _, s := range res.Sessions {
		if n := s.Session.Tracked(); n != 0 {
			t.Errorf("session %d still tracks %d items after it ended", s.Session.Index, n)
		}
	}
}

// TestOnSessionDiscard: each session is handed over as it ends, and Discard keeps
// none in the result.
func TestOnSessionDiscard(t *testing.T) {
	capture := session20250326 + session20250326
	var ended []int
	res, err := driver.Run("t.jsonl", strings.NewReader(capture), []*rule.Rule{everyPing(false)}, driver.RunOptions{
		OnSession: func(sr *rule.SessionResult) {
			ended = append(ended, sr.Session.Index)
			if len(sr.Findings) != 3 || sr.Findings[0].Line != sr.Session.FirstLine+3 {
				t.Errorf("session %d: findings %+v", sr.Session.Index, sr.Findings)
			}
		},
		Discard: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ended) != "[0 1]" || len(res.Sessions) != 0 {
		t.Errorf("ended %v, kept %d sessions; want [0 1] and none kept", ended, len(res.Sessions))
	}
}

// TestSelectValidatesTheCatalogue: every command selects its rules with Select,
// which refuses a catalogue Validate refuses (two rules with one ID here).
func TestSelectValidatesTheCatalogue(t *testing.T) {
	a, b := sample("MCP0001", "first"), sample("MCP0001", "second")
	if _, err := rule.Select([]*rule.Rule{a, b}, nil, nil); err == nil || !strings.Contains(err.Error(), "rule MCP0001: id used twice") {
		t.Errorf("err = %v", err)
	}
}

// TestConfigureSetsDeclaredOptions: Configure gives a copy of a rule that declares
// an option the value set, leaves the catalogue's rule and the rules that do not
// declare it as they are, and refuses a value of another type.
func TestConfigureSetsDeclaredOptions(t *testing.T) {
	slow := sample("MCP0001", "slow")
	slow.Options = []rule.Option{{Name: "slow", Usage: "u", Default: 30 * time.Second}}
	other := sample("MCP0002", "other")
	got, err := rule.Configure([]*rule.Rule{slow, other}, map[string]any{"slow": 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got[0] == slow || got[0].Option("slow") != 2*time.Second || slow.Option("slow") != 30*time.Second {
		t.Errorf("configured %v (copy: %v), catalogue's %v", got[0].Option("slow"), got[0] != slow, slow.Option("slow"))
	}
	if got[1] != other {
		t.Errorf("a rule without the option was copied")
	}
	if _, err := rule.Configure([]*rule.Rule{slow}, map[string]any{"slow": "2s"}); err == nil || !strings.Contains(err.Error(), "option slow is a time.Duration, not a string") {
		t.Errorf("err = %v", err)
	}
}

// A rule that declares methods (Rule.Methods) is asked about the requests and
// notifications of those methods and the responses to requests of them, of the
// kinds it observes, and about nothing else: not other methods, not a method the
// spec does not know, not a response to no known request. AllMethods asks it
// about every message of its kinds.
func TestRulesObserveTheirMethods(t *testing.T) {
	capture := `{"ts":"2025-06-18T10:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}
{"ts":"2025-06-18T10:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}
{"ts":"2025-06-18T10:00:02Z","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"ts":"2025-06-18T10:00:03Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{}}}}
{"ts":"2025-06-18T10:00:04Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":3,"method":"ping"}}
{"ts":"2025-06-18T10:00:05Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":3,"result":{}}}
{"ts":"2025-06-18T10:00:06Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}
{"ts":"2025-06-18T10:00:07Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":4,"method":"x/custom"}}
{"ts":"2025-06-18T10:00:08Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}}
{"ts":"2025-06-18T10:00:09Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":99,"result":{}}}
{"ts":"2025-06-18T10:00:10Z","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}}
`
	seen := func(opt driver.RunOptions) string {
		var lines []string
		r := sample("MCP9002", "tools-call-watch")
		r.Kinds = rule.KindsOf(frame.KindRequest, frame.KindNotification, frame.KindResult, frame.KindError)
		r.Methods = []string{"tools/call", "notifications/cancelled"}
		r.New = rule.PerMessage(func(_ *rule.Pass, m *session.Message) { lines = append(lines, fmt.Sprint(m.Line)) })
		if _, err := driver.Run("t.jsonl", strings.NewReader(capture), []*rule.Rule{r}, opt); err != nil {
			t.Fatal(err)
		}
		return strings.Join(lines, " ")
	}
	if got, want := seen(driver.RunOptions{}), "4 7 11"; got != want {
		t.Errorf("a rule of tools/call and notifications/cancelled saw lines %s, want %s", got, want)
	}
	if got, want := seen(driver.RunOptions{AllMethods: true}), "1 2 3 4 5 6 7 8 9 10 11"; got != want {
		t.Errorf("with AllMethods, the rule saw lines %s, want %s", got, want)
	}
}
