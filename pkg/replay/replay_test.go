package replay_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/replay"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/script"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

type addArgs struct {
	A int `json:"a"`
	B int `json:"b"`
}

type echoArgs struct {
	Text string `json:"text"`
}

// goSDKServer is a Go SDK server with echo and, unless dropped, add.
func goSDKServer(withAdd bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "replay-go-sdk", Version: "0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	if withAdd {
		mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers"}, func(_ context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: itoa(a.A + a.B)}}}, nil, nil
		})
	}
	return s
}

// mcpGoServer is an mcp-go server with echo and, unless dropped, add.
func mcpGoServer(withAdd bool) *mgserver.MCPServer {
	s := mgserver.NewMCPServer("replay-mcp-go", "0.1.0", mgserver.WithToolCapabilities(false))
	s.AddTool(mgmcp.NewTool("echo", mgmcp.WithDescription("Echo the text"), mgmcp.WithString("text")), func(_ context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
		return mgmcp.NewToolResultText(req.GetString("text", "")), nil
	})
	if withAdd {
		s.AddTool(mgmcp.NewTool("add", mgmcp.WithDescription("Add two numbers"), mgmcp.WithNumber("a"), mgmcp.WithNumber("b")), func(_ context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
			return mgmcp.NewToolResultText(itoa(int(req.GetFloat("a", 0) + req.GetFloat("b", 0)))), nil
		})
	}
	return s
}

func itoa(n int) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	if neg {
		b = append([]byte{'-'}, b...)
	}
	return string(b)
}

// stdioServer runs a server on pipes and returns the replay's side of them.
type stdioServer func(ctx context.Context, in io.Reader, out io.Writer)

func goSDKStdio(withAdd bool) stdioServer {
	return func(ctx context.Context, in io.Reader, out io.Writer) {
		goSDKServer(withAdd).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
	}
}

func mcpGoStdio(withAdd bool) stdioServer {
	return func(ctx context.Context, in io.Reader, out io.Writer) {
		mgserver.NewStdioServer(mcpGoServer(withAdd)).Listen(ctx, in, out)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func connect(ctx context.Context, run stdioServer) (in io.Reader, out io.Writer) {
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	go func() {
		run(ctx, serverIn, serverOut)
		serverOut.Close()
	}()
	return clientIn, clientOut
}

// lineTee records the lines written through it.
type lineTee struct {
	w   io.Writer
	dir spec.Direction
	rec *record.Recording
	buf []byte
}

func (t *lineTee) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		t.rec.Frame(t.dir, t.buf[:i])
		t.buf = t.buf[i+1:]
	}
	return t.w.Write(p)
}

type teeReader struct {
	r   io.Reader
	tee *lineTee
}

func (t teeReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.tee.Write(p[:n])
	return n, err
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// captured records a Go SDK client's session with a server (initialize, the
// tool list, echo, add), over stdio (run) or Streamable HTTP (handler), and
// returns its script.
func captured(t *testing.T, run stdioServer, handler http.Handler) *script.Script {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var buf syncBuffer
	rec := record.NewRecording(&buf, record.Options{})
	var tr mcp.Transport
	if handler != nil {
		hs := httptest.NewServer(handler)
		defer hs.Close()
		tr = &mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: recordingTrip{rec}}, MaxRetries: -1, DisableStandaloneSSE: true}
	} else {
		serverOut, serverIn := connect(ctx, run)
		tr = &mcp.IOTransport{
			Reader: io.NopCloser(teeReader{serverOut, &lineTee{w: discard{}, dir: spec.S2C, rec: rec}}),
			Writer: nopWriteCloser{&lineTee{w: serverIn, dir: spec.C2S, rec: rec}},
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "replay-test-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}); err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3}}); err != nil || res.IsError {
		t.Fatalf("add: %v %+v", err, res)
	}
	cs.Close()
	rec.Close()
	path := filepath.Join(t.TempDir(), "capture.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The session that called the tools: over HTTP the Go SDK client's
	// server/discover probe is a session of its own before it.
	for index := 0; index < 3; index++ {
		f, _ := os.Open(path)
		keep := script.NewAnalysis(index)
		var s *script.Script
		_, err := driver.Run(path, f, nil, driver.RunOptions{Discard: true, Analyses: []*rule.Analysis{keep}, OnSession: func(sr *rule.SessionResult) {
			if got := script.Of(sr.ResultOf(keep)); got != nil {
				s = got
			}
		}})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if s == nil {
			continue
		}
		for _, m := range s.Messages {
			if m.Method == "tools/call" {
				return s
			}
		}
	}
	t.Fatalf("no session of the capture calls a tool:\n%s", buf.Bytes())
	return nil
}

// recordingTrip records the messages of the HTTP exchanges it carries: a
// request's body, a JSON answer, each event of an event stream.
type recordingTrip struct{ rec *record.Recording }

func (r recordingTrip) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		body, _ := io.ReadAll(req.Body)
		req.Body.Close()
		if len(bytes.TrimSpace(body)) > 0 {
			r.rec.Frame(spec.C2S, body)
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || resp.StatusCode >= 300 {
		return resp, err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, event := range strings.Split(string(body), "\n\n") {
			for _, line := range strings.Split(event, "\n") {
				if data, ok := strings.CutPrefix(line, "data: "); ok {
					r.rec.Frame(spec.S2C, []byte(data))
				}
			}
		}
	} else if len(bytes.TrimSpace(body)) > 0 {
		r.rec.Frame(spec.S2C, body)
	}
	return resp, nil
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.b.Bytes()...)
}

