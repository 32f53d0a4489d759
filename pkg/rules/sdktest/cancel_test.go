package sdktest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
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

// steppedClock is a capture clock that moves only when the test moves it: the
// times between frames are then what the test says, however loaded the machine.
type steppedClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *steppedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *steppedClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// TestGoSDKToolThatIgnoresCancellation: a Go SDK server whose tool does its work
// detached from the request's context (as a framework that replaces the SDK's
// cancellation handling does, mcp-framework): the client cancels the call, and the
// tool still reports progress and answers 1.4 s later. MCP3009 names the server at
// the first progress after the cancellation; the cancellation itself was proper (no
// MCP3005), and the late answer is no unknown response (no MCP3002). The Go SDK
// server whose tool stops on its context (TestGoSDKCancelledCall) is the silent twin.
func TestGoSDKToolThatIgnoresCancellation(t *testing.T) {
	started, resume := make(chan struct{}, 1), make(chan struct{})
	s := mcp.NewServer(goServerImpl, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "report", Description: "Build a report, reporting progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			work := context.WithoutCancel(ctx) // the defect: the work does not see the cancellation
			progress := func(n float64) {
				if err := req.Session.NotifyProgress(work, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: n, Total: 3}); err != nil {
					t.Errorf("progress %v: %v", n, err)
				}
			}
			progress(1)
			signal(started)
			<-resume
			progress(2)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "report ready"}}}, nil, nil
		})
	p := connectGoPair(t, s, nil, "2025-06-18")
	clock := &steppedClock{now: time.Now().Add(time.Second)}
	p.capture.SetClock(clock.Now)

	callCtx, cancel := context.WithCancel(p.ctx)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "report", Arguments: map[string]any{}}
		params.SetProgressToken("report-1")
		_, err := p.cs.CallTool(callCtx, params)
		errc <- err
	}()
	select {
	case <-started:
	case <-p.ctx.Done():
		t.Fatal("the report tool never started")
	}
	call := only(t, p.capture, "tools/call report", sent(C2S, "tools/call"))
	// The first progress is in the capture before the cancellation: NotifyProgress
	// returns once the server wrote it, which can be before the capture took it
	// (CI once recorded it after the cancellation, two progress notifications late).
	p.await("the progress before the cancellation", sent(S2C, "notifications/progress"))
	clock.Advance(time.Second)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled call returned %v, want context.Canceled", err)
	}
	cancelled := p.await("notifications/cancelled for the report", cancels(call))
	clock.Advance(1400 * time.Millisecond)
	close(resume)
	late := p.await("the server's answer to the cancelled call", answers(call))
	progress := only(t, p.capture, "progress after the cancellation", and(sent(S2C, "notifications/progress"), after(cancelled.N)))
	if progress.N > late.N {
		t.Fatalf("progress (line %d) after the answer (line %d): not the case under test", progress.N, late.N)
	}

	res := p.analyse("work-after-cancel.jsonl")
	f := expectFinding(t, res, "MCP3009", progress.N, rule.SeverityWarning,
		fmt.Sprintf("the server sent progress for the client's tools/call id=%s (line %d) 1.4s after the client cancelled it (line %d): the work went on", call.ID(), call.N, cancelled.N))
	if f.Party != spec.Server {
		t.Errorf("MCP3009 names %v at fault, want the server", f.Party)
	}
	forbid(t, res, "the client cancelled its own call in flight; the late answer answers it", "MCP3001", "MCP3002", "MCP3005")
	noLoudFindingsExcept(t, res, at("MCP3009", progress.N))
}
