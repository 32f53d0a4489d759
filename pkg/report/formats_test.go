package report_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/report"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// catalogueReport analyses a capture with the whole catalogue and what the Markdown
// format requires, as check --format markdown does.
func catalogueReport(t *testing.T, path string) *report.Report {
	t.Helper()
	all := rules.All()
	res, tr := analyseFile(t, path, all, trace.Options{Needs: report.MarkdownRequires})
	return report.BuildWith("test", []*driver.InputResult{res}, report.Options{Rules: all, Trace: tr})
}

// reportCaptures are the inputs the format tests render: the golden input, the
// captures seeded with control characters and secrets, and every fixture capture.
func reportCaptures(t *testing.T) []string {
	t.Helper()
	paths := []string{"testdata/golden/session.jsonl", "testdata/golden/empty.jsonl", "testdata/captures/hostile.jsonl", "testdata/captures/secrets.jsonl"}
	for _, glob := range []string{"../../fixtures/seeds/*.jsonl", "../../fixtures/real/*.jsonl", "../../fixtures/rules/*.jsonl"} {
		found, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, found...)
	}
	return paths
}

// mermaidBlocks extracts the ```mermaid blocks of a Markdown text.
func mermaidBlocks(md string) []string {
	var out []string
	var cur []string
	fence := ""
	sc := bufio.NewScanner(strings.NewReader(md))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case fence == "" && strings.HasPrefix(line, "```") && strings.TrimLeft(line, "`") == "mermaid":
			fence, cur = strings.TrimSuffix(line, "mermaid"), nil
		case fence != "" && line == fence:
			out = append(out, strings.Join(cur, "\n"))
			fence = ""
		case fence != "":
			cur = append(cur, line)
		}
	}
	return out
}

var (
	mermaidInstall    sync.Once
	mermaidInstallErr error
)

// installMermaid installs the pinned mermaid package (package-lock.json) with npm ci.
func installMermaid() error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return err
	}
	out, err := exec.Command(npm, "ci", "--prefix", "testdata/mermaid", "--no-audit", "--no-fund").CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm ci: %v: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// parseMermaid runs the real Mermaid parser (the mermaid npm package, in Node)
// over diagrams; it returns the parser's complaint, or "" when all parse.
func parseMermaid(t *testing.T, diagrams []string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the Mermaid diagrams were not checked by the Mermaid parser (install Node.js, then npm ci --prefix pkg/report/testdata/mermaid)")
	}
	if _, err := os.Stat("testdata/mermaid/node_modules/mermaid/package.json"); err != nil {
		// The test sets the parser up itself on a fresh checkout (.ci/run installs it
		// beforehand, so there an install failure fails CI instead).
		mermaidInstall.Do(func() { mermaidInstallErr = installMermaid() })
		if mermaidInstallErr != nil {
			t.Skipf("the mermaid npm package could not be installed (%v): the diagrams were not parsed; run npm ci --prefix pkg/report/testdata/mermaid", mermaidInstallErr)
		}
	}
	cmd := exec.Command(node, "testdata/mermaid/parse.mjs")
	cmd.Stdin = strings.NewReader(strings.Join(diagrams, "\n%%--\n"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return out.String()
	case err != nil:
		t.Fatalf("running the Mermaid parser: %v\n%s", err, out.String())
	}
	if !strings.HasPrefix(out.String(), "ok ") {
		t.Fatalf("the Mermaid parser said %q", out.String())
	}
	return ""
}

// TestMermaidParses renders the Markdown report of every capture and parses each
// sequence diagram with Mermaid's own parser: a diagram it rejects fails the test.
func TestMermaidParses(t *testing.T) {
	var diagrams []string
	for _, path := range reportCaptures(t) {
		rep := catalogueReport(t, path)
		var b bytes.Buffer
		if err := report.WriteMarkdown(&b, rep); err != nil {
			t.Fatal(err)
		}
		blocks := mermaidBlocks(b.String())
		if len(blocks) != len(rep.Sessions) {
			t.Fatalf("%s: %d diagrams for %d sessions", path, len(blocks), len(rep.Sessions))
		}
		diagrams = append(diagrams, blocks...)
	}
	if complaint := parseMermaid(t, diagrams); complaint != "" {
		n := 0
		if _, err := fmt.Sscanf(complaint, "diagram %d:", &n); err == nil && n >= 1 && n <= len(diagrams) {
			t.Fatalf("Mermaid rejected a diagram: %s\n%s", complaint, diagrams[n-1])
		}
		t.Fatalf("Mermaid rejected a diagram: %s", complaint)
	}
	// The check can fail: a broken diagram is rejected.
	if complaint := parseMermaid(t, []string{"sequenceDiagram\n    C->>S initialize (line 1)\n    Note over: x"}); complaint == "" {
		t.Fatal("the Mermaid parser accepted a broken diagram: the check proves nothing")
	}
}