// verdicts lists the requests as "method subject: verdict".
func verdicts(r *replay.Result) string {
	var parts []string
	for _, q := range r.Requests {
		parts = append(parts, strings.TrimSpace(q.Method+" "+q.Subject)+": "+string(q.Verdict))
	}
	return strings.Join(parts, "; ")
}

// TestReplay (issue 32): a session captured with the Go SDK and mcp-go
// servers replays against the same server with no difference, over stdio and
// Streamable HTTP; against the server without one of its tools, the replay
// reports the tool gone from tools/list and its call an error now.
func TestReplay(t *testing.T) {
	servers := []struct {
		name  string
		stdio func(bool) stdioServer
		http  func(bool) http.Handler
	}{
		{"go-sdk", goSDKStdio, func(add bool) http.Handler {
			s := goSDKServer(add)
			return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		}},
		{"mcp-go", mcpGoStdio, func(add bool) http.Handler { return mgserver.NewStreamableHTTPServer(mcpGoServer(add)) }},
	}
	for _, sv := range servers {
		for _, transport := range []string{"stdio", "http"} {
			var s *script.Script
			if transport == "stdio" {
				s = captured(t, sv.stdio(true), nil)
			} else {
				s = captured(t, nil, sv.http(true))
			}
			for _, withAdd := range []bool{true, false} {
				name := sv.name + "/" + transport + map[bool]string{true: "/same", false: "/add-dropped"}[withAdd]
				t.Run(name, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					defer cancel()
					var srv replay.Server
					if transport == "stdio" {
						out, in := connect(ctx, sv.stdio(withAdd))
						srv = replay.NewLines(out, in)
					} else {
						hs := httptest.NewServer(sv.http(withAdd))
						defer hs.Close()
						srv = &replay.HTTP{URL: hs.URL + "/mcp"}
					}
					res := replay.Play(ctx, s, srv, replay.Options{Timeout: 5 * time.Second})
					got := verdicts(res)
					if withAdd {
						if len(res.Requests) < 4 || res.Breaking() != 0 || strings.Contains(got, "different") || strings.Contains(got, "error") || strings.Contains(got, "no answer") {
							t.Fatalf("against the same server: %s", got)
						}
						return
					}
					var list, add *replay.Request
					for _, q := range res.Requests {
						switch {
						case q.Method == "tools/list":
							list = q
						case q.Method == "tools/call" && q.Subject == "add":
							add = q
						}
					}
					if list == nil || list.Verdict != replay.Different || !list.Breaking || !contains(list.Changes, `gone: tools "add"`) {
						t.Errorf("tools/list without add: %+v", list)
					}
					if add == nil || add.Verdict != replay.ErrorNow || !add.Breaking {
						t.Errorf("tools/call add without add: %+v", add)
					}
					if res.Breaking() != 2 {
						t.Errorf("%d breaking, want 2: %s", res.Breaking(), got)
					}
				})
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}
