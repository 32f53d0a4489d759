package rules_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// TestBareMatchesEnvelope strips the envelope of every single-stream envelope fixture
// (leaving bare JSON-RPC lines: no direction, no time) and checks that the error and
// warning findings stay the same (line, rule, severity): direction inference must not
// change the verdict. Messages may differ where only the envelope says who sent what.
func TestBareMatchesEnvelope(t *testing.T) {
	var captures []string
	for _, dir := range []string{"real", "seeds", "rules", "sessions"} {
		m, _ := filepath.Glob(filepath.Join("../../fixtures", dir, "*.jsonl"))
		captures = append(captures, m...)
	}
	if len(captures) < 40 {
		t.Fatalf("only %d envelope fixtures found", len(captures))
	}
	for _, capture := range captures {
		bare, ok := stripEnvelopes(t, capture)
		if !ok {
			continue // several streams: the bare form cannot keep them apart
		}
		t.Run(filepath.Base(capture), func(t *testing.T) {
			want := summarise(t, capture, nil)
			got := summarise(t, capture, bare)
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("envelope findings:\n  %s\nbare findings:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
			}
		})
	}
}

// stripEnvelopes returns the bare lines, or false when the capture has stream keys.
func stripEnvelopes(t *testing.T, path string) ([]byte, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var env map[string]json.RawMessage
		if json.Unmarshal(sc.Bytes(), &env) == nil && env["msg"] != nil {
			if env["server_label"] != nil || env["session_id"] != nil {
				return nil, false
			}
			out.Write(env["msg"])
		} else {
			out.Write(sc.Bytes()) // keep broken lines as they are
		}
		out.WriteByte('\n')
	}
	return out.Bytes(), true
}

func summarise(t *testing.T, name string, data []byte) []string {
	t.Helper()
	var res *rule.InputResult
	var err error
	if data == nil {
		f, ferr := os.Open(name)
		if ferr != nil {
			t.Fatal(ferr)
		}
		defer f.Close()
		res, err = rule.Run(name, f, rules.All(), rule.RunOptions{})
	} else {
		res, err = rule.Run(name, bytes.NewReader(data), rules.All(), rule.RunOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if f.Severity >= rule.SeverityWarning {
				out = append(out, strings.Join([]string{strconv.Itoa(f.Line), f.Rule, f.Severity.String()}, " "))
			}
		}
	}
	return out
}
