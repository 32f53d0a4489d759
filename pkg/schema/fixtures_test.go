package schema_test

import (
	"bufio"
	"bytes"
	"encoding/json"
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

// schemaRules are the rules built on this package.
var schemaRules = map[string]bool{"MCP1010": true, "MCP4001": true, "MCP4002": true, "MCP4003": true, "MCP4004": true, "MCP4005": true}

var wantLine = regexp.MustCompile(`^(\?)?\s*(\d+)\s+(MCP\d{4})\s+"(.*)"\s*$`)

// TestSchemaFixtures runs fixtures/schema with the whole catalogue and holds the
// schema rules to their .want at every severity (the catalogue-wide harness lets
// info-level findings pass unlisted): every finding of a schema rule must be
// expected, and a fixture named MCPnnnn-silent* gets no finding of MCPnnnn at all.
func TestSchemaFixtures(t *testing.T) {
	wants, _ := filepath.Glob("../../fixtures/schema/*.want")
	if len(wants) < 12 {
		t.Fatalf("only %d fixtures in fixtures/schema", len(wants))
	}
	for _, want := range wants {
		name := strings.TrimSuffix(filepath.Base(want), ".want")
		t.Run(name, func(t *testing.T) {
			type expectation struct {
				line     int
				rule     string
				re       *regexp.Regexp
				optional bool
				met      bool
			}
			var exps []*expectation
			f, err := os.Open(want)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				text := strings.TrimSpace(sc.Text())
				if text == "" || strings.HasPrefix(text, "#") {
					continue
				}
				m := wantLine.FindStringSubmatch(text)
				if m == nil {
					t.Fatalf("malformed expectation %q", text)
				}
				line, _ := strconv.Atoi(m[2])
				exps = append(exps, &expectation{line: line, rule: m[3], re: regexp.MustCompile(m[4]), optional: m[1] == "?"})
			}
			f.Close()
			data, err := os.ReadFile(strings.TrimSuffix(want, ".want") + ".jsonl")
			if err != nil {
				t.Fatal(err)
			}
			res := analyse(t, name, data)
			silentRule, _, _ := strings.Cut(name, "-")
			silent := strings.Contains(name, "-silent")
			for _, s := range res.Sessions {
				for _, fd := range s.Findings {
					if !schemaRules[fd.Rule] {
						continue
					}
					if silent && fd.Rule == silentRule {
						t.Errorf("silent fixture: %s %s at line %d: %s", fd.Severity, fd.Rule, fd.Line, fd.Message)
						continue
					}
					matched := false
					for _, e := range exps {
						if !e.met && e.line == fd.Line && e.rule == fd.Rule && e.re.MatchString(fd.Message) {
							e.met, matched = true, true
							break
						}
					}
					if !matched {
						t.Errorf("unexpected %s %s at line %d: %s", fd.Severity, fd.Rule, fd.Line, fd.Message)
					}
				}
			}
			for _, e := range exps {
				if !e.met && !e.optional && schemaRules[e.rule] {
					t.Errorf("expected %d %s %q: not reported", e.line, e.rule, e.re)
				}
			}
			// The same frames without envelopes (bare JSON-RPC, no direction) and as the
			// Go SDK log of the server give the same verdicts: the rules infer who sent
			// what from the session, not from the envelope.
			for _, form := range []string{"bare", "gosdk-log"} {
				got := verdicts(analyse(t, name, stripEnvelopes(t, data, form)))
				if want := verdicts(res); got != want {
					t.Errorf("%s form:\n%s\nenvelope form:\n%s", form, got, want)
				}
			}
		})
	}
}

func analyse(t *testing.T, name string, data []byte) *rule.InputResult {
	t.Helper()
	res, err := rule.Run(name, bytes.NewReader(data), rules.All(), rule.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// verdicts lists the schema rules' findings as "line rule severity".
func verdicts(res *rule.InputResult) string {
	var out []string
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if schemaRules[f.Rule] {
				out = append(out, fmt.Sprintf("%d %s %s", f.Line, f.Rule, f.Severity))
			}
		}
	}
	return strings.Join(out, "\n")
}

// stripEnvelopes rewrites envelope lines as bare JSON-RPC lines, or as the Go SDK
// LoggingTransport log of the server ("read: " what the client sent).
func stripEnvelopes(t *testing.T, data []byte, form string) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var env struct {
			Dir string          `json:"dir"`
			Msg json.RawMessage `json:"msg"`
		}
		if err := json.Unmarshal(line, &env); err != nil || env.Msg == nil {
			t.Fatalf("not an envelope: %s", line)
		}
		if form == "gosdk-log" {
			if env.Dir == "c->s" {
				out.WriteString("read: ")
			} else {
				out.WriteString("write: ")
			}
		}
		out.Write(env.Msg)
		out.WriteByte('\n')
	}
	return out.Bytes()
}
