// Package ruletest checks rules against fixtures: captures under fixtures/ with a
// .want sidecar each (DESIGN.md section 8), as golang.org/x/tools'
// go/analysis/analysistest checks analyzers against // want comments.
//
// A fixture is a capture NAME.EXT beside NAME.want. Run analyses the capture with
// the catalogue it is given and holds the findings to the .want:
//
//   - an expectation that no finding meets fails, unless it is optional ('?');
//   - an error- or warning-level finding that no expectation meets fails; info-level
//     findings are free unless listed (Config.Strict holds chosen rules to the .want
//     at every severity); so a .want without expectation lines means "no error or
//     warning at all";
//   - a silent twin, a capture named MCPnnnn-silent*, fails on any finding of
//     MCPnnnn, info ones too (otherwise an info rule's twin would prove nothing);
//   - with Config.Forms, each envelope capture is also rewritten into other input
//     formats (bare JSON-RPC, a Go SDK log), which must give the same error and
//     warning findings (line, rule, severity).
//
// The catalogue is a parameter, so pkg/rules' own tests can use this package.
package ruletest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Config says how Run checks fixtures.
type Config struct {
	// Catalogue is the rules run over every capture.
	Catalogue []*rule.Rule
	// Options are passed to rule.Run.
	Options driver.RunOptions
	// Strict lists rule IDs whose findings must all be expected, info-level ones
	// too, and are compared at every severity across forms.
	Strict []string
	// Forms are the other encodings every envelope capture is rewritten into.
	Forms []Form
}

// A Result is what Run did with one fixture.
type Result struct {
	Want         string // the .want file
	Capture      string // the capture beside it
	Expectations []Expectation
	// Input is the analysis of the capture; nil when the fixture was skipped.
	Input *driver.InputResult
	// Findings are the findings of all the capture's sessions, in order.
	Findings []rule.Finding
}

// Run checks every fixture matched by patterns, each in a subtest named after its
// .want file. A pattern is a glob of .want files (fixtures/schema/*.want) or a
// directory followed by /... for every .want file below it. A pattern that matches
// nothing is fatal. A fixture that requires a rule the catalogue lacks is skipped.
func (c Config) Run(t *testing.T, patterns ...string) []*Result {
	t.Helper()
	var results []*Result
	for _, pattern := range patterns {
		root, wants := find(t, pattern)
		for _, want := range wants {
			name, err := filepath.Rel(root, want)
			if err != nil {
				name = want
			}
			res := &Result{Want: want}
			results = append(results, res)
			t.Run(strings.TrimSuffix(name, ".want"), func(t *testing.T) {
				c.check(t, res)
			})
		}
	}
	return results
}

