package sdktest

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// A cancelled call: the client gives up on a long tool call (its context is
// cancelled), the Go SDK sends notifications/cancelled for its own in-flight
// request, and the server, whose handler only returns once it sees the
// cancellation, answers late.

// allRevisions: the handshake revisions, then "" (the Go SDK's default,
// 2026-07-28).
var allRevisions = append(append([]string(nil), handshakeRevisions...), "")

func revisionName(pin string) string {
	if pin == "" {
		return "default-" + modernRevision
	}
	return pin
}

// requireRevision checks the session was judged under the revision pinned ("" =
// 2026-07-28).
func requireRevision(t *testing.T, s *rule.SessionResult, pin string) {
	t.Helper()
	if pin == "" {
		requireModern(t, s)
		return
	}
	requireLegacy(t, s, pin)
}

// newSlowGoServer has echo and a "slow" tool that signals started and then
// blocks until its request is cancelled.
func newSlowGoServer(started chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(goServerImpl, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back"},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "Run until cancelled"},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			signal(started)
			<-ctx.Done()
			return nil, nil, ctx.Err()
		})
	return s
}

type cancelRun struct {
	p                  *goPair
	call, cancel, late Line
}

// runCancelledCall cancels a slow call once the server is working on it, waits
// for the cancellation and the server's late answer, then makes one more call.
func runCancelledCall(t *testing.T, pin string) *cancelRun {
	t.Helper()
	started := make(chan struct{}, 1)
	p := connectGoPair(t, newSlowGoServer(started), nil, pin)
	if got := p.cs.InitializeResult().ProtocolVersion; pin == "" && got != modernRevision {
		t.Fatalf("the SDK negotiated %q by default, want %s", got, modernRevision)
	}
	callCtx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := p.cs.CallTool(callCtx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{}})
		errc <- err
	}()
	select {
	case <-started:
	case <-p.ctx.Done():
		t.Fatal("the slow tool never started")
	}
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v, want context.Canceled", err)
	}
	r := &cancelRun{p: p}
	r.call = only(t, p.capture, "tools/call slow", sent(C2S, "tools/call"))
	r.cancel = p.await("notifications/cancelled for the slow call", cancels(r.call))
	r.late = p.await("the server's answer to the cancelled call", answers(r.call))
	if r.late.N < r.cancel.N {
		t.Fatalf("the server answered (line %d) before the cancellation (line %d): not the late-answer case", r.late.N, r.cancel.N)
	}
	if res, err := p.cs.CallTool(p.ctx, echoCall()); err != nil || res.IsError {
		t.Fatalf("echo after the cancelled call: %v", err)
	}
	return r
}

// TestGoSDKCancelledCall: nothing in the exchange is wrong. The cancellation
// names the client's own in-flight request (no MCP3005), a cancelled request is
// not an unanswered one (no MCP3001), and the late answer is a response to a
// request that was sent, not an unknown one (no MCP3002).
func TestGoSDKCancelledCall(t *testing.T) {
	for _, pin := range allRevisions {
		t.Run(revisionName(pin), func(t *testing.T) {
			r := runCancelledCall(t, pin)
			s := r.p.analyse("cancelled-" + revisionName(pin) + ".jsonl")
			requireRevision(t, s, pin)
			forbid(t, s, "the client cancelled its own in-flight tools/call and the server answered late",
				"MCP3001", "MCP3002", "MCP3005", "MCP3003")
			noLoudFindingsExcept(t, s, nil)
		})
	}
}

// TestGoSDKCancelledCallCaptureEnds: the same capture, cut just before the
// server's late answer (the recording stopped while the server was still
// unwinding). The request stays unanswered, but its sender cancelled it: still
// no MCP3001, no MCP3005.
func TestGoSDKCancelledCallCaptureEnds(t *testing.T) {
	for _, pin := range allRevisions {
		t.Run(revisionName(pin), func(t *testing.T) {
			r := runCancelledCall(t, pin)
			r.p.close()
			cut := prefixLines(r.p.capture.Bytes(), r.late.N-1)
			res := analyse(t, "cancelled-cut.jsonl", cut)
			logOnFailure(t, "capture cut before the late answer", func() []byte { return cut }, func() *driver.InputResult { return res })
			s := onlySession(t, res)
			requireRevision(t, s, pin)
			if s.Session.LastLine != r.late.N-1 {
				t.Fatalf("session ends at line %d, want %d", s.Session.LastLine, r.late.N-1)
			}
			forbid(t, s, "the only unanswered request was cancelled by its sender", "MCP3001", "MCP3002", "MCP3005")
			noLoudFindingsExcept(t, s, nil)
		})
	}
}
