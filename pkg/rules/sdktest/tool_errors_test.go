package sdktest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// A tool that fails while it runs (a write the database refuses): how each SDK
// answers the call depends on how the handler reports the failure. MCP3010 names
// the server that answers it with a JSON-RPC error instead of a result with
// isError: true.

const readOnlyFailure = "cannot execute INSERT in a read-only transaction"

// queryCall calls the query tool with a write.
func queryCall() *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "query", Arguments: map[string]any{"sql": "INSERT INTO notes VALUES (1)"}}
}

type queryArgs struct {
	SQL string `json:"sql"`
}

// TestGoSDKToolErrorAsProtocolError: the Go SDK's raw ToolHandler returns a Go
// error, which the SDK sends as a JSON-RPC error (code 0, the error's text); its
// typed handler (mcp.AddTool) returning the same error answers with an error
// result instead, the silent twin.
func TestGoSDKToolErrorAsProtocolError(t *testing.T) {
	for _, typed := range []bool{false, true} {
		t.Run(map[bool]string{false: "raw-handler", true: "typed-handler"}[typed], func(t *testing.T) {
			s := mcp.NewServer(goServerImpl, nil)
			if typed {
				mcp.AddTool(s, &mcp.Tool{Name: "query", Description: "Run a read-only SQL query"},
					func(context.Context, *mcp.CallToolRequest, queryArgs) (*mcp.CallToolResult, any, error) {
						return nil, nil, errors.New(readOnlyFailure)
					})
			} else {
				s.AddTool(&mcp.Tool{Name: "query", Description: "Run a read-only SQL query", InputSchema: map[string]any{"type": "object"}},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return nil, errors.New(readOnlyFailure)
					})
			}
			p := connectGoPair(t, s, nil, "2025-06-18")
			if _, err := p.cs.ListTools(p.ctx, nil); err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			res, err := p.cs.CallTool(p.ctx, queryCall())
			call := only(t, p.capture, "tools/call query", sent(C2S, "tools/call"))
			answer := p.await("the answer to tools/call", answers(call))
			s2 := p.analyse("tool-error-" + map[bool]string{false: "raw", true: "typed"}[typed] + ".jsonl")
			if typed {
				if err != nil || res == nil || !res.IsError {
					t.Fatalf("the typed handler's failure: result %+v, error %v; want an error result", res, err)
				}
				forbid(t, s2, "the failure came back as a result with isError: true", "MCP3010")
				noLoudFindingsExcept(t, s2, nil)
				return
			}
			if err == nil {
				t.Fatalf("the raw handler's failure came back as a result %+v; want a JSON-RPC error", res)
			}
			f := expectFinding(t, s2, "MCP3010", answer.N, rule.SeverityWarning,
				fmt.Sprintf(`tools/call "query" id=%s (line %d) was answered with JSON-RPC error 0 %q: code 0, which no JSON-RPC error defines`, call.ID(), call.N, readOnlyFailure))
			if f.Party != spec.Server {
				t.Errorf("MCP3010 names %v at fault, want the server", f.Party)
			}
			noLoudFindingsExcept(t, s2, at("MCP3010", answer.N))
		})
	}
}

