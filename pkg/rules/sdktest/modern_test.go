package sdktest

//lint:file-ignore SA1019 logging and sampling are deprecated as of 2026-07-28 (SEP-2577), not removed: these sessions exercise their gates

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// The 2026-07-28 era as the SDKs speak it by default: server/discover instead of
// initialize, _meta on every request, change notifications only on
// subscriptions/listen streams.

// acknowledges matches the notifications/subscriptions/acknowledged of listen.
func acknowledges(listen Line) func(Line) bool {
	return and(sent(S2C, "notifications/subscriptions/acknowledged"), func(l Line) bool { return subscriptionID(l) == listen.ID() })
}

// TestGoSDKModernSubscriptions: a Go SDK client and server at their defaults.
// The client discovers the server, opens a subscriptions/listen stream for tool
// list changes (it has a ToolListChangedHandler), lists and calls tools, reads a
// resource, subscribes to it (a second listen stream, resourceSubscriptions),
// the server adds a tool and updates the resource, each announced on its
// stream, and the client unsubscribes (cancelling that stream). One modern
// session, nothing at warning level or above: in particular no MCP1012 (every
// request carries its _meta), no MCP1008 (no legacy-only method), no MCP2009
// (each notification on the stream that granted it), no MCP3005 (the client
// cancels its own listen request).
func TestGoSDKModernSubscriptions(t *testing.T) {
	n := newNotesServer()
	mcp.AddTool(n.srv, &mcp.Tool{Name: "add-tool", Description: "Register added-tool at runtime"},
		func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(n.srv, &mcp.Tool{Name: "added-tool", Description: "Registered at runtime"},
				func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added"}}}, nil, nil
				})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added-tool registered"}}}, nil, nil
		})
	toolsChanged, resourceUpdated := make(chan struct{}, 1), make(chan struct{}, 1)
	p := connectGoPair(t, n.srv, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { signal(toolsChanged) },
		ResourceUpdatedHandler: func(context.Context, *mcp.ResourceUpdatedNotificationRequest) { signal(resourceUpdated) },
	}, "")
	if got := p.cs.InitializeResult().ProtocolVersion; got != modernRevision {
		t.Fatalf("the SDK negotiated %q by default, want %s", got, modernRevision)
	}
	wait := func(what string, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-p.ctx.Done():
			t.Fatalf("the client's handler never saw %s", what)
		}
	}

	toolsListen := only(t, p.capture, "subscriptions/listen opened by Connect", sent(C2S, "subscriptions/listen"))
	toolsAck := p.await("the tools stream's acknowledgement", acknowledges(toolsListen))
	first, err := p.cs.ListTools(p.ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if _, err := p.cs.CallTool(p.ctx, echoCall()); err != nil {
		t.Fatalf("tools/call echo: %v", err)
	}
	if _, err := p.cs.ListResources(p.ctx, nil); err != nil {
		t.Fatalf("resources/list: %v", err)
	}
	p.read(todoURI)

	before := len(p.capture.Lines())
	if err := p.cs.Subscribe(p.ctx, &mcp.SubscribeParams{URI: todoURI}); err != nil {
		t.Fatalf("Subscribe: %v", err)
	}
	resourceListen := p.await("the resource's subscriptions/listen", and(after(before), sent(C2S, "subscriptions/listen")))
	resourceAck := p.await("the resource stream's acknowledgement", acknowledges(resourceListen))

	if _, err := p.cs.CallTool(p.ctx, &mcp.CallToolParams{Name: "add-tool", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("tools/call add-tool: %v", err)
	}
	wait("notifications/tools/list_changed", toolsChanged)
	second, err := p.cs.ListTools(p.ctx, nil)
	if err != nil {
		t.Fatalf("second tools/list: %v", err)
	}
	if len(second.Tools) != len(first.Tools)+1 {
		t.Fatalf("tools/list returned %d tools, then %d", len(first.Tools), len(second.Tools))
	}

	n.set("- buy milk\n- buy eggs")
	if err := n.srv.ResourceUpdated(p.ctx, &mcp.ResourceUpdatedNotificationParams{URI: todoURI}); err != nil {
		t.Fatalf("ResourceUpdated: %v", err)
	}
	wait("notifications/resources/updated", resourceUpdated)
	p.read(todoURI)

	if err := p.cs.Unsubscribe(p.ctx, &mcp.UnsubscribeParams{URI: todoURI}); err != nil {
		t.Fatalf("Unsubscribe: %v", err)
	}
	unsubscribed := p.await("the cancellation of the resource's stream", cancels(resourceListen))
	closed := p.await("the server closing the resource's stream", answers(resourceListen))

	// What the SDKs exchanged.
	if len(p.capture.Requests("initialize")) != 0 || len(p.capture.Requests("resources/subscribe")) != 0 {
		t.Fatal("a 2026-07-28 session sent initialize or resources/subscribe")
	}
	discover := only(t, p.capture, "server/discover", sent(C2S, "server/discover"))
	changed := only(t, p.capture, "notifications/tools/list_changed", sent(S2C, "notifications/tools/list_changed"))
	updated := only(t, p.capture, "notifications/resources/updated", sent(S2C, "notifications/resources/updated"))
	if changed.N < toolsAck.N || subscriptionID(changed) != toolsListen.ID() {
		t.Fatalf("list_changed (line %d, subscriptionId %s) is not on the tools stream (listen id %s, acknowledged at line %d)",
			changed.N, subscriptionID(changed), toolsListen.ID(), toolsAck.N)
	}
	if updated.N < resourceAck.N || subscriptionID(updated) != resourceListen.ID() {
		t.Fatalf("resources/updated (line %d, subscriptionId %s) is not on the resource stream (listen id %s, acknowledged at line %d)",
			updated.N, subscriptionID(updated), resourceListen.ID(), resourceAck.N)
	}
	for _, l := range p.capture.Find(func(l Line) bool { return l.Dir == C2S && l.ID() != "" && !l.IsResponse() }) {
		member(t, l.Msg, "params", "_meta", "io.modelcontextprotocol/protocolVersion")
		member(t, l.Msg, "params", "_meta", "io.modelcontextprotocol/clientCapabilities")
	}
	t.Logf("discover line %d; tools stream %d (ack %d, list_changed %d); resource stream %d (ack %d, updated %d, cancelled %d, closed %d)",
		discover.N, toolsListen.N, toolsAck.N, changed.N, resourceListen.N, resourceAck.N, updated.N, unsubscribed.N, closed.N)

	s := p.analyse("modern-subscriptions.jsonl")
	requireModern(t, s)
	forbid(t, s, "healthy 2026-07-28 traffic of the Go SDK",
		"MCP1012", "MCP1008", "MCP2009", "MCP2005", "MCP2001", "MCP2002", "MCP3001", "MCP3002", "MCP3005", "MCP3007")
	noLoudFindingsExcept(t, s, nil)
}

// TestMCPGoModernListChanged: a Go SDK client at its default discovers an
// mcp-go v1.2.1 stdio server, which speaks 2026-07-28. When a tool is added,
// mcp-go broadcasts notifications/tools/list_changed on the session's plain
// stream with no _meta subscriptionId: with no listen stream open (the client
// has no ToolListChangedHandler) there is nowhere it may go, and with one open
// it still lacks the stream's id. Either way a real MCP2009.
func TestMCPGoModernListChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		listen bool // the client opens a subscriptions/listen stream for tool changes
	}{{"no-listen-stream", false}, {"listen-stream-open", true}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testContext(t)
			capture := &Capture{}
			var res *driver.InputResult
			logOnFailure(t, "capture", capture.Bytes, func() *driver.InputResult { return res })
			srv := serveMCPGo(t, ctx, newMCPGoServer().srv, capture)
			var opts *mcp.ClientOptions
			if tc.listen {
				opts = &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {}}
			}
			cs := srv.connectGoClient(t, ctx, opts, "")
			if got := cs.InitializeResult().ProtocolVersion; got != modernRevision {
				t.Fatalf("Go SDK client and mcp-go server negotiated %q, want %s", got, modernRevision)
			}
			opened := "this client opened none"
			if tc.listen {
				listen := only(t, capture, "subscriptions/listen", sent(C2S, "subscriptions/listen"))
				if _, err := capture.Await(ctx, acknowledges(listen)); err != nil {
					t.Fatalf("mcp-go never acknowledged the listen stream: %v", err)
				}
				opened = fmt.Sprintf("the client opened id %s at line %d", listen.ID(), listen.N)
			}
			first, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add-tool", Arguments: map[string]any{}}); err != nil {
				t.Fatalf("tools/call add-tool: %v", err)
			}
			changed, err := capture.Await(ctx, sent(S2C, "notifications/tools/list_changed"))
			if err != nil {
				t.Fatalf("mcp-go sent no notifications/tools/list_changed: %v", err)
			}
			second, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("second tools/list: %v", err)
			}
			if !slices.ContainsFunc(second.Tools, func(tool *mcp.Tool) bool { return tool.Name == "added-tool" }) || len(second.Tools) != len(first.Tools)+1 {
				t.Fatalf("added-tool did not appear in the second tools/list")
			}
			if err := cs.Close(); err != nil {
				t.Logf("client close: %v", err)
			}
			srv.wait(ctx)
			if len(capture.Requests("initialize")) != 0 || len(capture.Requests("server/discover")) != 1 {
				t.Fatal("want one server/discover and no initialize")
			}
			if id := subscriptionID(changed); id != "" {
				t.Fatalf("mcp-go tagged list_changed with subscriptionId %s: MCP2009 has nothing to report here", id)
			}

			res = analyse(t, "mcpgo-modern-"+tc.name+".jsonl", capture.Bytes())
			s := onlySession(t, res)
			requireModern(t, s)
			f := expectFinding(t, s, "MCP2009", changed.N, rule.SeverityError,
				"server sent notifications/tools/list_changed without _meta io.modelcontextprotocol/subscriptionId in a 2026-07-28 session",
				opened)
			if f.Rule != "" && f.Name != "unsubscribed-notification" {
				t.Errorf("MCP2009 name = %q", f.Name)
			}
			forbid(t, s, "the Go SDK client's requests all carry their _meta", "MCP1012")
			noLoudFindingsExcept(t, s, at("MCP2009", changed.N))
		})
	}
}

