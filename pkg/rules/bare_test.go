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

// TestOtherFormsMatchEnvelope rewrites every single-stream envelope fixture as bare
// JSON-RPC lines (no direction, no time) and as a Go SDK server log (read:/write:, no
// time) and checks that the error and
// warning findings stay the same (line, rule, severity): direction inference must not
// change the verdict. Messages may differ where only the envelope says who sent what.
func TestOtherFormsMatchEnvelope(t *testing.T) {
	var captures []string
	for _, dir := range []string{"real", "seeds", "rules", "sessions", "review", "ts"} {
		m, _ := filepath.Glob(filepath.Join("../../fixtures", dir, "*.jsonl"))
		captures = append(captures, m...)
	}
	if len(captures) < 40 {
		t.Fatalf("only %d envelope fixtures found", len(captures))
	}
	for _, capture := range captures {
		for _, variant := range []string{"bare", "gosdk-log"} {
			data, ok := stripEnvelopes(t, capture, variant)
			if !ok {
				continue // several streams: the other forms cannot keep them apart
			}
			t.Run(variant+"/"+filepath.Base(capture), func(t *testing.T) {
				want := summarise(t, capture, nil, variant)
				got := summarise(t, capture, data, variant)
				if strings.Join(want, "\n") != strings.Join(got, "\n") {
					t.Errorf("envelope findings:\n  %s\n%s findings:\n  %s", strings.Join(want, "\n  "), variant, strings.Join(got, "\n  "))
				}
			})
		}
	}
}

// stripEnvelopes rewrites an envelope capture as bare JSON-RPC lines, or as the Go SDK
// LoggingTransport log of the server (read: = client to server); false when the
// capture has stream keys.
func stripEnvelopes(t *testing.T, path, variant string) ([]byte, bool) {
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
		if json.Unmarshal(sc.Bytes(), &env) != nil {
			env = brokenEnvelope(sc.Text())
		}
		if env["msg"] != nil {
			if env["server_label"] != nil || env["session_id"] != nil {
				return nil, false
			}
			if variant == "gosdk-log" {
				if string(env["dir"]) == `"c->s"` {
					out.WriteString("read: ")
				} else {
					out.WriteString("write: ")
				}
			}
			out.Write(env["msg"])
		} else {
			out.Write(sc.Bytes()) // keep broken lines as they are
		}
		out.WriteByte('\n')
	}
	return out.Bytes(), true
}

// orderRules judge the order of messages going opposite ways, which a Go SDK log does
// not keep (it logs each direction from its own goroutine): they cannot judge there.
var orderRules = map[string]bool{"MCP1006": true}

func summarise(t *testing.T, name string, data []byte, variant string) []string {
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
			if f.Severity >= rule.SeverityWarning && !(variant == "gosdk-log" && orderRules[f.Rule]) {
				out = append(out, strings.Join([]string{strconv.Itoa(f.Line), f.Rule, f.Severity.String()}, " "))
			}
		}
	}
	return out
}

// brokenEnvelope takes apart an envelope line that is not valid JSON (a truncated
// record) by its text: the direction and whatever follows "msg":.
func brokenEnvelope(line string) map[string]json.RawMessage {
	_, msg, ok := strings.Cut(line, `"msg":`)
	if !ok {
		return nil
	}
	env := map[string]json.RawMessage{"msg": json.RawMessage(msg), "dir": json.RawMessage(`"s->c"`)}
	if strings.Contains(line, `"dir":"c->s"`) {
		env["dir"] = json.RawMessage(`"c->s"`)
	}
	return env
}
