package sdktest

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Resource subscriptions in the handshake era: resources/subscribe,
// notifications/resources/updated, resources/unsubscribe, as the SDKs really
// exchange them.

const (
	todoURI  = "file:///notes/todo.md"
	otherURI = "file:///notes/other.md"
)

// handshakeRevisions are the published revisions with an initialize handshake,
// all of which have resources/subscribe.
var handshakeRevisions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// notesServer is a Go SDK server with one text resource whose contents the test
// changes, and subscribe/unsubscribe handlers (so it declares resources.subscribe).
type notesServer struct {
	srv  *mcp.Server
	mu   sync.Mutex
	text string
}

func newNotesServer() *notesServer {
	n := &notesServer{text: "- buy milk"}
	accept := func(context.Context, *mcp.SubscribeRequest) error { return nil }
	n.srv = mcp.NewServer(goServerImpl, &mcp.ServerOptions{
		SubscribeHandler:   accept,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	n.srv.AddResource(&mcp.Resource{URI: todoURI, Name: "todo", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: n.get()}}}, nil
		})
	mcp.AddTool(n.srv, &mcp.Tool{Name: "echo", Description: "Echo the text back"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	return n
}

func (n *notesServer) get() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.text
}

func (n *notesServer) set(text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.text = text
}

// read reads todoURI and returns the resources/read request frame.
func (p *goPair) read(uri string) Line {
	p.t.Helper()
	before := len(p.capture.Lines())
	if _, err := p.cs.ReadResource(p.ctx, &mcp.ReadResourceParams{URI: uri}); err != nil {
		p.t.Fatalf("resources/read %s: %v", uri, err)
	}
	return only(p.t, p.capture, "resources/read", and(after(before), sent(C2S, "resources/read")))
}

// response returns the response to req, failing when there is none.
func (p *goPair) response(req Line) Line {
	p.t.Helper()
	res, ok := p.capture.ResponseTo(req)
	if !ok {
		p.t.Fatalf("%s at line %d has no response", req.Method(), req.N)
	}
	return res
}

// TestGoSDKResourceSubscribe: a Go SDK client subscribes to a resource, the
// server announces a change with Server.ResourceUpdated, the client re-reads,
// unsubscribes, and a later change is (rightly) not announced. Every promise is
// kept: nothing at warning level or above, and neither MCP2006 nor MCP2011.
func TestGoSDKResourceSubscribe(t *testing.T) {
	for _, rev := range handshakeRevisions {
		t.Run(rev, func(t *testing.T) {
			n := newNotesServer()
			p := connectGoPair(t, n.srv, nil, rev)
			if _, err := p.cs.ListResources(p.ctx, nil); err != nil {
				t.Fatalf("resources/list: %v", err)
			}
			p.read(todoURI) // before subscribing: promises nothing
			if err := p.cs.Subscribe(p.ctx, &mcp.SubscribeParams{URI: todoURI}); err != nil {
				t.Fatalf("resources/subscribe: %v", err)
			}
			first := p.read(todoURI)

			n.set("- buy milk\n- buy eggs")
			if err := n.srv.ResourceUpdated(p.ctx, &mcp.ResourceUpdatedNotificationParams{URI: todoURI}); err != nil {
				t.Fatalf("ResourceUpdated: %v", err)
			}
			updated := p.await("notifications/resources/updated", sent(S2C, "notifications/resources/updated"))
			second := p.read(todoURI)

			if err := p.cs.Unsubscribe(p.ctx, &mcp.UnsubscribeParams{URI: todoURI}); err != nil {
				t.Fatalf("resources/unsubscribe: %v", err)
			}
			n.set("- buy milk\n- buy eggs\n- call mum")
			if err := n.srv.ResourceUpdated(p.ctx, &mcp.ResourceUpdatedNotificationParams{URI: todoURI}); err != nil {
				t.Fatalf("ResourceUpdated after unsubscribe: %v", err)
			}
			third := p.read(todoURI) // after unsubscribing: promises nothing either

			// What the SDKs exchanged.
			sub := only(t, p.capture, "resources/subscribe", sent(C2S, "resources/subscribe"))
			unsub := only(t, p.capture, "resources/unsubscribe", sent(C2S, "resources/unsubscribe"))
			subRes, unsubRes := p.response(sub), p.response(unsub)
			if got := only(t, p.capture, "notifications/resources/updated", sent(S2C, "notifications/resources/updated")); got.N != updated.N {
				t.Fatalf("updated at line %d, awaited at %d", got.N, updated.N)
			}
			if !(subRes.N < updated.N && updated.N < second.N && second.N < unsub.N && unsubRes.N < third.N) {
				t.Fatalf("unexpected order: subscribe result %d, updated %d, second read %d, unsubscribe %d/%d, third read %d",
					subRes.N, updated.N, second.N, unsub.N, unsubRes.N, third.N)
			}
			if memberString(t, updated.Msg, "params", "uri") != todoURI {
				t.Fatalf("updated for %s", updated.Msg)
			}
			if sameJSON(t, member(t, p.response(first).Msg, "result", "contents"), member(t, p.response(second).Msg, "result", "contents")) {
				t.Fatalf("the two subscribed reads (lines %d, %d) returned the same contents: the change did not reach the wire", first.N, second.N)
			}

			s := p.analyse("subscribe-" + rev + ".jsonl")
			requireLegacy(t, s, rev)
			forbid(t, s, "every update came between a subscribe and its unsubscribe, for the subscribed URI",
				"MCP2006", "MCP2011", "MCP2001", "MCP2002", "MCP2004", "MCP3001", "MCP3002")
			noLoudFindingsExcept(t, s, nil)
		})
	}
}

