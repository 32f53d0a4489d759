package sdktest

//lint:file-ignore SA1019 logging and sampling are deprecated as of 2026-07-28 (SEP-2577), not removed: these sessions exercise their gates

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
)

// Progress: the client passes a progress token in the tool call's
// _meta.progressToken and the server's tool reports progress with
// ServerSession.NotifyProgress.

const progressTotal = 4

// newProgressGoServer has a "count" tool that reports progress 1..3 of 4 for
// the request's token, then returns.
func newProgressGoServer() *mcp.Server {
	s := mcp.NewServer(goServerImpl, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "count", Description: "Count to three, reporting progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			if token == nil {
				return nil, nil, fmt.Errorf("no progress token")
			}
			for i := 1; i < progressTotal; i++ {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: progressTotal, Message: fmt.Sprintf("step %d", i),
				}); err != nil {
					return nil, nil, fmt.Errorf("progress: %w", err)
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "counted"}}}, nil, nil
		})
	return s
}

type progressRun struct {
	p        *goPair
	call     Line
	result   Line
	progress []Line   // the notifications/progress frames, in capture order
	received []string // progress values the client's handler saw
}

// runProgress calls count with token; lateProgress makes the server report
// once more, with the same token, after the client has the tool's result.
func runProgress(t *testing.T, pin string, token any, lateProgress bool) *progressRun {
	t.Helper()
	var mu sync.Mutex
	r := &progressRun{}
	r.p = connectGoPair(t, newProgressGoServer(), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			r.received = append(r.received, fmt.Sprint(req.Params.Progress))
		},
	}, pin)
	p := r.p
	params := &mcp.CallToolParams{Name: "count", Arguments: map[string]any{}}
	params.SetProgressToken(token)
	res, err := p.cs.CallTool(p.ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("tools/call count: %v %+v", err, res)
	}
	r.call = only(t, p.capture, "tools/call count", sent(C2S, "tools/call"))
	r.result = p.response(r.call)
	if lateProgress {
		if err := p.ss.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: progressTotal, Total: progressTotal, Message: "done, reported late",
		}); err != nil {
			t.Fatalf("late progress: %v", err)
		}
		p.await("the late progress", and(after(r.result.N), sent(S2C, "notifications/progress")))
	}
	p.close()
	r.progress = p.capture.Find(sent(S2C, "notifications/progress"))
	wantToken := string(member(t, r.call.Msg, "params", "_meta", "progressToken"))
	for _, l := range r.progress {
		if got := string(member(t, l.Msg, "params", "progressToken")); got != wantToken {
			t.Fatalf("progress at line %d carries token %s, the request %s", l.N, got, wantToken)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return r
}

var progressTokens = []struct {
	name  string
	token any
}{{"string-token", "sdktest-progress-1"}, {"integer-token", 7}}

// TestGoSDKProgress: three increasing progress notifications for the call's
// token, all before its result. No MCP3006, nothing loud.
func TestGoSDKProgress(t *testing.T) {
	for _, pin := range allRevisions {
		for _, tok := range progressTokens {
			t.Run(revisionName(pin)+"/"+tok.name, func(t *testing.T) {
				r := runProgress(t, pin, tok.token, false)
				if len(r.progress) != progressTotal-1 {
					t.Fatalf("%d progress notifications on the wire, want %d", len(r.progress), progressTotal-1)
				}
				for _, l := range r.progress {
					if l.N < r.call.N || l.N > r.result.N {
						t.Fatalf("progress at line %d is not between the call (line %d) and its result (line %d)", l.N, r.call.N, r.result.N)
					}
				}
				if !slices.Equal(r.received, []string{"1", "2", "3"}) {
					t.Errorf("the client's handler saw progress %v", r.received)
				}
				s := r.p.analyse("progress-" + revisionName(pin) + ".jsonl")
				requireRevision(t, s, pin)
				forbid(t, s, "progress for the call's own token, increasing, before its result", "MCP3006", "MCP3002", "MCP2001")
				noLoudFindingsExcept(t, s, nil)
			})
		}
	}
}

// TestGoSDKProgressAfterResponse: the same call, and then the server reports
// progress for the token once more after the call's result (a worker still
// running when the handler returned). MCP3006 at that notification, "after the
// response", pointing at the result; the three timely ones stay silent.
func TestGoSDKProgressAfterResponse(t *testing.T) {
	for _, pin := range allRevisions {
		for _, tok := range progressTokens {
			t.Run(revisionName(pin)+"/"+tok.name, func(t *testing.T) {
				r := runProgress(t, pin, tok.token, true)
				if len(r.progress) != progressTotal {
					t.Fatalf("%d progress notifications on the wire, want %d", len(r.progress), progressTotal)
				}
				late := r.progress[len(r.progress)-1]
				if late.N < r.result.N {
					t.Fatalf("the late progress (line %d) came before the result (line %d)", late.N, r.result.N)
				}
				s := r.p.analyse("progress-late-" + revisionName(pin) + ".jsonl")
				requireRevision(t, s, pin)
				token := string(member(t, r.call.Msg, "params", "_meta", "progressToken"))
				f := expectFinding(t, s, "MCP3006", late.N, rule.SeverityError,
					fmt.Sprintf("progress for token %s after the response to tools/call id=%s (line %d)", token, r.call.ID(), r.result.N),
					"progress must stop when the request completes")
				if !slices.ContainsFunc(f.Related, func(rel rule.Related) bool { return rel.Line == r.result.N }) {
					t.Errorf("MCP3006 does not point at the result (line %d): %+v", r.result.N, f.Related)
				}
				noLoudFindingsExcept(t, s, at("MCP3006", late.N))
			})
		}
	}
}

// newSamplingProgressGoServer has an "ask" tool that asks the client's model
// through sampling/createMessage with a progress token: in the handshake era the
// client may report progress on a request the server sent.
func newSamplingProgressGoServer(token any) *mcp.Server {
	s := mcp.NewServer(goServerImpl, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the client's model, with progress"},
		func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
			params := &mcp.CreateMessageParams{
				MaxTokens: 16,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "say hi"}}},
			}
			params.SetProgressToken(token)
			res, err := req.Session.CreateMessage(ctx, params)
			if err != nil {
				return nil, nil, fmt.Errorf("sampling: %w", err)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{res.Content}}, nil, nil
		})
	return s
}

