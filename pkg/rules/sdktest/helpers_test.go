package sdktest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// testTimeout bounds every session a test drives.
const testTimeout = 5 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// analyse runs the whole catalogue over a capture, as `mcpsleuth check` does.
func analyse(t *testing.T, name string, capture []byte) *driver.InputResult {
	t.Helper()
	res, err := driver.Run(name, bytes.NewReader(capture), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatalf("driver.Run(%s): %v", name, err)
	}
	if res.Broken != nil {
		t.Fatalf("driver.Run(%s): reading stopped: %v", name, res.Broken)
	}
	return res
}

// logOnFailure prints a capture (numbered) and what mcpsleuth made of it when the
// test fails. capture is called at cleanup time, so it sees the final recording.
func logOnFailure(t *testing.T, label string, capture func() []byte, res func() *driver.InputResult) {
	t.Helper()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		t.Logf("%s:\n%s", label, Numbered(capture()))
		if r := res(); r != nil {
			t.Logf("mcpsleuth on %s:\n%s", label, describeResult(r))
		}
	})
}

func describeResult(res *driver.InputResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "input %s: %d session(s), format stats %+v\n", res.Name, len(res.Sessions), res.Stats)
	for i, s := range res.Sessions {
		fmt.Fprintf(&b, "session %d: era=%s lines %d-%d", i, s.Session.Era, s.Session.FirstLine, s.Session.LastLine)
		if c := s.Session.Legacy; c != nil {
			fmt.Fprintf(&b, " requested=%q answered=%q revision=%q verdict=%s client=%+v server=%+v clientCaps=%s serverCaps=%s",
				c.Requested, c.Answered, c.Revision, c.Verdict, c.Client, c.Server, c.ClientCaps, c.ServerCaps)
		}
		b.WriteString("\n")
		b.WriteString(describeFindings(s.Findings))
		for _, n := range s.Notes {
			fmt.Fprintf(&b, "  note: %s\n", n)
		}
	}
	return b.String()
}

func describeFindings(fs []rule.Finding) string {
	if len(fs) == 0 {
		return "  (no findings)\n"
	}
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  line %d %s %s [%s] %s id=%s: %s\n", f.Line, f.Rule, f.Name, f.Severity, f.Method, f.ID, f.Message)
	}
	return b.String()
}

// loud reports whether a finding is at warning level or above: what a fixture's
// .want must list (DESIGN.md section 8).
func loud(f rule.Finding) bool { return f.Severity >= rule.SeverityWarning }

// onlySession requires exactly one session and returns it.
func onlySession(t *testing.T, res *driver.InputResult) *rule.SessionResult {
	t.Helper()
	if len(res.Sessions) != 1 {
		t.Fatalf("got %d sessions, want exactly 1", len(res.Sessions))
	}
	return res.Sessions[0]
}

// noLoudFindingsExcept fails on every warning- or error-level finding that keep
// does not accept.
func noLoudFindingsExcept(t *testing.T, s *rule.SessionResult, keep func(rule.Finding) bool) {
	t.Helper()
	for _, f := range s.Findings {
		if loud(f) && (keep == nil || !keep(f)) {
			t.Errorf("unexpected %s finding: line %d %s %s: %s", f.Severity, f.Line, f.Rule, f.Name, f.Message)
		}
	}
}

// findingsOf returns the session's findings of one rule.
func findingsOf(s *rule.SessionResult, id string) []rule.Finding {
	var out []rule.Finding
	for _, f := range s.Findings {
		if f.Rule == id {
			out = append(out, f)
		}
	}
	return out
}

// member decodes one member of a JSON message by a dotted path of object keys.
func member(t *testing.T, msg []byte, path ...string) json.RawMessage {
	t.Helper()
	cur := json.RawMessage(msg)
	for _, k := range path {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cur, &obj); err != nil {
			t.Fatalf("%s: %v (in %s)", strings.Join(path, "."), err, msg)
		}
		v, ok := obj[k]
		if !ok {
			t.Fatalf("%s: no member %q in %s", strings.Join(path, "."), k, msg)
		}
		cur = v
	}
	return cur
}

func memberString(t *testing.T, msg []byte, path ...string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(member(t, msg, path...), &s); err != nil {
		t.Fatalf("%s: %v", strings.Join(path, "."), err)
	}
	return s
}

// sameJSON compares two JSON texts as values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("not JSON: %q: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("not JSON: %q: %v", b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return bytes.Equal(ja, jb)
}

// toolNames lists the tool names of a tools/list result message.
func toolNames(t *testing.T, msg []byte) []string {
	t.Helper()
	var res struct {
		Result struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(msg, &res); err != nil {
		t.Fatalf("tools/list result: %v", err)
	}
	var names []string
	for _, tool := range res.Result.Tools {
		names = append(names, tool.Name)
	}
	return names
}
