package rule_test

import (
	"io"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
)

// TestLiveFindings: with Live and OnFinding, a finding arrives while the input
// is still open, as soon as the frame it is about was written (record --live).
// The input is a pipe that stays open until the finding came: without Live the
// frame would wait in a batch and the test would never see it.
func TestLiveFindings(t *testing.T) {
	r, w := io.Pipe()
	found := make(chan rule.Finding, 8)
	done := make(chan error, 1)
	go func() {
		_, err := driver.Run("live.jsonl", r, rules.All(), driver.RunOptions{
			Frame:     frame.Options{Format: "envelope-jsonl"},
			Live:      true,
			Discard:   true,
			OnFinding: func(_ *session.Session, f rule.Finding) { found <- f },
		})
		done <- err
	}()
	lines := []string{
		`{"ts":"2026-12-02T08:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}`,
		`{"ts":"2026-12-02T08:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}}`,
		`{"ts":"2026-12-02T08:00:02Z","dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`,
		`{"ts":"2026-12-02T08:00:03Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}}`,
	}
	for _, l := range lines {
		if _, err := io.WriteString(w, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// A guard against a hang, not a timing assertion.
	guard := time.After(time.Minute)
	for waiting := true; waiting; {
		select {
		case f := <-found:
			if f.Rule == "MCP2002" {
				if f.Line != 4 || f.Method != "sampling/createMessage" {
					t.Errorf("live MCP2002 at line %d for %q, want line 4, sampling/createMessage", f.Line, f.Method)
				}
				waiting = false
			}
		case <-guard:
			t.Fatal("no MCP2002 finding while the input was open")
		}
	}
	go func() { // findings at the end of the input
		for range found {
		}
	}()
	w.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
