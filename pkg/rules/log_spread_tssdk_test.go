package rules_test

//lint:file-ignore SA1019 logging and sampling are deprecated as of 2026-07-28 (SEP-2577), not removed: these sessions exercise them

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules/sdktest"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestTypeScriptServerSpreadsItsLog runs the TypeScript SDK's McpServer on stdio
// (testdata/tssdk/log_server.mjs) with a tool that logs a line: spread into an
// object ({...text}, as Desktop Commander does), MCP3011 names the server at the
// log message and puts the text back together; sent as the text itself, silent.
// The Go SDK client records the session.
func TestTypeScriptServerSpreadsItsLog(t *testing.T) {
	node, dir := tsSDK(t)
	const text = "Loading config from ~/.claude-server-commander/config.json"
	for _, spread := range []bool{true, false} {
		t.Run(map[bool]string{true: "spread", false: "text"}[spread], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			args := []string{"log_server.mjs"}
			if spread {
				args = append(args, "spread")
			}
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Dir, cmd.Stderr = dir, os.Stderr
			capture := &sdktest.Capture{}
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "sdktest-client", Version: "1.0.0"}, &mcp.ClientOptions{
				LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) {},
			}).Connect(ctx, &sdktest.Transport{Transport: &mcp.CommandTransport{Command: cmd}, Capture: capture, Side: sdktest.ClientSide},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
			if err != nil {
				t.Fatalf("connect to the TypeScript SDK server: %v", err)
			}
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatalf("logging/setLevel: %v", err)
			}
			if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "load_config", Arguments: map[string]any{}}); err != nil || res.IsError {
				t.Fatalf("tools/call load_config: %v %+v", err, res)
			}
			_ = cs.Close()
			logs := capture.Find(func(l sdktest.Line) bool { return l.Dir == sdktest.S2C && l.Method() == "notifications/message" })
			if len(logs) != 1 {
				t.Fatalf("%d log messages recorded, want 1:\n%s", len(logs), sdktest.Numbered(capture.Bytes()))
			}
			if got := bytes.Contains(logs[0].Msg, []byte(`"data":{"0":"L","1":"o"`)); got != spread {
				t.Fatalf("the SDK sent %s", logs[0].Msg)
			}
			res, err := driver.Run("ts-log.jsonl", bytes.NewReader(capture.Bytes()), rules.All(), driver.RunOptions{})
			if err != nil || len(res.Sessions) != 1 {
				t.Fatalf("driver.Run: %v, %d sessions", err, len(res.Sessions))
			}
			var got []rule.Finding
			for _, f := range res.Sessions[0].Findings {
				if f.Severity >= rule.SeverityWarning {
					got = append(got, f)
				}
			}
			if !spread {
				if len(got) != 0 {
					t.Fatalf("the text sent as itself: %d findings, first %s at line %d: %s", len(got), got[0].Rule, got[0].Line, got[0].Message)
				}
				return
			}
			want := `the server's log message carries the string "` + text + `" spread into an object of 58 one-character members`
			if len(got) != 1 || got[0].Rule != "MCP3011" || got[0].Line != logs[0].N || !bytes.HasPrefix([]byte(got[0].Message), []byte(want)) || got[0].Party != spec.Server {
				t.Fatalf("want one MCP3011 at line %d naming the server, %q...; got %+v\n%s", logs[0].N, want, got, sdktest.Numbered(capture.Bytes()))
			}
		})
	}
}