// TestMCPGoToolErrorAsProtocolError: an mcp-go tool handler that returns an error
// is answered -32603 Internal error; one that returns mcp.NewToolResultError gives
// the model the failure, the silent twin. A call to a tool the server does not
// have is answered -32602, a protocol error: silent too.
func TestMCPGoToolErrorAsProtocolError(t *testing.T) {
	ctx := testContext(t)
	capture := &Capture{}
	srv := mgserver.NewMCPServer("mcp-go-postgres", "0.1.0", mgserver.WithToolCapabilities(false))
	srv.AddTool(mgmcp.NewTool("query", mgmcp.WithDescription("Run a read-only SQL query"), mgmcp.WithString("sql", mgmcp.Required())),
		func(context.Context, mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			return nil, errors.New(readOnlyFailure)
		})
	srv.AddTool(mgmcp.NewTool("query_reported", mgmcp.WithDescription("Run a read-only SQL query"), mgmcp.WithString("sql", mgmcp.Required())),
		func(context.Context, mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			return mgmcp.NewToolResultError(readOnlyFailure), nil
		})
	m := serveMCPGo(t, ctx, srv, capture)
	cs := m.connectGoClient(t, ctx, nil, "2025-06-18")
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if _, err := cs.CallTool(ctx, queryCall()); err == nil {
		t.Fatal("mcp-go answered the failing handler with a result; want a JSON-RPC error")
	}
	reported := queryCall()
	reported.Name = "query_reported"
	if res, err := cs.CallTool(ctx, reported); err != nil || !res.IsError {
		t.Fatalf("query_reported: result %+v, error %v; want an error result", res, err)
	}
	unknown := queryCall()
	unknown.Name = "drop_everything"
	if _, err := cs.CallTool(ctx, unknown); err == nil {
		t.Fatal("mcp-go answered a call to an unknown tool with a result")
	}
	_ = cs.Close()
	m.wait(ctx)

	call := only(t, capture, "tools/call query", and(sent(C2S, "tools/call"), paramIs("name", "query")))
	answer := only(t, capture, "the answer to tools/call query", answers(call))
	unknownCall := only(t, capture, "tools/call drop_everything", and(sent(C2S, "tools/call"), paramIs("name", "drop_everything")))
	if code := string(member(t, only(t, capture, "the answer to the unknown tool", answers(unknownCall)).Msg, "error", "code")); code != "-32602" {
		t.Fatalf("mcp-go answered an unknown tool with code %s, want -32602", code)
	}
	res := analyse(t, "mcp-go-tool-error.jsonl", capture.Bytes())
	logOnFailure(t, "capture", capture.Bytes, func() *driver.InputResult { return res })
	s := onlySession(t, res)
	expectFinding(t, s, "MCP3010", answer.N, rule.SeverityWarning,
		fmt.Sprintf(`tools/call "query" id=%s (line %d) was answered with JSON-RPC error -32603`, call.ID(), call.N), readOnlyFailure)
	if n := len(findingsOf(s, "MCP3010")); n != 1 {
		t.Errorf("%d MCP3010 findings, want 1 (the error result and the unknown tool are silent):\n%s", n, describeFindings(findingsOf(s, "MCP3010")))
	}
	noLoudFindingsExcept(t, s, at("MCP3010", answer.N))
}

// TestGoSDKToolDefinitionsOverBudget: a Go SDK server whose 40 tools carry long
// descriptions lists them at more tokens than the default budget (MCP1016, the
// largest named); the same tools described in a sentence are under it (silent).
func TestGoSDKToolDefinitionsOverBudget(t *testing.T) {
	guidance := strings.Repeat("Use this tool to query the warehouse. It accepts a table, filters and a sort order, returns at most one "+
		"hundred rows a page, and fails on tables the user cannot read: ask for access instead of retrying. ", 12)
	for _, long := range []bool{true, false} {
		t.Run(map[bool]string{true: "long", false: "short"}[long], func(t *testing.T) {
			s := mcp.NewServer(goServerImpl, nil)
			for i := range 40 {
				desc := fmt.Sprintf("Query warehouse table group %d.", i)
				if long {
					desc = guidance + desc
				}
				mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("query_%02d", i), Description: desc},
					func(context.Context, *mcp.CallToolRequest, queryArgs) (*mcp.CallToolResult, any, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
					})
			}
			p := connectGoPair(t, s, nil, "2025-11-25")
			if res, err := p.cs.ListTools(p.ctx, nil); err != nil || len(res.Tools) != 40 {
				t.Fatalf("tools/list: %v", err)
			}
			list := only(t, p.capture, "tools/list", sent(C2S, "tools/list"))
			result := p.await("the tools/list result", answers(list))
			res := p.analyse("tools-budget.jsonl")
			if !long {
				forbid(t, res, "40 short definitions are far under the budget", "MCP1016")
				return
			}
			f := expectFinding(t, res, "MCP1016", result.N, rule.SeverityInfo, "carries 40 tool definitions of", "over the 20000-token budget", "the largest: \"query_")
			if f.Party != spec.Server {
				t.Errorf("MCP1016 names %v, want the server", f.Party)
			}
		})
	}
}
