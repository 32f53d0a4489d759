package frame_test

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// claudeCodeLine writes one record of Claude Code's MCP log.
func claudeCodeLine(level, text, ts string) string {
	return `{"` + level + `":` + jsonString(text) + `,"timestamp":"2026-12-04T16:10:` + ts + `Z","sessionId":"64b51ee5-83af-4cdb-87d1-d937aa53fef0","cwd":"/home/dev/shop"}` + "\n"
}

// TestClaudeCodeConnectionFailures: the failures the samples do not show, written as
// Claude Code words the ones they do ("Connection failed after Nms (STATUS): ..."):
// each connection's outcome and the likely cause, and a refused SSE GET becomes
// an exchange record.
func TestClaudeCodeConnectionFailures(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		says     []string
		exchange int // the status of the exchange record the log gives, 0 for none
	}{
		{"http 401", claudeCodeLine("debug", "Initializing HTTP transport to https://mcp.example.com/mcp", "00.000") +
			claudeCodeLine("debug", "Starting connection with timeout of 30000ms", "00.001") +
			claudeCodeLine("debug", "Connection failed after 120ms, 120ms of it awake (401): HTTP 401 Unauthorized", "00.121") +
			claudeCodeLine("error", "Connection failed (401): HTTP 401 Unauthorized", "00.121"),
			[]string{`connection 1 over http to "https://mcp.example.com/mcp": failed with HTTP 401 ("HTTP 401 Unauthorized"): the server refused the client's credentials`,
				`first error: "Connection failed (401): HTTP 401 Unauthorized"`}, 0},
		{"timeout then a second try", claudeCodeLine("debug", "Starting connection with timeout of 30000ms", "00.000") +
			claudeCodeLine("error", "Connection to MCP server \"db\" timed out after 30000ms", "30.000") +
			claudeCodeLine("debug", "Starting connection with timeout of 30000ms", "31.000") +
			claudeCodeLine("debug", "Successfully connected (transport: stdio) in 900ms", "31.900"),
			[]string{`connection 1: failed ("Connection to MCP server \"db\" timed out after 30000ms"): no handshake within the timeout`,
				`connection 2 over stdio: connected in 900ms`}, 0},
		{"sse 405", claudeCodeLine("debug", "SSE transport initialized, awaiting connection", "00.000") +
			claudeCodeLine("debug", "Starting connection with timeout of 30000ms", "00.001") +
			claudeCodeLine("debug", `SSE Connection failed after 9ms: {"url":"http://127.0.0.1:8080/mcp","error":"SSE error: Non-200 status code (405)"}`, "00.010"),
			nil, 405},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd, err := frame.NewReader("claude-code.jsonl", strings.NewReader(tc.in), frame.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got int
			for {
				r, err := rd.Next()
				if errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				if x := r.Exchange; x != nil {
					got = x.HTTP.Status
					if h := x.HTTP; h.Method != "GET" || h.Path != "/mcp" || !h.OpensStream() || x.Time.IsZero() || r.Line != 3 {
						t.Errorf("exchange %+v at %v, line %d", h, x.Time, r.Line)
					}
				}
			}
			st := rd.Stats()
			if st.Format != "claude-code-mcp-log" || st.Frames != 0 || st.Context != st.Lines {
				t.Fatalf("stats %+v", st)
			}
			if got != tc.exchange {
				t.Errorf("exchange record with status %d, want %d", got, tc.exchange)
			}
			if tc.exchange != 0 {
				return // a session judges it: the input is no lossy one
			}
			for _, s := range tc.says {
				if !strings.Contains(st.Lossy, s) {
					t.Errorf("Lossy %q does not say %q", st.Lossy, s)
				}
			}
		})
	}
}
