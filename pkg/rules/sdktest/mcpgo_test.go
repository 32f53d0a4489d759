package sdktest

import (
	"context"
	"errors"
	"io"
	"log"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	mgclient "github.com/mark3labs/mcp-go/client"
	mgtransport "github.com/mark3labs/mcp-go/client/transport"
	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Why pipes and not mcp-go's in-process client: client.NewInProcessClient hands
// Go values to the server (responses are re-marshalled structs, notifications and
// server-to-client requests never become JSON), so it records no wire. The mcp-go
// server runs as a stdio server (server.NewStdioServer(...).Listen) on io.Pipes,
// and the bytes on the pipes are recorded with Tap.
//
// mcp-go's stdio server keeps its session in a package-level variable, so these
// tests must not run in parallel with each other.

const (
	mcpgoServerName    = "sdktest-mcp-go-server"
	mcpgoServerVersion = "0.3.0"
	legacyRevision     = "2025-11-25"
)

// mcpgoServer is an mcp-go server declaring tools.listChanged, with two ways
// to change its tool list during a call:
//   - add-tool registers added-tool with MCPServer.AddTool, which notifies
//     (mcp-go sends notifications/tools/list_changed itself when listChanged is on);
//   - reveal-hidden makes hidden-tool visible through a WithToolFilter filter: the
//     list changes and mcp-go has no way of knowing, so nothing is sent.
type mcpgoServer struct {
	srv      *mgserver.MCPServer
	revealed atomic.Bool
}

func newMCPGoServer() *mcpgoServer {
	m := &mcpgoServer{}
	m.srv = mgserver.NewMCPServer(mcpgoServerName, mcpgoServerVersion,
		mgserver.WithToolCapabilities(true),
		mgserver.WithToolFilter(func(_ context.Context, tools []mgmcp.Tool) []mgmcp.Tool {
			if m.revealed.Load() {
				return tools
			}
			return slices.DeleteFunc(slices.Clone(tools), func(t mgmcp.Tool) bool { return t.Name == "hidden-tool" })
		}))
	text := func(s string) mgserver.ToolHandlerFunc {
		return func(context.Context, mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			return mgmcp.NewToolResultText(s), nil
		}
	}
	m.srv.AddTool(mgmcp.NewTool("echo", mgmcp.WithDescription("Echo the text back"), mgmcp.WithString("text", mgmcp.Required())),
		func(_ context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			return mgmcp.NewToolResultText(req.GetString("text", "")), nil
		})
	m.srv.AddTool(mgmcp.NewTool("hidden-tool", mgmcp.WithDescription("Listed only after reveal-hidden")), text("hidden"))
	m.srv.AddTool(mgmcp.NewTool("add-tool", mgmcp.WithDescription("Register added-tool at runtime (AddTool)")),
		func(context.Context, mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			m.srv.AddTool(mgmcp.NewTool("added-tool", mgmcp.WithDescription("Registered at runtime")), text("added"))
			return mgmcp.NewToolResultText("added-tool registered"), nil
		})
	m.srv.AddTool(mgmcp.NewTool("reveal-hidden", mgmcp.WithDescription("Make hidden-tool visible (a tool filter)")),
		func(context.Context, mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			m.revealed.Store(true)
			return mgmcp.NewToolResultText("hidden-tool is now listed"), nil
		})
	return m
}

// listClient is what the list-change scenario needs from a client.
type listClient interface {
	listTools(ctx context.Context) ([]string, error)
	callTool(ctx context.Context, name string) error
	close() error
}

// clientFactory connects a client over the client's ends of the pipe; notified
// receives notifications/tools/list_changed.
type clientFactory struct {
	name    string
	connect func(t *testing.T, ctx context.Context, p *Pipe, notified chan<- struct{}) listClient
}

var listClients = []clientFactory{
	{"mcp-go-client", connectMCPGoClient},
	{"go-sdk-client", connectGoSDKClient},
}

type mgClient struct{ c *mgclient.Client }

func connectMCPGoClient(t *testing.T, ctx context.Context, p *Pipe, notified chan<- struct{}) listClient {
	t.Helper()
	c := mgclient.NewClient(mgtransport.NewIO(p.ClientReader, p.ClientWriter, nil), mgclient.WithProtocolVersion(legacyRevision))
	if err := c.Start(ctx); err != nil {
		t.Fatalf("mcp-go client start: %v", err)
	}
	c.OnNotification(func(n mgmcp.JSONRPCNotification) {
		if n.Method == string(mgmcp.MethodNotificationToolsListChanged) {
			signal(notified)
		}
	})
	var req mgmcp.InitializeRequest
	req.Params.ProtocolVersion = legacyRevision
	req.Params.ClientInfo = mgmcp.Implementation{Name: "sdktest-mcp-go-client", Version: "0.4.0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatalf("mcp-go client initialize: %v", err)
	}
	return mgClient{c}
}

func (m mgClient) listTools(ctx context.Context) ([]string, error) {
	res, err := m.c.ListTools(ctx, mgmcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names, nil
}

func (m mgClient) callTool(ctx context.Context, name string) error {
	var req mgmcp.CallToolRequest
	req.Params.Name = name
	res, err := m.c.CallTool(ctx, req)
	if err == nil && res.IsError {
		err = errors.New("tool error")
	}
	return err
}

func (m mgClient) close() error { return m.c.Close() }

type goClient struct{ cs *mcp.ClientSession }

func connectGoSDKClient(t *testing.T, ctx context.Context, p *Pipe, notified chan<- struct{}) listClient {
	t.Helper()
	client := mcp.NewClient(goClientImpl, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { signal(notified) },
	})
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: p.ClientReader, Writer: p.ClientWriter},
		&mcp.ClientSessionOptions{ProtocolVersion: legacyRevision})
	if err != nil {
		t.Fatalf("Go SDK client connect: %v", err)
	}
	return goClient{cs}
}