// TestGoSDKResourceChangedWithoutUpdate: the server's resource changes while the
// client is subscribed, and the server never calls ResourceUpdated. The client's
// second read shows the change: MCP2011 at that read's result.
func TestGoSDKResourceChangedWithoutUpdate(t *testing.T) {
	for _, rev := range handshakeRevisions {
		t.Run(rev, func(t *testing.T) {
			n := newNotesServer()
			p := connectGoPair(t, n.srv, nil, rev)
			if err := p.cs.Subscribe(p.ctx, &mcp.SubscribeParams{URI: todoURI}); err != nil {
				t.Fatalf("resources/subscribe: %v", err)
			}
			first := p.read(todoURI)
			n.set("- buy milk\n- buy eggs") // and no ResourceUpdated
			second := p.read(todoURI)

			sub := only(t, p.capture, "resources/subscribe", sent(C2S, "resources/subscribe"))
			if len(p.capture.Requests("notifications/resources/updated")) != 0 {
				t.Fatal("the server sent notifications/resources/updated: this is not the silent case")
			}
			firstRes, secondRes := p.response(first), p.response(second)

			s := p.analyse("changed-silently-" + rev + ".jsonl")
			requireLegacy(t, s, rev)
			f := expectFinding(t, s, "MCP2011", secondRes.N, capabilityScaled(rev),
				"resources/read of "+strconv.Quote(todoURI),
				fmt.Sprintf("at line %d", secondRes.N),
				fmt.Sprintf("than at line %d", firstRes.N),
				"no notifications/resources/updated",
				fmt.Sprintf("resources/subscribe at line %d", sub.N))
			if f.Rule != "" && f.Name != "update-not-notified" {
				t.Errorf("MCP2011 name = %q", f.Name)
			}
			noLoudFindingsExcept(t, s, at("MCP2011", secondRes.N))
		})
	}
}