// TestGoSDKClientProgress: progress the other way round. The server's
// sampling/createMessage carries a progress token; the client's sampling handler
// reports progress 1 and 2 (ClientSession.NotifyProgress) before it answers.
// Healthy: no MCP3006. In the late variant the client reports once more after
// its sampling answer: MCP3006 at that client-to-server notification.
func TestGoSDKClientProgress(t *testing.T) {
	for _, rev := range handshakeRevisions {
		for _, late := range []bool{false, true} {
			name := rev + "/timely"
			if late {
				name = rev + "/after-the-answer"
			}
			t.Run(name, func(t *testing.T) {
				const token = "sdktest-sampling-progress"
				p := connectGoPair(t, newSamplingProgressGoServer(token), &mcp.ClientOptions{
					CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
						for i := 1; i <= 2; i++ {
							if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
								ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 3,
							}); err != nil {
								return nil, err
							}
						}
						return &mcp.CreateMessageResult{Model: "sdktest-model", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
					},
				}, rev)
				if r, err := p.cs.CallTool(p.ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}); err != nil || r.IsError {
					t.Fatalf("tools/call ask: %v %+v", err, r)
				}
				sampling := only(t, p.capture, "sampling/createMessage", sent(S2C, "sampling/createMessage"))
				answer := p.response(sampling)
				if late {
					if err := p.cs.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: 3, Total: 3}); err != nil {
						t.Fatalf("late progress: %v", err)
					}
				}
				progress := p.capture.Find(sent(C2S, "notifications/progress"))
				want := 2
				if late {
					want = 3
				}
				if len(progress) != want {
					t.Fatalf("%d progress notifications from the client, want %d", len(progress), want)
				}
				for _, l := range progress[:2] {
					if l.N < sampling.N || l.N > answer.N {
						t.Fatalf("progress at line %d is outside the sampling request (lines %d-%d)", l.N, sampling.N, answer.N)
					}
				}

				s := p.analyse("client-progress.jsonl")
				requireLegacy(t, s, rev)
				if !late {
					forbid(t, s, "the client reported progress on the server's in-flight request", "MCP3006", "MCP3002")
					noLoudFindingsExcept(t, s, nil)
					return
				}
				last := progress[2]
				expectFinding(t, s, "MCP3006", last.N, rule.SeverityError,
					fmt.Sprintf("progress for token %q after the response to sampling/createMessage id=%s (line %d)", token, sampling.ID(), answer.N))
				noLoudFindingsExcept(t, s, at("MCP3006", last.N))
			})
		}
	}
}
