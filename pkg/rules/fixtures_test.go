package rules_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// expectation is one line of a .want file: LINE RULE "regexp", optional with '?'.
type expectation struct {
	optional bool
	line     int
	rule     string
	re       *regexp.Regexp
	source   string // file:line of the expectation
}

var wantLine = regexp.MustCompile(`^(\?)?\s*(\d+)\s+(MCP\d{4})\s+"(.*)"\s*$`)

func readWant(t *testing.T, path string) []expectation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectation
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		m := wantLine.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s:%d: malformed expectation %q", path, n, text)
		}
		line, _ := strconv.Atoi(m[2])
		re, err := regexp.Compile(m[4])
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, expectation{optional: m[1] == "?", line: line, rule: m[3], re: re, source: fmt.Sprintf("%s:%d", path, n)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// captureFor finds the capture beside a .want file (same base name, any other extension).
func captureFor(t *testing.T, want string) string {
	t.Helper()
	base := strings.TrimSuffix(want, ".want")
	matches, _ := filepath.Glob(base + ".*")
	for _, m := range matches {
		if m != want {
			return m
		}
	}
	t.Fatalf("%s: no capture beside it", want)
	return ""
}

// unsupported says why a fixture cannot be checked yet, or "".
func unsupported(capture string, wants []expectation, catalogue map[string]bool) string {
	for _, w := range wants {
		if !w.optional && !catalogue[w.rule] {
			return "expects " + w.rule + ", which is not in the catalogue yet"
		}
	}
	return ""
}

// TestFixtures runs every fixture under fixtures/ and compares the findings with its
// .want (DESIGN.md section 8): every expectation must be met, and every error- or
// warning-level finding must be expected.
func TestFixtures(t *testing.T) {
	var wants []string
	err := filepath.WalkDir("../../fixtures", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".want") {
			wants = append(wants, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(wants) < 40 {
		t.Fatalf("found only %d .want files under fixtures/", len(wants))
	}
	catalogue := map[string]bool{}
	for _, r := range rules.All() {
		catalogue[r.ID] = true
	}
	for _, want := range wants {
		name, _ := filepath.Rel("../../fixtures", want)
		t.Run(name, func(t *testing.T) {
			exps := readWant(t, want)
			capture := captureFor(t, want)
			if why := unsupported(capture, exps, catalogue); why != "" {
				t.Skip(why)
			}
			findings := analyse(t, capture)
			checkFindings(t, exps, findings)
			checkSilentTwin(t, capture, findings)
		})
	}
}

func analyse(t *testing.T, capture string) []rule.Finding {
	t.Helper()
	f, err := os.Open(capture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := rule.Run(capture, f, rules.All(), rule.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Broken != nil {
		t.Fatalf("reading broke off: %v", res.Broken)
	}
	var all []rule.Finding
	for _, s := range res.Sessions {
		all = append(all, s.Findings...)
	}
	return all
}

func checkFindings(t *testing.T, exps []expectation, findings []rule.Finding) {
	t.Helper()
	used := make([]bool, len(findings))
	for _, e := range exps {
		found := false
		for i, f := range findings {
			if !used[i] && f.Line == e.line && f.Rule == e.rule && e.re.MatchString(f.Message) {
				used[i], found = true, true
				break
			}
		}
		if !found && !e.optional {
			t.Errorf("%s: expected %d %s %q, not reported", e.source, e.line, e.rule, e.re)
		}
	}
	for i, f := range findings {
		if !used[i] && f.Severity >= rule.SeverityWarning {
			t.Errorf("unexpected %s %s %s at line %d: %s", f.Severity, f.Rule, f.Name, f.Line, f.Message)
		}
	}
	if t.Failed() {
		for _, f := range findings {
			t.Logf("reported: %d %s %s %s", f.Line, f.Rule, f.Severity, f.Message)
		}
	}
}

var silentTwin = regexp.MustCompile(`^(MCP\d{4})-silent`)

// checkSilentTwin: a fixture named MCPnnnn-silent* must not produce that rule's
// finding at any severity (info findings are otherwise free, which would let an info
// rule's twin prove nothing).
func checkSilentTwin(t *testing.T, capture string, findings []rule.Finding) {
	t.Helper()
	m := silentTwin.FindStringSubmatch(filepath.Base(capture))
	if m == nil {
		return
	}
	for _, f := range findings {
		if f.Rule == m[1] {
			t.Errorf("silent twin of %s reports it: line %d %s: %s", m[1], f.Line, f.Severity, f.Message)
		}
	}
}