// TestSARIFSchema validates the SARIF of every capture, and of the empty report,
// against the SARIF 2.1.0 JSON schema (testdata/sarif, see its README).
func TestSARIFSchema(t *testing.T) {
	f, err := os.Open("testdata/sarif/sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	schema, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	validate := func(what string, out []byte) {
		t.Helper()
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("%s: the SARIF is not JSON: %v", what, err)
		}
		if err := schema.Validate(inst); err != nil {
			t.Fatalf("%s: the SARIF does not validate against the 2.1.0 schema: %v", what, err)
		}
	}
	for _, path := range append(reportCaptures(t), "-") {
		rep := report.BuildWith("test", nil, report.Options{Rules: rules.All()})
		if path != "-" {
			rep = catalogueReport(t, path)
		}
		var b bytes.Buffer
		if err := report.WriteSARIF(&b, rep); err != nil {
			t.Fatal(err)
		}
		validate(path, b.Bytes())
	}
	// Inputs not read or judged are notifications of the invocation, valid too.
	withErrors := catalogueReport(t, "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl")
	withErrors.Errors = []report.InputError{
		{Input: "missing.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: no such file or directory"},
		{Input: "/abs/dir", Kind: report.ErrorNoCaptures, Message: "no captures found"},
		{Input: "-", Kind: report.ErrorEmpty, Message: "cannot judge: this log holds no frames: the input is empty"},
		{Input: "pipe.jsonl", Kind: report.ErrorSkipped, Message: "skipped: a named pipe (FIFO)"},
	}
	var eb bytes.Buffer
	if err := report.WriteSARIF(&eb, withErrors); err != nil {
		t.Fatal(err)
	}
	validate("a report with errors", eb.Bytes())
	if !strings.Contains(eb.String(), `"executionSuccessful": false`) {
		t.Errorf("a run with unread inputs is successful:\n%s", eb.String())
	}

	// With a root and a category (code scanning's form): valid, the inputs
	// under the root relative to it with its uriBaseId, the others absolute.
	rooted := catalogueReport(t, "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl")
	rooted.Errors = []report.InputError{{Input: "/elsewhere/missing.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: no such file or directory"}}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var rb bytes.Buffer
	if err := report.WriteSARIFWith(&rb, rooted, report.SARIFOptions{Root: root, Category: "mcpsleuth"}); err != nil {
		t.Fatal(err)
	}
	validate("a rooted report", rb.Bytes())
	for _, want := range []string{
		`"id": "mcpsleuth/"`,
		`"SRCROOT": {` + "\n" + `          "uri": "file://` + filepath.ToSlash(root) + `/"`,
		`"uri": "fixtures/seeds/invoices-undeclared-list-changed.jsonl",` + "\n" + `            "uriBaseId": "SRCROOT",`,
		`"uri": "file:///elsewhere/missing.jsonl"`,
	} {
		if !strings.Contains(rb.String(), want) {
			t.Errorf("the rooted SARIF lacks %q:\n%s", want, rb.String())
		}
	}

	// The validation can fail: a result without a message is rejected.
	var b bytes.Buffer
	if err := report.WriteSARIF(&b, catalogueReport(t, "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl")); err != nil {
		t.Fatal(err)
	}
	broken := strings.Replace(b.String(), `"message": {`, `"mess": {`, 1)
	inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(broken))
	if schema.Validate(inst) == nil {
		t.Fatal("the schema accepted a result without a message: the validation proves nothing")
	}
}

// TestSARIFContent: one result per finding at its input and line, the declaring
// frame as a related location, rules from the metadata.
func TestSARIFContent(t *testing.T) {
	const capture = "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl"
	var b bytes.Buffer
	if err := report.WriteSARIF(&b, catalogueReport(t, capture)); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
						Help             struct{ Text, Markdown string }
						HelpURI          string `json:"helpUri"`
					}
				}
			}
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
				RelatedLocations []struct {
					PhysicalLocation struct{ Region struct{ StartLine int } }
					Message          struct{ Text string }
				}
			}
		}
	}
	if err := json.Unmarshal(b.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Tool.Driver.Rules) != len(rules.All()) {
		t.Errorf("%d rules in the driver, want the %d that ran", len(run.Tool.Driver.Rules), len(rules.All()))
	}
	var mcp2001 []int
	for i, res := range run.Results {
		if res.RuleID == "MCP2001" {
			mcp2001 = append(mcp2001, i)
		}
	}
	if len(mcp2001) != 2 {
		t.Fatalf("%d MCP2001 results, want 2", len(mcp2001))
	}
	for i, line := range []int{8, 11} {
		res := run.Results[mcp2001[i]]
		if res.RuleID != "MCP2001" || res.Level != "error" || res.Locations[0].PhysicalLocation.Region.StartLine != line ||
			res.Locations[0].PhysicalLocation.ArtifactLocation.URI != "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl" {
			t.Errorf("result %d = %+v", i, res)
		}
		if !strings.Contains(res.Message.Text, "declared resources: {} (no listChanged)") {
			t.Errorf("result %d message = %q", i, res.Message.Text)
		}
		if len(res.RelatedLocations) != 1 || res.RelatedLocations[0].PhysicalLocation.Region.StartLine != 2 || !strings.Contains(res.RelatedLocations[0].Message.Text, "initialize result") {
			t.Errorf("result %d related = %+v", i, res.RelatedLocations)
		}
		ru := run.Tool.Driver.Rules[res.RuleIndex]
		if ru.ID != "MCP2001" || ru.ShortDescription.Text == "" || ru.Help.Text == "" || !strings.HasPrefix(ru.HelpURI, "https://modelcontextprotocol.io/specification/") {
			t.Errorf("rule of result %d = %+v", i, ru)
		}
	}
}