// newMCPGoNotesServer is an mcp-go server declaring resources.subscribe whose
// "touch" tool announces a change of any URI the way mcp-go servers do it:
// SendNotificationToClient with notifications/resources/updated. mcp-go keeps
// no subscription table, so nothing stops it from announcing URIs the client
// never subscribed to, or no longer is subscribed to.
func newMCPGoNotesServer() *mgserver.MCPServer {
	srv := mgserver.NewMCPServer(mcpgoServerName, mcpgoServerVersion,
		mgserver.WithResourceCapabilities(true, false), mgserver.WithToolCapabilities(false))
	for _, uri := range []string{todoURI, otherURI} {
		srv.AddResource(mgmcp.NewResource(uri, uri, mgmcp.WithMIMEType("text/markdown")),
			func(_ context.Context, req mgmcp.ReadResourceRequest) ([]mgmcp.ResourceContents, error) {
				return []mgmcp.ResourceContents{mgmcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown", Text: "- buy milk"}}, nil
			})
	}
	srv.AddTool(mgmcp.NewTool("touch", mgmcp.WithDescription("Announce a change of a resource"), mgmcp.WithString("uri", mgmcp.Required())),
		func(ctx context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			uri := req.GetString("uri", "")
			if err := srv.SendNotificationToClient(ctx, mgmcp.MethodNotificationResourceUpdated, map[string]any{"uri": uri}); err != nil {
				return mgmcp.NewToolResultError("notify: " + err.Error()), nil
			}
			return mgmcp.NewToolResultText("touched " + uri), nil
		})
	return srv
}

// TestMCPGoUpdateWithoutSubscribe: a Go SDK client subscribes to todo.md on an
// mcp-go server. The server announces todo.md (fine), then other.md (never
// subscribed: MCP2006), then, after the client unsubscribed, todo.md again
// (MCP2006, naming the unsubscribe).
func TestMCPGoUpdateWithoutSubscribe(t *testing.T) {
	ctx := testContext(t)
	capture := &Capture{}
	var res *driver.InputResult
	logOnFailure(t, "capture", capture.Bytes, func() *driver.InputResult { return res })
	srv := serveMCPGo(t, ctx, newMCPGoNotesServer(), capture)
	cs := srv.connectGoClient(t, ctx, nil, legacyRevision)

	touch := func(uri string) Line {
		t.Helper()
		before := len(capture.Lines())
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "touch", Arguments: map[string]any{"uri": uri}})
		if err != nil || r.IsError {
			t.Fatalf("touch %s: %v %+v", uri, err, r)
		}
		// mcp-go writes notifications from their own goroutine: the update may
		// follow the tool's result.
		l, err := capture.Await(ctx, and(after(before), sent(S2C, "notifications/resources/updated"), paramIs("uri", uri)))
		if err != nil {
			t.Fatalf("no notifications/resources/updated for %s: %v", uri, err)
		}
		return l
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: todoURI}); err != nil {
		t.Fatalf("resources/subscribe: %v", err)
	}
	subscribed := touch(todoURI)
	never := touch(otherURI)
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: todoURI}); err != nil {
		t.Fatalf("resources/unsubscribe: %v", err)
	}
	afterUnsub := touch(todoURI)
	if err := cs.Close(); err != nil {
		t.Logf("client close: %v", err)
	}
	srv.wait(ctx)

	sub := only(t, capture, "resources/subscribe", sent(C2S, "resources/subscribe"))
	unsub := only(t, capture, "resources/unsubscribe", sent(C2S, "resources/unsubscribe"))
	subRes, ok := capture.ResponseTo(sub)
	if !ok || subRes.N > subscribed.N {
		t.Fatalf("the subscribe (line %d) was not answered before the first update (line %d)", sub.N, subscribed.N)
	}
	unsubRes, ok := capture.ResponseTo(unsub)
	if !ok || unsubRes.N > afterUnsub.N {
		t.Fatalf("the unsubscribe (line %d) was not answered before the last update (line %d)", unsub.N, afterUnsub.N)
	}

	res = analyse(t, "mcpgo-update-without-subscribe.jsonl", capture.Bytes())
	s := onlySession(t, res)
	requireLegacy(t, s, legacyRevision)
	expectFinding(t, s, "MCP2006", never.N, rule.SeverityWarning,
		"notifications/resources/updated for "+strconv.Quote(otherURI),
		"never sent resources/subscribe for it",
		"subscribed URIs: "+strconv.Quote(todoURI))
	expectFinding(t, s, "MCP2006", afterUnsub.N, rule.SeverityWarning,
		"notifications/resources/updated for "+strconv.Quote(todoURI),
		fmt.Sprintf("the client unsubscribed (resources/unsubscribe id=%s at line %d, answered at line %d)", unsub.ID(), unsub.N, unsubRes.N),
		"subscribed URIs: none")
	if got := findingsOf(s, "MCP2006"); len(got) != 2 {
		t.Errorf("want MCP2006 at lines %d and %d only (not at %d, the subscribed update), got:\n%s", never.N, afterUnsub.N, subscribed.N, describeFindings(got))
	}
	noLoudFindingsExcept(t, s, anyOf(at("MCP2006", never.N), at("MCP2006", afterUnsub.N)))
}
