package audit_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/audit"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const fixtures = "../../fixtures/audit"

func contract(t *testing.T, text string) audit.Contract {
	t.Helper()
	c, err := audit.ReadContract("capture.jsonl", strings.NewReader(text), frame.Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func fixtureContract(t *testing.T) audit.Contract {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, "handshake.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return contract(t, string(data))
}

func scan(t *testing.T, opt audit.Options, roots ...string) *audit.Scanner {
	t.Helper()
	s := audit.NewScanner(opt)
	for _, r := range roots {
		if err := s.Scan(r); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// want is one expected finding: where, what, how.
type want struct {
	file   string // below fixtures/audit/mixed
	line   int
	method string
	via    string
}

// TestMixedTree audits the mixed-language tree against the seed's handshake:
// every undeclared emission by file, line, method and the name that sends it,
// nothing from comments, vendored code, tests or binaries, and the declaration
// nothing sends.
func TestMixedTree(t *testing.T) {
	root := filepath.Join(fixtures, "mixed")
	s := scan(t, audit.Options{}, root)
	c := fixtureContract(t)
	got := audit.Diff(c, spec.Server, s.Emissions())

	wants := []want{
		{"csharp/Tools.cs", 9, "sampling/createMessage", "SampleAsync"},
		{"go/main.go", 12, "notifications/resources/list_changed", "MethodNotificationResourcesListChanged"},
		{"go/main.go", 16, "sampling/createMessage", "CreateMessage"},
		{"java/src/main/java/app/Refresh.java", 10, "sampling/createMessage", "createMessage"},
		{"java/src/main/java/app/Refresh.java", 11, "notifications/resources/list_changed", "METHOD_NOTIFICATION_RESOURCES_LIST_CHANGED"},
		{"js/notify.js", 2, "notifications/resources/updated", "literal"},
		{"kotlin/Server.kt", 5, "notifications/resources/updated", "sendResourceUpdated"},
		{"python/server.py", 13, "notifications/resources/list_changed", "send_resource_list_changed"},
		{"python/server.py", 14, "elicitation/create", "elicit"},
		{"ts/src/cache.ts", 6, "notifications/resources/list_changed", "sendResourceListChanged"},
		{"ts/src/cache.ts", 8, "sampling/createMessage", "createMessage"},
	}
	var undeclared []audit.Finding
	var unused []audit.Finding
	for _, f := range got {
		switch f.Kind {
		case audit.KindUndeclared:
			undeclared = append(undeclared, f)
		case audit.KindUnused:
			unused = append(unused, f)
		default:
			t.Errorf("unexpected %s finding: %s", f.Kind, f.Message)
		}
	}
	if len(undeclared) != len(wants) {
		var b strings.Builder
		for _, f := range undeclared {
			fmt.Fprintf(&b, "  %s:%d %s (%s)\n", f.Emission.File, f.Emission.Line, f.Method, f.Emission.Via)
		}
		t.Fatalf("%d undeclared emissions, want %d:\n%s", len(undeclared), len(wants), b.String())
	}
	for i, w := range wants {
		f := undeclared[i]
		if f.Emission.File != filepath.Join(root, w.file) || f.Emission.Line != w.line || f.Method != w.method || f.Emission.Via != w.via {
			t.Errorf("finding %d = %s:%d %s via %s, want %s:%d %s via %s", i, f.Emission.File, f.Emission.Line, f.Method, f.Emission.Via, w.file, w.line, w.method, w.via)
		}
		if f.Severity != rule.SeverityError {
			t.Errorf("%s:%d: severity %s, want error under 2025-06-18 (capability MUST)", w.file, w.line, f.Severity)
		}
		if f.CaptureLine == 0 || !strings.Contains(f.Message, "capture") && !strings.Contains(f.Message, "line") {
			t.Errorf("%s:%d: the finding does not point at the declaring frame: %+v", w.file, w.line, f)
		}
	}
	// The messages say what was declared instead.
	for _, f := range undeclared {
		var wantText string
		switch f.Method {
		case "notifications/resources/list_changed":
			wantText = "gated on server.resources.listChanged, but the server declared resources without listChanged (initialize result (line 2))"
		case "notifications/resources/updated":
			wantText = "gated on server.resources.subscribe, but the server declared resources without subscribe (initialize result (line 2))"
		case "sampling/createMessage":
			wantText = "gated on client.sampling, but the client declared no sampling (initialize request (line 1))"
		case "elicitation/create":
			wantText = "gated on client.elicitation, but the client declared no elicitation (initialize request (line 1))"
		}
		if !strings.Contains(f.Message, wantText) {
			t.Errorf("%s:%d message %q, want it to say %q", f.Emission.File, f.Emission.Line, f.Message, wantText)
		}
	}
	if len(unused) != 1 || unused[0].Gate != "server.prompts.listChanged" || unused[0].CaptureLine != 2 || unused[0].Severity != rule.SeverityWarning ||
		!strings.Contains(unused[0].Message, "notifications/prompts/list_changed") {
		t.Errorf("declared-not-emitted findings = %+v, want server.prompts.listChanged at capture line 2", unused)
	}

	st := s.Stats()
	if st.Binary != 1 || st.Tests != 2 || st.Dirs != 2 {
		t.Errorf("skipped %d binary files, %d test files, %d directories; want 1, 2 (cache.test.ts, main_test.go), 2 (node_modules, test)", st.Binary, st.Tests, st.Dirs)
	}
	for _, lang := range []string{"TypeScript", "JavaScript", "Python", "Go", "C#", "Java", "Kotlin"} {
		if st.Languages[lang] == 0 {
			t.Errorf("no %s file read: %v", lang, st.Languages)
		}
	}
	// The declared, sent messages are emissions too, and no finding.
	sent := map[string]bool{}
	for _, e := range s.Emissions() {
		sent[fmt.Sprintf("%s:%d %s", strings.TrimPrefix(e.File, root+"/"), e.Line, e.Method)] = true
	}
	for _, key := range []string{"go/main.go:13 roots/list", "csharp/Tools.cs:8 notifications/tools/list_changed", "kotlin/Server.kt:4 notifications/tools/list_changed", "ts/src/cache.ts:7 notifications/message", "python/server.py:15 notifications/message"} {
		if !sent[key] {
			t.Errorf("emission %s not found", key)
		}
	}
	for key := range sent {
		if strings.Contains(key, "cache.ts:4") || strings.Contains(key, "server.py:12") || strings.Contains(key, "Refresh.java:8") || strings.Contains(key, "Refresh.java:9") {
			t.Errorf("a comment was read as an emission: %s", key)
		}
	}
}

// TestTestsIncluded: with Options.Tests the test file and directory count.
func TestTestsIncluded(t *testing.T) {
	s := scan(t, audit.Options{Tests: true}, filepath.Join(fixtures, "mixed", "ts"))
	var elicit int
	for _, e := range s.Emissions() {
		if e.Method == "elicitation/create" {
			elicit++
		}
	}
	if elicit != 2 {
		t.Errorf("%d elicitation/create emissions with tests included, want 2 (test/cache.ts, src/cache.test.ts): %+v", elicit, s.Emissions())
	}
}

// TestDeclaredAndSent: a server that declares what it sends has no finding;
// the client's unused offer is info.
func TestDeclaredAndSent(t *testing.T) {
	c := contract(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"resources":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}
`)
	dir := t.TempDir()
	src := "server.sendResourceListChanged();\n"
	if err := os.WriteFile(filepath.Join(dir, "a.ts"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := audit.Diff(c, spec.Server, scan(t, audit.Options{}, dir).Emissions())
	if len(got) != 1 || got[0].Kind != audit.KindUnused || got[0].Gate != "client.sampling" || got[0].Severity != rule.SeverityInfo || got[0].CaptureLine != 1 {
		t.Errorf("findings = %+v, want only the client's unused sampling offer (info, line 1)", got)
	}
}

// TestRevisionScaling: under 2025-03-26 capability rules are SHOULD (warning),
// and a method the revision lacks is reported as such.
func TestRevisionScaling(t *testing.T) {
	c := contract(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{"resources":{}},"serverInfo":{"name":"s","version":"1"}}}
`)
	dir := t.TempDir()
	src := "async def f(session):\n    await session.send_resource_list_changed()\n    await session.elicit(message='x')\n"
	if err := os.WriteFile(filepath.Join(dir, "s.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := audit.Diff(c, spec.Server, scan(t, audit.Options{}, dir).Emissions())
	if len(got) != 2 {
		t.Fatalf("findings = %+v, want two", got)
	}
	if got[0].Kind != audit.KindUndeclared || got[0].Severity != rule.SeverityWarning || got[0].Emission.Line != 2 {
		t.Errorf("first finding = %+v, want an undeclared list_changed warning at line 2", got[0])
	}
	if got[1].Kind != audit.KindNotInRevision || got[1].Method != "elicitation/create" || got[1].Emission.Line != 3 || !strings.Contains(got[1].Message, "2025-03-26 does not have") {
		t.Errorf("second finding = %+v, want elicitation/create not in 2025-03-26 at line 3", got[1])
	}
}

// TestClientSide audits a client: its requests are gated on the server's capabilities.
func TestClientSide(t *testing.T) {
	c := fixtureContract(t)
	dir := t.TempDir()
	src := "const r = await client.callTool({ name: 'x' });\nawait client.subscribeResource({ uri: 'u' });\nawait client.complete({});\n"
	if err := os.WriteFile(filepath.Join(dir, "c.ts"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := audit.Diff(c, spec.Client, scan(t, audit.Options{}, dir).Emissions())
	var undeclared []string
	for _, f := range got {
		if f.Kind == audit.KindUndeclared {
			undeclared = append(undeclared, fmt.Sprintf("%d %s", f.Emission.Line, f.Method))
		}
	}
	if strings.Join(undeclared, "; ") != "2 resources/subscribe" {
		t.Errorf("undeclared client emissions = %q, want only resources/subscribe at line 2", undeclared)
	}
}

// TestHelperTable: every helper sends a method of the spec's table.
func TestHelperTable(t *testing.T) {
	for _, h := range audit.HelperMethods() {
		if !spec.KnownMethod(h.Method) {
			t.Errorf("helper %s sends %q, which pkg/spec does not know", h.Name, h.Method)
		}
		if !spec.GatedAnywhere(h.Method) {
			t.Errorf("helper %s sends %q, which no capability gates: it does not belong in the table", h.Name, h.Method)
		}
	}
}

// TestReports: text and JSON name each finding's place; the JSON is well formed.
func TestReports(t *testing.T) {
	root := filepath.Join(fixtures, "mixed")
	s := scan(t, audit.Options{}, root)
	c := fixtureContract(t)
	r := &audit.Result{Side: spec.Server, Contract: c, Sources: []string{root}, Stats: s.Stats(), Emissions: s.Emissions()}
	r.Findings = audit.Diff(c, spec.Server, r.Emissions)
	var text bytes.Buffer
	if err := audit.WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"sent without a declaration:\n  error " + filepath.Join(root, "csharp/Tools.cs") + ":9 (SampleAsync): server sends sampling/createMessage, gated on client.sampling",
		"declared, never sent:\n  warning capture.jsonl:2: the server declared prompts.listChanged",
		"12 findings: 11 errors, 1 warning, 0 info",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := audit.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []struct {
			Kind     string `json:"kind"`
			Severity string `json:"severity"`
			Method   string `json:"method"`
			Emission *struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"emission"`
		} `json:"findings"`
		Summary struct {
			Findings map[string]int `json:"findings"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatalf("JSON report: %v\n%s", err, js.String())
	}
	if len(doc.Findings) != 12 || doc.Summary.Findings["error"] != 11 || doc.Findings[0].Emission == nil || doc.Findings[0].Emission.Line != 9 || doc.Findings[0].Severity != "error" {
		t.Errorf("JSON report: %d findings, summary %v, first %+v", len(doc.Findings), doc.Summary.Findings, doc.Findings[0])
	}
}

// TestJSONEscapesCapturedNames: the JSON report writes the peers' names with
// their C1, bidi, zero-width and tag characters escaped, as every report of the
// check does (issue 29: they were written raw), and the names read back the same.
func TestJSONEscapesCapturedNames(t *testing.T) {
	c := fixtureContract(t)
	hostile := "srv\u0085\u202egnp.exe\u200b\U000E0041"
	c.Server.Name = hostile
	r := &audit.Result{Side: spec.Server, Contract: c, Sources: []string{"src"}}
	var js bytes.Buffer
	if err := audit.WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\u0085", "\u202e", "\u200b", "\U000E0041"} {
		if strings.Contains(js.String(), raw) {
			t.Errorf("the JSON report holds %+q raw", raw)
		}
	}
	var doc struct {
		Capture struct {
			Server struct {
				Name string `json:"name"`
			} `json:"server"`
		} `json:"capture"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Capture.Server.Name != hostile {
		t.Errorf("the server's name reads back as %+q, want %+q", doc.Capture.Server.Name, hostile)
	}
}

// TestGeneratedCodeBounded (issue 29: a 24 MB generated bundle took 984 MiB and
// 30 s): a file lists at most MaxSitesPerMethod places of a method and counts
// the rest; a file with a line longer than 64 KiB is minified or generated code,
// left unread and said, and nothing found in it is kept.
func TestGeneratedCodeBounded(t *testing.T) {
	dir := t.TempDir()
	var many strings.Builder
	for i := 0; i < 100; i++ {
		many.WriteString("await server.createMessage(request)\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "gen.ts"), []byte(many.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	minified := "server.sendResourceListChanged();\nvar x = \"" + strings.Repeat("a", 70_000) + "\";\n"
	if err := os.WriteFile(filepath.Join(dir, "bundle.js"), []byte(minified), 0o644); err != nil {
		t.Fatal(err)
	}
	s := scan(t, audit.Options{}, dir)
	var lines []int
	for _, e := range s.Emissions() {
		if e.File != filepath.Join(dir, "gen.ts") || e.Method != "sampling/createMessage" {
			t.Errorf("emission %+v", e)
		}
		lines = append(lines, e.Line)
	}
	if len(lines) != audit.MaxSitesPerMethod || lines[0] != 1 || lines[len(lines)-1] != audit.MaxSitesPerMethod {
		t.Errorf("listed lines %v, want 1 to %d", lines, audit.MaxSitesPerMethod)
	}
	st := s.Stats()
	if st.NotListed != 100-audit.MaxSitesPerMethod || st.Files != 1 {
		t.Errorf("not listed %d, files %d; want %d and 1", st.NotListed, st.Files, 100-audit.MaxSitesPerMethod)
	}
	if want := filepath.Join(dir, "bundle.js") + ":2: a line longer than 64 KiB: minified or generated code, not read"; len(st.Unread) != 1 || st.Unread[0] != want {
		t.Errorf("unread %q, want %q", st.Unread, want)
	}
}