// find lists the .want files a pattern matches, and the directory names are
// relative to.
func find(t *testing.T, pattern string) (string, []string) {
	t.Helper()
	var wants []string
	root, recursive := strings.CutSuffix(pattern, "/...")
	if recursive {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(path, ".want") {
				wants = append(wants, path)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	} else {
		var err error
		if wants, err = filepath.Glob(pattern); err != nil {
			t.Fatalf("%s: %v", pattern, err)
		}
		root = filepath.Dir(pattern)
	}
	if len(wants) == 0 {
		t.Fatalf("no .want files match %s", pattern)
	}
	return root, wants
}

func (c Config) check(t *testing.T, res *Result) {
	t.Helper()
	exps, err := ParseWant(res.Want)
	if err != nil {
		t.Fatal(err)
	}
	res.Expectations = exps
	res.Capture = captureFor(t, res.Want)
	if why := c.unsupported(exps); why != "" {
		t.Skip(why)
	}
	data, err := os.ReadFile(res.Capture)
	if err != nil {
		t.Fatal(err)
	}
	res.Input = c.analyse(t, res.Capture, data)
	res.Findings = findings(res.Input)
	for _, p := range Check(exps, res.Findings, c.Strict...) {
		t.Error(p)
	}
	if id := silentRule(res.Capture); id != "" {
		for _, f := range res.Findings {
			if f.Rule == id {
				t.Errorf("silent twin of %s reports it: %s %s: %s", id, where(f), f.Severity, f.Message)
			}
		}
	}
	if t.Failed() {
		for _, f := range res.Findings {
			t.Logf("reported: %d %s %s %s (%s)", WantLine(f), f.Rule, f.Severity, f.Message, where(f))
		}
	}
	for _, form := range c.Forms {
		rewritten, ok := form.Rewrite(data)
		if !ok {
			continue
		}
		t.Run(form.Name, func(t *testing.T) {
			want := c.verdicts(form, res.Findings)
			got := c.verdicts(form, findings(c.analyse(t, res.Capture, rewritten)))
			if !slices.Equal(want, got) {
				t.Errorf("%s: envelope findings:\n  %s\n%s findings:\n  %s", res.Capture, strings.Join(want, "\n  "), form.Name, strings.Join(got, "\n  "))
			}
		})
	}
}

// unsupported says why a fixture cannot be checked with this catalogue, or "".
func (c Config) unsupported(exps []Expectation) string {
	for _, e := range exps {
		if !e.Optional && !slices.ContainsFunc(c.Catalogue, func(r *rule.Rule) bool { return r.ID == e.Rule }) {
			return e.Pos + ": expects " + e.Rule + ", which is not in the catalogue"
		}
	}
	return ""
}

func (c Config) analyse(t *testing.T, name string, data []byte) *driver.InputResult {
	t.Helper()
	res, err := driver.Run(name, bytes.NewReader(data), c.Catalogue, c.Options)
	if err != nil {
		t.Fatal(err)
	}
	if res.Broken != nil {
		t.Fatalf("%s: reading broke off: %v", name, res.Broken)
	}
	return res
}

// verdicts lists the findings a form must keep as "line rule severity": those at
// warning level or above, and those of the strict rules, less the form's Unjudged.
func (c Config) verdicts(form Form, fs []rule.Finding) []string {
	var out []string
	for _, f := range fs {
		if (f.Severity >= rule.SeverityWarning || slices.Contains(c.Strict, f.Rule)) && !slices.Contains(form.Unjudged, f.Rule) {
			out = append(out, strconv.Itoa(WantLine(f))+" "+f.Rule+" "+f.Severity.String())
		}
	}
	return out
}

func findings(res *driver.InputResult) []rule.Finding {
	var all []rule.Finding
	for _, s := range res.Sessions {
		all = append(all, s.Findings...)
	}
	return all
}

// captureFor finds the capture beside a .want file: the same base name, any other
// extension.
func captureFor(t *testing.T, want string) string {
	t.Helper()
	matches, _ := filepath.Glob(globEscape(strings.TrimSuffix(want, ".want")) + ".*")
	for _, m := range matches {
		if m != want {
			return m
		}
	}
	t.Fatalf("%s: no capture beside it", want)
	return ""
}

// globEscape quotes the glob metacharacters of a path.
func globEscape(path string) string {
	var b strings.Builder
	for _, r := range path {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

var silentName = regexp.MustCompile(`^(MCP\d{4})-silent`)

// silentRule is the rule a silent twin (MCPnnnn-silent*) must not report, or "".
func silentRule(capture string) string {
	if m := silentName.FindStringSubmatch(filepath.Base(capture)); m != nil {
		return m[1]
	}
	return ""
}

// Check matches findings against expectations and describes each mismatch: an
// expectation that is not optional and that no finding meets (with its file:line),
// and a finding that no expectation meets, if it is at warning level or above or
// belongs to one of the strict rules. Each expectation takes the first finding it
// matches (line, rule and message) that no earlier expectation took.
func Check(exps []Expectation, fs []rule.Finding, strict ...string) []string {
	var problems []string
	used := make([]bool, len(fs))
	for _, e := range exps {
		found := false
		for i, f := range fs {
			if !used[i] && WantLine(f) == e.Line && f.Rule == e.Rule && e.Message.MatchString(f.Message) {
				used[i], found = true, true
				break
			}
		}
		if !found && !e.Optional {
			problems = append(problems, fmt.Sprintf("%s: expected %s, not reported", e.Pos, e))
		}
	}
	for i, f := range fs {
		if !used[i] && (f.Severity >= rule.SeverityWarning || slices.Contains(strict, f.Rule)) {
			problems = append(problems, fmt.Sprintf("unexpected %s %s %s at %s: %s", f.Severity, f.Rule, f.Name, where(f), f.Message))
		}
	}
	return problems
}

// WantLine is the LINE a .want file gives a finding: the 1-based line of its frame,
// or for document formats (HAR, Inspector exports, pretty-printed JSON documents)
// the 1-based entry that carried it (DESIGN.md section 8), which the finding holds
// beside its line of the file.
func WantLine(f rule.Finding) int {
	if f.Entry > 0 {
		return f.Entry
	}
	return f.Line
}

// where names a finding's place for a message: "line 7", "entry 5 (line 516)".
func where(f rule.Finding) string {
	if f.Entry > 0 {
		return fmt.Sprintf("entry %d (line %d)", f.Entry, f.Line)
	}
	return fmt.Sprintf("line %d", f.Line)
}

var fixtureName = regexp.MustCompile(`^(MCP\d{4})-(fires|silent)`)

// Coverage fails for every rule of catalogue that lacks, among the fixtures matched
// by patterns, a firing fixture (MCPnnnn-fires*.want with an expectation of MCPnnnn
// that is not optional) or a silent twin (MCPnnnn-silent*.want).
func Coverage(t *testing.T, catalogue []*rule.Rule, patterns ...string) {
	t.Helper()
	fires, silent := map[string]bool{}, map[string]bool{}
	for _, pattern := range patterns {
		_, wants := find(t, pattern)
		for _, want := range wants {
			m := fixtureName.FindStringSubmatch(filepath.Base(want))
			if m == nil {
				continue
			}
			if m[2] == "silent" {
				silent[m[1]] = true
				continue
			}
			exps, err := ParseWant(want)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(exps, func(e Expectation) bool { return e.Rule == m[1] && !e.Optional }) {
				fires[m[1]] = true
			}
		}
	}
	for _, r := range catalogue {
		if !fires[r.ID] {
			t.Errorf("%s %s has no firing fixture: %s-fires*.want expecting %s", r.ID, r.Name, r.ID, r.ID)
		}
		if !silent[r.ID] {
			t.Errorf("%s %s has no silent twin: %s-silent*.want", r.ID, r.Name, r.ID)
		}
	}
}

// Captures lists every capture below root (JSONL, logs, JSON documents, HAR), in a
// stable order: the inputs of tests that run the whole fixture tree.
func Captures(t testing.TB, root string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch filepath.Ext(path) {
		case ".jsonl", ".log", ".json", ".har":
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
