package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/config"
)

func TestParse(t *testing.T) {
	c, err := config.Parse("p.yaml", []byte("enable: MCP2001, mcp2002\ndisable:\n  - MCP3008\nseverity:\n  MCP1004: Warning\nfail-on: NEVER\nmin-severity: warning\nslow: 1m30s\n"), config.OptionKeys{Names: []string{"slow"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Enable) != 2 || c.Enable[0] != (config.Named{Rule: "MCP2001", Line: 1}) || c.Enable[1].Rule != "mcp2002" {
		t.Errorf("enable = %+v", c.Enable)
	}
	if len(c.Disable) != 1 || c.Disable[0] != (config.Named{Rule: "MCP3008", Line: 3}) {
		t.Errorf("disable = %+v", c.Disable)
	}
	if len(c.Severity) != 1 || c.Severity[0] != (config.Override{Rule: "MCP1004", Severity: "warning", Line: 5}) {
		t.Errorf("severity = %+v", c.Severity)
	}
	if c.FailOn != "never" || c.MinSeverity != "warning" || c.Durations["slow"] != 90*time.Second || c.Lines["slow"] != 8 {
		t.Errorf("fail-on %q, min-severity %q, slow %v, lines %v", c.FailOn, c.MinSeverity, c.Durations["slow"], c.Lines)
	}
	for _, empty := range []string{"", "\n# only a comment\n"} {
		if c, err := config.Parse("e.yaml", []byte(empty), config.OptionKeys{Names: []string{"slow"}}); err != nil || len(c.Enable)+len(c.Disable)+len(c.Severity) != 0 {
			t.Errorf("%q: %+v, %v", empty, c, err)
		}
	}
	for in, want := range map[string]string{
		"- MCP2001\n":                     "p.yaml:1: want a mapping of keys",
		"fail-on: error\nfail-on: info\n": "p.yaml:2: fail-on is set twice (first on line 1)",
		"slow: -5s\n":                     `p.yaml:1: slow: want a positive duration such as 30s or 2m, not "-5s"`,
		"enable: {a: b}\n":                "p.yaml:1: want a list of rule IDs or names, not a mapping",
		"severity: [MCP2001]\n":           "p.yaml:1: severity: want a mapping of rule to error, warning or info, not a list",
		"min-severity: never\n":           `p.yaml:1: min-severity: want error, warning or info, not "never"`,
		"enable: [MCP2001\n":              "p.yaml: ",
	} {
		_, err := config.Parse("p.yaml", []byte(in), config.OptionKeys{Names: []string{"slow"}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

func TestFind(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", config.FileName), []byte("fail-on: info\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := config.Find(sub)
	if want := filepath.Join(root, "a", config.FileName); err != nil || got != want {
		t.Errorf("Find(%s) = %q, %v; want %q", sub, got, err, want)
	}
	// A directory of that name is no configuration.
	if err := os.Mkdir(filepath.Join(sub, config.FileName), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, _ := config.Find(sub); got != filepath.Join(root, "a", config.FileName) {
		t.Errorf("Find took the directory %q", got)
	}
}

// TestSuppress: entries with what they match and a reason; each mistake named
// with its line.
func TestSuppress(t *testing.T) {
	c, err := config.Parse("p.yaml", []byte("suppress:\n  - rule: MCP1010\n    path: 'legacy/**'\n    reason: old server, not fixed\n  - server: lab-go-sdk-server\n    method: sampling/createMessage\n    reason: tracked in issue 12\n"), config.OptionKeys{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Suppress) != 2 || c.Suppress[0] != (config.Suppression{Rule: "MCP1010", Path: "legacy/**", Reason: "old server, not fixed", Line: 2}) ||
		c.Suppress[1] != (config.Suppression{Server: "lab-go-sdk-server", Method: "sampling/createMessage", Reason: "tracked in issue 12", Line: 5}) {
		t.Errorf("suppress %+v", c.Suppress)
	}
	for in, want := range map[string]string{
		"suppress:\n  - rule: MCP1010\n":                              "p.yaml:2: suppress: an entry needs a reason",
		"suppress:\n  - reason: because\n":                            "p.yaml:2: suppress: an entry needs something to match",
		"suppress:\n  - rule: MCP1010\n    bogus: x\n    reason: r\n": `p.yaml:3: suppress: unknown field "bogus" (known: rule, path, client, server, method, fingerprint, reason)`,
		"suppress: MCP1010\n":                                         "p.yaml:1: suppress: want a list of entries",
		"suppress:\n  - MCP1010\n":                                    "p.yaml:2: suppress: want an entry",
		"suppress:\n  - rule: [a]\n    reason: r\n":                   "p.yaml:2: suppress: rule: want a text, not a list",
	} {
		_, err := config.Parse("p.yaml", []byte(in), config.OptionKeys{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// TestErrorsClipEchoedValues: an error quotes a value of the file cut short, so
// that a 900 KB value is one line on stderr, not 900 KB (issue 29).
func TestErrorsClipEchoedValues(t *testing.T) {
	huge := strings.Repeat("x", 900_000)
	for _, in := range []string{
		"fail-on: " + huge + "\n",
		"slow: " + huge + "\n",
		"min-severity: " + huge + "\n",
	} {
		_, err := config.Parse("p.yaml", []byte(in), config.OptionKeys{Names: []string{"slow"}})
		if err == nil {
			t.Fatalf("%.40q: no error", in)
		}
		if len(err.Error()) > 400 || !strings.Contains(err.Error(), "xxx...") {
			t.Errorf("%.40q: an error of %d bytes, want the value cut: %.300s", in, len(err.Error()), err)
		}
	}
	c, err := config.Parse("p.yaml", []byte("disable: [MCP2001]\n"), config.OptionKeys{})
	if err != nil {
		t.Fatal(err)
	}
	if msg := c.ErrAt(1, "unknown rule %q", huge).Error(); len(msg) > 400 {
		t.Errorf("ErrAt quotes %d bytes", len(msg))
	}
}

// TestCountOptions reads a whole-number option and refuses what is not one.
func TestCountOptions(t *testing.T) {
	keys := config.OptionKeys{Names: []string{"slow", "reconnect-limit"}, Counts: []string{"reconnect-limit"}}
	c, err := config.Parse("p.yaml", []byte("reconnect-limit: 25\nslow: 2s\n"), keys)
	if err != nil || c.Counts["reconnect-limit"] != 25 || c.Durations["slow"] != 2*time.Second || c.Lines["reconnect-limit"] != 1 {
		t.Fatalf("counts %v, durations %v, lines %v, error %v", c.Counts, c.Durations, c.Lines, err)
	}
	for _, bad := range []string{"reconnect-limit: 0\n", "reconnect-limit: -3\n", "reconnect-limit: ten\n", "reconnect-limit: [1]\n"} {
		_, err := config.Parse("p.yaml", []byte(bad), keys)
		if err == nil || !strings.Contains(err.Error(), "p.yaml:1:") || !strings.Contains(err.Error(), "reconnect-limit: want a positive whole number such as 10") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}
