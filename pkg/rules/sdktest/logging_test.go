package sdktest

//lint:file-ignore SA1019 logging and sampling are deprecated as of 2026-07-28 (SEP-2577), not removed: these sessions exercise their gates

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Logging in the handshake era: logging/setLevel and notifications/message.

type noArgs struct{}

// newLoggingGoServer is a Go SDK server whose "log" tool logs at debug, info
// (ServerSession.Log) and warning (the SDK's slog bridge, NewLoggingHandler).
// caps nil keeps the SDK's default capabilities, which declare logging.
func newLoggingGoServer(caps *mcp.ServerCapabilities) *mcp.Server {
	s := mcp.NewServer(goServerImpl, &mcp.ServerOptions{Capabilities: caps})
	mcp.AddTool(s, &mcp.Tool{Name: "log", Description: "Log at debug, info and warning"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			for _, m := range []*mcp.LoggingMessageParams{
				{Level: "debug", Logger: "sdktest", Data: "cache probe"},
				{Level: "info", Logger: "sdktest", Data: "indexing started"},
			} {
				if err := req.Session.Log(ctx, m); err != nil {
					return nil, nil, fmt.Errorf("log: %w", err)
				}
			}
			slog.New(mcp.NewLoggingHandler(req.Session, &mcp.LoggingHandlerOptions{LoggerName: "sdktest-slog"})).
				WarnContext(ctx, "disk almost full", "free", "3%")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, nil, nil
		})
	return s
}

// logLevels lists the levels of the notifications/message frames of a capture.
func logLevels(t *testing.T, c *Capture) ([]string, []Line) {
	t.Helper()
	var levels []string
	lines := c.Find(sent(S2C, "notifications/message"))
	for _, l := range lines {
		levels = append(levels, memberString(t, l.Msg, "params", "level"))
	}
	return levels, lines
}

// runGoLogging connects a Go SDK client to server at rev, sets the level to
// info, and calls the log tool.
func runGoLogging(t *testing.T, server *mcp.Server, rev string) (*goPair, []string) {
	t.Helper()
	var mu sync.Mutex
	var received []string
	p := connectGoPair(t, server, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			received = append(received, string(req.Params.Level))
		},
	}, rev)
	if err := p.cs.SetLoggingLevel(p.ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	if r, err := p.cs.CallTool(p.ctx, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{}}); err != nil || r.IsError {
		t.Fatalf("tools/call log: %v %+v", err, r)
	}
	// Go SDK notifications are written synchronously, before the tool's result.
	levels, _ := logLevels(t, p.capture)
	if !slices.Equal(levels, []string{"info", "warning"}) {
		t.Fatalf("the server logged %v at level info, want [info warning] (debug filtered by setLevel)", levels)
	}
	p.close()
	mu.Lock()
	defer mu.Unlock()
	return p, received
}

// TestGoSDKLoggingSetLevel: the client sets the level, the server declares
// logging and logs through ServerSession.Log and the slog bridge. A healthy
// session: nothing at warning level or above, no MCP2001/MCP2002/MCP2004.
func TestGoSDKLoggingSetLevel(t *testing.T) {
	for _, rev := range handshakeRevisions {
		t.Run(rev, func(t *testing.T) {
			p, received := runGoLogging(t, newLoggingGoServer(nil), rev)
			if !slices.Equal(received, []string{"info", "warning"}) {
				t.Errorf("the client's handler received %v", received)
			}
			set := only(t, p.capture, "logging/setLevel", sent(C2S, "logging/setLevel"))
			if r := p.response(set); !r.IsResponse() || string(member(t, r.Msg, "result")) != "{}" {
				t.Fatalf("logging/setLevel answered %s", r.Msg)
			}
			initRes := p.response(only(t, p.capture, "initialize", sent(C2S, "initialize")))
			member(t, initRes.Msg, "result", "capabilities", "logging") // declared

			s := p.analyse("logging-" + rev + ".jsonl")
			requireLegacy(t, s, rev)
			forbid(t, s, "logging is declared and the level was set", "MCP2001", "MCP2002", "MCP2004", "MCP1006", "MCP1008")
			noLoudFindingsExcept(t, s, nil)
		})
	}
}

// TestGoSDKLoggingUndeclared: the server overrides its capabilities without
// logging, yet the Go SDK accepts logging/setLevel and ServerSession.Log still
// sends notifications/message. The client asked for a feature the server never
// declared (MCP2002 at logging/setLevel) and the server sent a notification its
// declaration does not cover (MCP2001 at each notifications/message).
func TestGoSDKLoggingUndeclared(t *testing.T) {
	for _, rev := range handshakeRevisions {
		t.Run(rev, func(t *testing.T) {
			p, _ := runGoLogging(t, newLoggingGoServer(&mcp.ServerCapabilities{}), rev)
			initRes := p.response(only(t, p.capture, "initialize", sent(C2S, "initialize")))
			if caps := member(t, initRes.Msg, "result", "capabilities"); !sameJSON(t, caps, []byte(`{"tools":{"listChanged":true}}`)) {
				t.Fatalf("server capabilities %s: want tools only", caps)
			}
			set := only(t, p.capture, "logging/setLevel", sent(C2S, "logging/setLevel"))
			_, messages := logLevels(t, p.capture)

			s := p.analyse("logging-undeclared-" + rev + ".jsonl")
			requireLegacy(t, s, rev)
			sev := capabilityScaled(rev)
			declaredNo := fmt.Sprintf("initialize result (line %d) declared no logging", initRes.N)
			f := expectFinding(t, s, "MCP2002", set.N, sev, "client sent logging/setLevel id="+set.ID(), declaredNo)
			if f.Method != "logging/setLevel" {
				t.Errorf("MCP2002 method = %q", f.Method)
			}
			keep := []func(rule.Finding) bool{at("MCP2002", set.N)}
			for _, m := range messages {
				expectFinding(t, s, "MCP2001", m.N, sev, "server sent notifications/message", declaredNo, "the receiver may drop it")
				keep = append(keep, at("MCP2001", m.N))
			}
			noLoudFindingsExcept(t, s, anyOf(keep...))
		})
	}
}