// TestGoSDKModernLogging: logging in 2026-07-28 is per request: the client asks
// for log messages with _meta io.modelcontextprotocol/logLevel on the tool call,
// and the server's ServerSession.Log and slog bridge send notifications/message
// for that request only. A call without a logLevel gets none. Healthy: no
// MCP2001 (the server declared logging in its discover result), no MCP1008.
func TestGoSDKModernLogging(t *testing.T) {
	p := connectGoPair(t, newLoggingGoServer(nil), nil, "")
	if got := p.cs.InitializeResult().ProtocolVersion; got != modernRevision {
		t.Fatalf("the SDK negotiated %q by default, want %s", got, modernRevision)
	}
	call := func(meta mcp.Meta) Line {
		t.Helper()
		before := len(p.capture.Lines())
		if r, err := p.cs.CallTool(p.ctx, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{}, Meta: meta}); err != nil || r.IsError {
			t.Fatalf("tools/call log: %v %+v", err, r)
		}
		return only(t, p.capture, "tools/call log", and(after(before), sent(C2S, "tools/call")))
	}
	quiet := call(nil)
	quietRes := p.response(quiet)
	if got := p.capture.Find(sent(S2C, "notifications/message")); len(got) != 0 {
		t.Fatalf("the server logged (line %d) for a request without a logLevel", got[0].N)
	}
	loud := call(mcp.Meta{"io.modelcontextprotocol/logLevel": "info"})
	loudRes := p.response(loud)
	levels, messages := logLevels(t, p.capture)
	if !slices.Equal(levels, []string{"info", "warning"}) {
		t.Fatalf("the server logged %v for a request at info, want [info warning]", levels)
	}
	for _, m := range messages {
		if m.N < loud.N || m.N > loudRes.N {
			t.Fatalf("log message at line %d is outside its request (lines %d-%d)", m.N, loud.N, loudRes.N)
		}
	}
	if len(p.capture.Requests("logging/setLevel")) != 0 {
		t.Fatal("logging/setLevel on the wire")
	}
	t.Logf("quiet call lines %d-%d, logged call lines %d-%d", quiet.N, quietRes.N, loud.N, loudRes.N)

	s := p.analyse("modern-logging.jsonl")
	requireModern(t, s)
	forbid(t, s, "per-request logging declared in the discover result", "MCP2001", "MCP1008", "MCP1012", "MCP2009")
	noLoudFindingsExcept(t, s, nil)
}