// TestJUnitXML: the JUnit of every capture parses as XML; a suite per session, a
// case per rule that ran, failures only for findings at or above --fail-on.
func TestJUnitXML(t *testing.T) {
	type junitCase struct {
		Name    string `xml:"name,attr"`
		Failure *struct {
			Type string `xml:"type,attr"`
			Text string `xml:",chardata"`
		} `xml:"failure"`
		SystemOut string `xml:"system-out"`
	}
	type junitDoc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name     string      `xml:"name,attr"`
			Failures int         `xml:"failures,attr"`
			Cases    []junitCase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	parse := func(what string, out []byte) junitDoc {
		t.Helper()
		dec := xml.NewDecoder(bytes.NewReader(out))
		for {
			if _, err := dec.Token(); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				t.Fatalf("%s: not well-formed XML: %v\n%s", what, err, out)
			}
		}
		var doc junitDoc
		if err := xml.Unmarshal(out, &doc); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return doc
	}
	for _, path := range reportCaptures(t) {
		var b bytes.Buffer
		rep := catalogueReport(t, path)
		if err := report.WriteJUnit(&b, rep, report.JUnitOptions{FailOn: rule.SeverityError}); err != nil {
			t.Fatal(err)
		}
		doc := parse(path, b.Bytes())
		if len(doc.Suites) != len(rep.Sessions) || (len(doc.Suites) > 0 && len(doc.Suites[0].Cases) != len(rules.All())) {
			t.Errorf("%s: %d suites for %d sessions", path, len(doc.Suites), len(rep.Sessions))
		}
	}
	// An input not read or judged is a test case in error, one not read on
	// purpose a skipped one; the captured name is escaped, the XML well-formed.
	withErrors := report.BuildWith("test", nil, report.Options{Rules: rules.All()})
	withErrors.Errors = []report.InputError{
		{Input: "missing\x1b]0;t\x07.jsonl", Kind: report.ErrorUnreadable, Message: "cannot read: no such file or directory"},
		{Input: "pipe.jsonl", Kind: report.ErrorSkipped, Message: "skipped: a named pipe (FIFO)"},
	}
	var eb bytes.Buffer
	if err := report.WriteJUnit(&eb, withErrors, report.JUnitOptions{FailOn: rule.SeverityError}); err != nil {
		t.Fatal(err)
	}
	if doc := parse("a report with errors", eb.Bytes()); len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 2 || doc.Tests != 2 {
		t.Errorf("a report with 2 errors: %+v", doc)
	}
	for _, want := range []string{`errors="1"`, `skipped="1"`, `<error message="cannot read: no such file or directory" type="unreadable">`, `name="missing\x1b]0;t\x07.jsonl"`, `<skipped message="skipped: a named pipe (FIFO)">`} {
		if !strings.Contains(eb.String(), want) {
			t.Errorf("the JUnit of a report with errors lacks %s:\n%s", want, eb.String())
		}
	}

	const capture = "../../fixtures/real/ts-everything-killed-midcall.jsonl" // an MCP3001 warning
	for _, c := range []struct {
		failOn rule.Severity
		fails  bool
	}{{rule.SeverityError, false}, {rule.SeverityWarning, true}, {rule.SeverityInfo, true}, {0, false}} {
		var b bytes.Buffer
		if err := report.WriteJUnit(&b, catalogueReport(t, capture), report.JUnitOptions{FailOn: c.failOn}); err != nil {
			t.Fatal(err)
		}
		doc := parse(capture, b.Bytes())
		failures := 0
		for _, tc := range doc.Suites[0].Cases {
			if tc.Failure != nil {
				failures++
			}
			if !strings.HasPrefix(tc.Name, "MCP3001 ") {
				continue
			}
			text := tc.SystemOut
			if tc.Failure != nil {
				text = tc.Failure.Text
			}
			if (tc.Failure != nil) != c.fails || !strings.Contains(text, "line 5: warning: tools/call id=1 sent by the client was never answered") {
				t.Errorf("--fail-on %v: MCP3001 case = %+v", c.failOn, tc)
			}
		}
		if doc.Failures != failures || doc.Suites[0].Failures != failures {
			t.Errorf("--fail-on %v: the counts say %d failures, the cases %d", c.failOn, doc.Failures, failures)
		}
	}
}