// newMCPGoLoggingServer is an mcp-go server whose "log" tool sends debug, info
// and error log messages with SendLogMessageToClient. declare adds WithLogging.
func newMCPGoLoggingServer(declare bool) *mgserver.MCPServer {
	opts := []mgserver.ServerOption{mgserver.WithToolCapabilities(false)}
	if declare {
		opts = append(opts, mgserver.WithLogging())
	}
	srv := mgserver.NewMCPServer(mcpgoServerName, mcpgoServerVersion, opts...)
	srv.AddTool(mgmcp.NewTool("log", mgmcp.WithDescription("Log at debug, info and error")),
		func(ctx context.Context, _ mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			for _, m := range []struct {
				level mgmcp.LoggingLevel
				data  string
			}{{mgmcp.LoggingLevelDebug, "cache probe"}, {mgmcp.LoggingLevelInfo, "indexing started"}, {mgmcp.LoggingLevelError, "index corrupt"}} {
				if err := srv.SendLogMessageToClient(ctx, mgmcp.NewLoggingMessageNotification(m.level, "sdktest", m.data)); err != nil {
					return mgmcp.NewToolResultError("log: " + err.Error()), nil
				}
			}
			return mgmcp.NewToolResultText("logged"), nil
		})
	return srv
}

// runMCPGoLogging serves the logging mcp-go server to a Go SDK client at
// legacyRevision; setLevel sends logging/setLevel info first. It returns once
// the error-level message (logged last) is in the capture.
func runMCPGoLogging(t *testing.T, declare, setLevel bool) (*Capture, *driver.InputResult) {
	t.Helper()
	ctx := testContext(t)
	capture := &Capture{}
	var res *driver.InputResult
	logOnFailure(t, "capture", capture.Bytes, func() *driver.InputResult { return res })
	srv := serveMCPGo(t, ctx, newMCPGoLoggingServer(declare), capture)
	cs := srv.connectGoClient(t, ctx, nil, legacyRevision)
	if setLevel {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatalf("logging/setLevel: %v", err)
		}
	}
	if r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{}}); err != nil || r.IsError {
		t.Fatalf("tools/call log: %v %+v", err, r)
	}
	// mcp-go queues notifications in order and writes them from one goroutine:
	// once the last one (error) is recorded, a debug message would be too.
	if _, err := capture.Await(ctx, and(sent(S2C, "notifications/message"), paramIs("level", "error"))); err != nil {
		t.Fatalf("the error-level log message never came: %v", err)
	}
	if err := cs.Close(); err != nil {
		t.Logf("client close: %v", err)
	}
	srv.wait(ctx)
	res = analyse(t, "mcpgo-logging.jsonl", capture.Bytes())
	return capture, res
}

// TestMCPGoLoggingDeclared: mcp-go with WithLogging; the client sets the level
// to info; the server logs debug (dropped by mcp-go), info and error. Healthy.
func TestMCPGoLoggingDeclared(t *testing.T) {
	capture, res := runMCPGoLogging(t, true, true)
	if levels, _ := logLevels(t, capture); !slices.Equal(levels, []string{"info", "error"}) {
		t.Fatalf("mcp-go logged %v at level info, want [info error]", levels)
	}
	s := onlySession(t, res)
	requireLegacy(t, s, legacyRevision)
	forbid(t, s, "logging is declared and the level was set", "MCP2001", "MCP2002", "MCP2004")
	noLoudFindingsExcept(t, s, nil)
}

// TestMCPGoLoggingUndeclared: mcp-go without WithLogging. Its stdio session's
// level defaults to error, so SendLogMessageToClient sends the error message
// although the server never declared logging (and the client never set a
// level): MCP2001 at that notifications/message, and nothing else.
func TestMCPGoLoggingUndeclared(t *testing.T) {
	capture, res := runMCPGoLogging(t, false, false)
	levels, messages := logLevels(t, capture)
	if !slices.Equal(levels, []string{"error"}) {
		t.Fatalf("mcp-go logged %v without a level set, want [error]", levels)
	}
	initRes, ok := capture.ResponseTo(only(t, capture, "initialize", sent(C2S, "initialize")))
	if !ok {
		t.Fatal("initialize unanswered")
	}
	if caps := member(t, initRes.Msg, "result", "capabilities"); !sameJSON(t, caps, []byte(`{"tools":{}}`)) {
		t.Fatalf("server capabilities %s: want tools only", caps)
	}
	s := onlySession(t, res)
	requireLegacy(t, s, legacyRevision)
	expectFinding(t, s, "MCP2001", messages[0].N, rule.SeverityError, "server sent notifications/message",
		fmt.Sprintf("initialize result (line %d) declared no logging", initRes.N), "the receiver may drop it")
	noLoudFindingsExcept(t, s, at("MCP2001", messages[0].N))
}