func (g goClient) listTools(ctx context.Context) ([]string, error) {
	res, err := g.cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names, nil
}

func (g goClient) callTool(ctx context.Context, name string) error {
	res, err := g.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
	if err == nil && res.IsError {
		err = errors.New("tool error")
	}
	return err
}

func (g goClient) close() error { return g.cs.Close() }

func signal(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// listRun is one recorded list-change session.
type listRun struct {
	capture       *Capture
	before, after []string // tool names of the two tools/list results, as the client saw them
	notified      bool     // the client's handler saw notifications/tools/list_changed
}

// runListChange serves an mcp-go server over recorded pipes, connects a client,
// lists tools, calls change, waits for a list_changed notification when
// wantNotification (else makes sure none arrives), and lists tools again.
func runListChange(t *testing.T, cf clientFactory, change string, wantNotification bool) *listRun {
	t.Helper()
	ctx := testContext(t)
	run := &listRun{capture: &Capture{}}
	pipe := NewPipe(run.capture)
	defer pipe.Close()

	m := newMCPGoServer()
	stdio := mgserver.NewStdioServer(m.srv)
	stdio.SetErrorLogger(log.New(io.Discard, "", 0))
	served := make(chan error, 1)
	serveCtx, stopServing := context.WithCancel(ctx)
	defer stopServing()
	go func() {
		err := stdio.Listen(serveCtx, pipe.ServerReader, pipe.ServerWriter)
		_ = pipe.ServerWriter.Close() // the client's reader sees EOF
		served <- err
	}()

	notified := make(chan struct{}, 1)
	c := cf.connect(t, ctx, pipe, notified)
	var err error
	if run.before, err = c.listTools(ctx); err != nil {
		t.Fatalf("first tools/list: %v", err)
	}
	if err := c.callTool(ctx, change); err != nil {
		t.Fatalf("tools/call %s: %v", change, err)
	}
	if wantNotification {
		select {
		case <-notified:
			run.notified = true
		case <-ctx.Done():
			t.Fatalf("no notifications/tools/list_changed reached the client after %s", change)
		}
	}
	if run.after, err = c.listTools(ctx); err != nil {
		t.Fatalf("second tools/list: %v", err)
	}
	if !wantNotification {
		// Give a (wrong) late notification a moment to show up in the capture.
		select {
		case <-notified:
			run.notified = true
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := c.close(); err != nil {
		t.Logf("client close: %v", err)
	}
	select {
	case err := <-served:
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("mcp-go server stopped: %v", err)
		}
	case <-ctx.Done():
		t.Fatalf("mcp-go stdio server did not stop after the client closed")
	}
	return run
}

// listResults returns the two tools/list results of the capture.
func listResults(t *testing.T, c *Capture) (first, second Line) {
	t.Helper()
	lists := c.Requests("tools/list")
	if len(lists) != 2 {
		t.Fatalf("capture holds %d tools/list requests, want 2", len(lists))
	}
	var ok bool
	if first, ok = c.ResponseTo(lists[0]); !ok {
		t.Fatalf("first tools/list (line %d) has no response", lists[0].N)
	}
	if second, ok = c.ResponseTo(lists[1]); !ok {
		t.Fatalf("second tools/list (line %d) has no response", lists[1].N)
	}
	return first, second
}

func checkMCPGoContract(t *testing.T, s *rule.SessionResult) {
	t.Helper()
	if s.Session.Era != session.EraLegacy || s.Session.Legacy == nil {
		t.Fatalf("era = %s, want legacy with a contract", s.Session.Era)
	}
	c := s.Session.Legacy
	if c.Answered != legacyRevision || string(c.Revision) != legacyRevision {
		t.Errorf("revision: answered %q, governing %q; want %s", c.Answered, c.Revision, legacyRevision)
	}
	if c.Server.Name != mcpgoServerName || c.Server.Version != mcpgoServerVersion {
		t.Errorf("Server = %+v", c.Server)
	}
	if declared, known := c.Declares(spec.Server, "tools.listChanged", true); !known || !declared {
		t.Errorf("the contract does not show tools.listChanged declared: %s", c.ServerCaps)
	}
}

// TestMCPGoListChangedNotified: mcp-go's AddTool sends notifications/tools/list_changed
// by itself when listChanged is declared. The list changes, the notification
// comes between the two lists: MCP2005 must stay silent.
func TestMCPGoListChangedNotified(t *testing.T) {
	for _, cf := range listClients {
		t.Run(cf.name, func(t *testing.T) {
			run := runListChange(t, cf, "add-tool", true)
			var res *driver.InputResult
			logOnFailure(t, "capture", run.capture.Bytes, func() *driver.InputResult { return res })
			if slices.Contains(run.before, "added-tool") || !slices.Contains(run.after, "added-tool") {
				t.Fatalf("tool lists %v then %v: added-tool did not appear", run.before, run.after)
			}
			first, second := listResults(t, run.capture)
			if !slices.Contains(toolNames(t, second.Msg), "added-tool") {
				t.Fatalf("the second tools/list result on the wire (line %d) lacks added-tool", second.N)
			}
			var between []int
			for _, n := range run.capture.Requests("notifications/tools/list_changed") {
				if n.Dir == S2C && n.N > first.N && n.N < second.N {
					between = append(between, n.N)
				}
			}
			if len(between) == 0 {
				t.Fatalf("no notifications/tools/list_changed between lines %d and %d", first.N, second.N)
			}

			res = analyse(t, cf.name+"-notified.jsonl", run.capture.Bytes())
			s := onlySession(t, res)
			checkMCPGoContract(t, s)
			if f := findingsOf(s, "MCP2005"); len(f) != 0 {
				t.Errorf("MCP2005 although notifications/tools/list_changed came at line(s) %v: %v", between, f)
			}
			noLoudFindingsExcept(t, s, nil)
		})
	}
}

// TestMCPGoListChangedSilently: the tool list changes through a tool filter, which
// mcp-go cannot notice, so no notification is sent although tools.listChanged was
// declared. MCP2005 must fire at the second tools/list result.
func TestMCPGoListChangedSilently(t *testing.T) {
	for _, cf := range listClients {
		t.Run(cf.name, func(t *testing.T) {
			run := runListChange(t, cf, "reveal-hidden", false)
			var res *driver.InputResult
			logOnFailure(t, "capture", run.capture.Bytes, func() *driver.InputResult { return res })
			if run.notified || len(run.capture.Requests("notifications/tools/list_changed")) != 0 {
				t.Fatalf("a list_changed notification was sent: this is not the silent case")
			}
			if slices.Contains(run.before, "hidden-tool") || !slices.Contains(run.after, "hidden-tool") {
				t.Fatalf("tool lists %v then %v: hidden-tool did not appear", run.before, run.after)
			}
			first, second := listResults(t, run.capture)
			if !slices.Contains(toolNames(t, second.Msg), "hidden-tool") || slices.Contains(toolNames(t, first.Msg), "hidden-tool") {
				t.Fatalf("the wire does not show hidden-tool appearing between lines %d and %d", first.N, second.N)
			}

			res = analyse(t, cf.name+"-silent.jsonl", run.capture.Bytes())
			s := onlySession(t, res)
			checkMCPGoContract(t, s)
			got := findingsOf(s, "MCP2005")
			if len(got) != 1 {
				t.Fatalf("got %d MCP2005 findings, want 1 at line %d: %v", len(got), second.N, got)
			}
			f := got[0]
			if f.Line != second.N {
				t.Errorf("MCP2005 at line %d, want %d (the second tools/list result)", f.Line, second.N)
			}
			if f.Name != "list-changed-silently" || f.Severity != rule.SeverityError {
				t.Errorf("MCP2005 = %s [%s], want list-changed-silently [error] under %s", f.Name, f.Severity, legacyRevision)
			}
			for _, want := range []string{"tools/list", "hidden-tool", "notifications/tools/list_changed", "listChanged"} {
				if !strings.Contains(f.Message, want) {
					t.Errorf("MCP2005 message lacks %q: %s", want, f.Message)
				}
			}
			if !slices.ContainsFunc(f.Related, func(r rule.Related) bool { return r.Line == first.N }) {
				t.Errorf("MCP2005 does not point at the earlier list (line %d): %+v", first.N, f.Related)
			}
			noLoudFindingsExcept(t, s, func(x rule.Finding) bool { return x.Rule == "MCP2005" && x.Line == second.N })
		})
	}
}