// TestGoSDKModernRemovedMethods: ClientSession.SetLoggingLevel and Ping do not
// check the negotiated revision: in a 2026-07-28 session they send
// logging/setLevel and ping, which that revision removed, and without the _meta
// every 2026-07-28 request must carry (the server answers both anyway). Real
// violations: MCP1008 at each of the two requests. The missing _meta has the same
// cause (a method of the old era, sent the old way): one cause, one finding, so
// MCP1012 leaves them to MCP1008.
func TestGoSDKModernRemovedMethods(t *testing.T) {
	p := connectGoPair(t, newLoggingGoServer(nil), nil, "")
	if got := p.cs.InitializeResult().ProtocolVersion; got != modernRevision {
		t.Fatalf("the SDK negotiated %q by default, want %s", got, modernRevision)
	}
	if err := p.cs.SetLoggingLevel(p.ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	if err := p.cs.Ping(p.ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	if _, err := p.cs.CallTool(p.ctx, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{}}); err != nil {
		t.Fatalf("tools/call log: %v", err)
	}
	setLevel := only(t, p.capture, "logging/setLevel", sent(C2S, "logging/setLevel"))
	ping := only(t, p.capture, "ping", sent(C2S, "ping"))

	s := p.analyse("modern-removed-methods.jsonl")
	requireModern(t, s)
	var keep []func(rule.Finding) bool
	for _, req := range []Line{setLevel, ping} {
		method := req.Method()
		expectFinding(t, s, "MCP1008", req.N, rule.SeverityError,
			"client sent "+method+" id="+req.ID()+", which "+modernRevision+" does not have", "it exists in 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25")
		keep = append(keep, at("MCP1008", req.N))
	}
	forbid(t, s, "a removed method's missing _meta, MCP1008's finding", "MCP1012")
	noLoudFindingsExcept(t, s, anyOf(keep...))
}
