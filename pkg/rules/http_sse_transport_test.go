package rules_test

//lint:file-ignore SA1019 logging and sampling are deprecated as of 2026-07-28 (SEP-2577), not removed: these sessions exercise them

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

var writeSSEFixture = flag.String("write-sse-fixture", "", "also write the HAR TestHTTPSSETransportJudged records to this file")

type samplePrompt struct {
	Prompt string `json:"prompt" jsonschema:"what to ask the client's model"`
}

// TestHTTPSSETransportJudged records a Go SDK client and server talking the
// 2024-11-05 HTTP+SSE transport (a GET /sse stream whose endpoint event names the
// POST endpoint; every server message on the stream) as a HAR. The server's tool
// asks the client for sampling, which the client never declared. The stream's
// entry starts before the initialize POST and holds every server message, so the
// decoder must place each message after the exchange it follows: the session has
// a contract, and MCP2002 judges the sampling request at the stream's entry. The
// MCP-Protocol-Version header is Streamable HTTP's: its absence here is no finding.
func TestHTTPSSETransportJudged(t *testing.T) {
	har := &harRecorder{}
	server := mcp.NewServer(&mcp.Implementation{Name: "sse-server", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "ask-llm", Description: "Ask the client's model via sampling/createMessage"},
		func(ctx context.Context, req *mcp.CallToolRequest, in samplePrompt) (*mcp.CallToolResult, any, error) {
			_, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
				MaxTokens: 16,
				Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
			})
			if err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "sampling failed: " + err.Error()}}}, nil, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sampled"}}}, nil, nil
		})
	upstream := httptest.NewServer(har.wrap(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	defer upstream.Close()
	proxy, rec, recPath := recordingProxy(t, upstream.URL)
	dir := t.TempDir()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "sse-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: proxy.URL + "/sse"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hello"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError {
		t.Fatalf("the sampling request succeeded on a client without sampling")
	}
	cs.Close()
	finishCaptures(t, har, proxy, upstream, rec)

	path := filepath.Join(dir, "sse.har")
	har.write(t, path)
	if *writeSSEFixture != "" {
		har.write(t, *writeSSEFixture)
	}
	fromHAR := judgeSSESession(t, path)
	if want := regexp.MustCompile(`^server sent sampling/createMessage .*client`); len(fromHAR) != 1 || fromHAR[0].Rule != "MCP2002" || fromHAR[0].Entry != 1 || !want.MatchString(fromHAR[0].Message) {
		t.Fatalf("HAR: findings at warning or above: %+v\nwant one MCP2002 at entry 1 (the stream) matching %s", fromHAR, want)
	}
	// The recording of the same session, each event at the time it crossed: the
	// same finding, at the line of the sampling request's record.
	fromRecording := judgeSSESession(t, recPath)
	line := recordLines(t, recPath)(`"dir":"s2c"`, `"method":"sampling/createMessage"`)
	if len(fromRecording) != 1 || fromRecording[0].Rule != "MCP2002" || fromRecording[0].Line != line {
		t.Fatalf("recording: findings at warning or above: %+v\nwant one MCP2002 at line %d", fromRecording, line)
	}
	lineRef := regexp.MustCompile(`line \d+`)
	if a, b := lineRef.ReplaceAllString(fromHAR[0].Message, "line N"), lineRef.ReplaceAllString(fromRecording[0].Message, "line N"); a != b {
		t.Errorf("the HAR and the recording disagree:\nHAR       %s\nrecording %s", a, b)
	}
}

// judgeSSESession runs the catalogue over a capture of the Go SDK's HTTP+SSE
// session and returns its findings at warning or above. The session must have a
// contract, and no finding may say a message is out of place.
func judgeSSESession(t *testing.T, path string) []rule.Finding {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := driver.Run(path, f, rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The Go SDK client probes with server/discover first (a session of its own),
	// and falls back to initialize: the server's discover result does not offer
	// 2026-07-28, which HTTP+SSE cannot carry.
	var legacy int
	var loud, all []rule.Finding
	for _, s := range run.Sessions {
		if s.Session.Legacy != nil {
			legacy++
		}
		for _, fd := range s.Findings {
			all = append(all, fd)
			if fd.Severity >= rule.SeverityWarning {
				loud = append(loud, fd)
			}
		}
	}
	if legacy != 1 {
		t.Fatalf("%s: %d sessions with a contract, want 1: the handshake on the stream was not placed after the initialize POST", filepath.Base(path), legacy)
	}
	for _, fd := range all {
		if fd.Rule == "MCP0004" || fd.Rule == "MCP1006" || fd.Rule == "MCP3002" || fd.Rule == "MCP0001" {
			t.Errorf("%s: the stream's messages are out of place: %s %s", filepath.Base(path), fd.Rule, fd.Message)
		}
	}
	return loud
}

// waitForEntries waits until every exchange the recorder started has finished (the
// GET stream ends a moment after the client closes).
func waitForEntries(t *testing.T, h *harRecorder) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		done := true
		for _, e := range h.entries {
			done = done && e != nil
		}
		h.mu.Unlock()
		if done {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("an exchange never finished")
}

var writeStreamable2024Fixture = flag.String("write-streamable-2024-fixture", "", "also write the HAR TestStreamableHTTPOf20241105 records to this file")

// TestStreamableHTTPOf20241105 records a Go SDK client that pins 2024-11-05 over
// Streamable HTTP (the initialize POSTed to /mcp and answered there: no endpoint
// event) to a server that offers no GET stream and answers the GET 405, as
// Streamable HTTP allows. The revision and the transport are chosen separately:
// the session is judged by Streamable HTTP's rules, so the 405 is no finding.
func TestStreamableHTTPOf20241105(t *testing.T) {
	har := &harRecorder{}
	server := mcp.NewServer(&mcp.Implementation{Name: "streamable-server", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "ask-llm", Description: "Ask the client's model"},
		func(context.Context, *mcp.CallToolRequest, samplePrompt) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	noStream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Allow", "POST, DELETE")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		sdk.ServeHTTP(w, r)
	})
	upstream := httptest.NewServer(har.wrap(noStream))
	defer upstream.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "streamable-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: upstream.URL + "/mcp", MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2024-11-05"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hello"}}); err != nil {
		t.Fatal(err)
	}
	get, _ := http.NewRequestWithContext(ctx, http.MethodGet, upstream.URL+"/mcp", nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", cs.ID())
	resp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET answered %d, want 405", resp.StatusCode)
	}
	cs.Close()
	waitForEntries(t, har)
	upstream.Close()

	path := filepath.Join(t.TempDir(), "streamable-2024.har")
	har.write(t, path)
	if *writeStreamable2024Fixture != "" {
		har.write(t, *writeStreamable2024Fixture)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := driver.Run(path, f, rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	negotiated := false
	for _, s := range run.Sessions {
		if s.Session.Legacy != nil && s.Session.Legacy.Revision == "2024-11-05" {
			negotiated = true
		}
		for _, fd := range s.Findings {
			if fd.Severity >= rule.SeverityWarning {
				t.Errorf("%s entry %d: %s", fd.Rule, fd.Entry, fd.Message)
			}
		}
	}
	if !negotiated {
		t.Fatal("no session negotiated 2024-11-05")
	}
}

var writeMismatchFixture = flag.String("write-mismatch-fixture", "", "also write the HAR TestSSEClientAgainstStreamableServer records to this file")

// TestSSEClientAgainstStreamableServer records the Go SDK's HTTP+SSE client
// configured against a Go SDK Streamable HTTP server, as a HAR and through record
// --http: its GET for the endpoint event is refused 400, and the connection ends
// before any handshake. Both captures must say so (MCP0006, the client at fault),
// and nothing else at warning or above.
func TestSSEClientAgainstStreamableServer(t *testing.T) {
	har := &harRecorder{}
	server := mcp.NewServer(&mcp.Implementation{Name: "streamable-server", Version: "0.1.0"}, nil)
	upstream := httptest.NewServer(har.wrap(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	defer upstream.Close()
	proxy, rec, recPath := recordingProxy(t, upstream.URL)
	dir := t.TempDir()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "sse-client", Version: "0.1.0"}, nil)
	if cs, err := client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: proxy.URL + "/mcp"}, nil); err == nil {
		cs.Close()
		t.Fatal("the SSE client connected to a Streamable HTTP server")
	}
	finishCaptures(t, har, proxy, upstream, rec)
	path := filepath.Join(dir, "mismatch.har")
	har.write(t, path)
	if *writeMismatchFixture != "" {
		har.write(t, *writeMismatchFixture)
	}
	want := regexp.MustCompile(`^GET /mcp \((entry|exchange) 1\) asked for an event stream without a session, as an HTTP\+SSE \(2024-11-05\) client opens its connection, and got 400 Bad Request: .* never reached a handshake: configure the client for Streamable HTTP \(type "http" in Claude Code and VS Code\), or put the server behind a bridge that serves HTTP\+SSE \(at fault: the client\)$`)
	for _, capture := range []string{path, recPath} {
		f, err := os.Open(capture)
		if err != nil {
			t.Fatal(err)
		}
		run, err := driver.Run(capture, f, rules.All(), driver.RunOptions{})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if run.Stats.Lossy != "" {
			t.Errorf("%s: %s", filepath.Base(capture), run.Stats.Lossy)
		}
		var loud []rule.Finding
		for _, s := range run.Sessions {
			for _, fd := range s.Findings {
				if fd.Severity >= rule.SeverityWarning {
					loud = append(loud, fd)
				}
			}
		}
		if len(loud) != 1 || loud[0].Rule != "MCP0006" || loud[0].Party != spec.Client || !want.MatchString(loud[0].Message) {
			t.Errorf("%s: findings at warning or above: %+v\nwant one MCP0006 naming the client, matching %s", filepath.Base(capture), loud, want)
		}
	}
}

var writeReverseMismatchFixtures = flag.String("write-reverse-mismatch-fixtures", "", "also write the HARs TestStreamableClientAgainstSSEServer records into this directory")

// TestStreamableClientAgainstSSEServer records the Go SDK's Streamable HTTP
// client (v1.8.0) configured against a Go SDK server that serves only the
// 2024-11-05 HTTP+SSE transport (mcp.NewSSEHandler): its server/discover probe and
// its initialize are POSTed to the stream's URL without a session and refused
// 400 ("sessionid must be provided", plain text). In gives-up the application
// stops there: MCP0006 names the client at the initialize, the same in the HAR
// and the recording. In falls-back it follows the spec's backwards-compatibility
// procedure (connect again with the SSE client transport: the GET for the
// endpoint event, then the session): a session follows, and MCP0006 is silent.
func TestStreamableClientAgainstSSEServer(t *testing.T) {
	for _, fallBack := range []bool{false, true} {
		name := map[bool]string{false: "go-sdk-streamable-client-sse-server", true: "go-sdk-streamable-client-falls-back-to-sse"}[fallBack]
		t.Run(name, func(t *testing.T) {
			har := &harRecorder{}
			server := mcp.NewServer(&mcp.Implementation{Name: "sse-only-server", Version: "0.1.0"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "ask-llm", Description: "Answer"},
				func(context.Context, *mcp.CallToolRequest, samplePrompt) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
				})
			upstream := httptest.NewServer(har.wrap(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return server }, nil)))
			proxy, rec, recPath := recordingProxy(t, upstream.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "streamable-client", Version: "0.1.0"}, nil)
			if cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/sse", MaxRetries: -1}, nil); err == nil {
				cs.Close()
				t.Fatal("the Streamable HTTP client connected to an HTTP+SSE server")
			}
			if fallBack {
				cs, err := client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: proxy.URL + "/sse"}, nil)
				if err != nil {
					t.Fatalf("the fallback to HTTP+SSE: %v", err)
				}
				if _, err := cs.ListTools(ctx, nil); err != nil {
					t.Fatal(err)
				}
				cs.Close()
			}
			finishCaptures(t, har, proxy, upstream, rec)
			harPath := filepath.Join(t.TempDir(), name+".har")
			har.write(t, harPath)
			if *writeReverseMismatchFixtures != "" {
				har.write(t, filepath.Join(*writeReverseMismatchFixtures, name+".har"))
			}
			want := regexp.MustCompile(`^POST /sse \((entry|exchange) 2\) carried initialize id=2 without a session, as a Streamable HTTP client opens its connection, and got 400 Bad Request with no JSON-RPC message in reply: a server that speaks HTTP\+SSE \(2024-11-05\) refuses a POST that names none of its sessions so, where a Streamable HTTP server answers an initialize\. No session followed before the capture ended \(no GET for the HTTP\+SSE endpoint event, which the backwards-compatibility procedure tries next\), so the connection never reached a handshake: configure the client for HTTP\+SSE \(type "sse"\), or have it fall back as that procedure says \(at fault: the client\)$`)
			for _, path := range []string{harPath, recPath} {
				got := ruleFindings(t, path, "MCP0006")
				switch {
				case fallBack && len(got) != 0:
					t.Errorf("%s: MCP0006 after the client fell back to HTTP+SSE: %+v", filepath.Base(path), got)
				case !fallBack && (len(got) != 1 || !want.MatchString(got[0].Message) || got[0].Party != spec.Client):
					t.Errorf("%s: MCP0006 findings %+v, want one matching %s", filepath.Base(path), got, want)
				}
			}
		})
	}
}

var writeRestartFixtures = flag.String("write-restart-fixtures", "", "also write the HARs TestGoSDKClientAfterServerRestart records into this directory")

// swappable serves with the handler it holds, which a test replaces to restart the
// server (its sessions are lost).
type swappable struct {
	mu sync.Mutex
	h  http.Handler
}

func (s *swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	h := s.h
	s.mu.Unlock()
	h.ServeHTTP(w, r)
}

// TestGoSDKClientAfterServerRestart records a Go SDK client whose Streamable HTTP
// server restarts between two calls: the server has forgotten the session and
// answers the next call 404, as the spec asks. What follows is judged (MCP0007):
//
//   - gives-up: the Go SDK client (v1.8.0) closes on the 404 and sends nothing
//     more; the capture ends with no new session (a warning, the client at fault);
//   - keeps-session: a client that POSTs again with the dead Mcp-Session-Id (a
//     raw request, python-sdk#3556's pattern): an error, the client at fault;
//   - reconnects: the application connects again, and the Go SDK sends a new
//     initialize without the header: nothing to report.
func TestGoSDKClientAfterServerRestart(t *testing.T) {
	cases := []struct {
		name  string
		after func(ctx context.Context, t *testing.T, client *mcp.Client, endpoint, dead string)
		want  string // the MCP0007 finding's severity and message, "" for none
		entry int
	}{
		{"gives-up", nil, `^warning the server answered 404 for POST /mcp \(entry 5\) with Mcp-Session-Id \w+, and the client never started a new session before the capture ended: .* \(at fault: the client\)$`, 5},
		{"keeps-session", func(ctx context.Context, t *testing.T, _ *mcp.Client, endpoint, dead string) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ask-llm","arguments":{"prompt":"again"}}}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", dead)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("the dead session's POST got %d, want 404", resp.StatusCode)
			}
		}, `^error the client sent POST /mcp \(entry 6\) carrying tools/call id=5 with Mcp-Session-Id \w+ after the server answered 404 for that session \(entry 5\): .* \(at fault: the client\)$`, 6},
		{"reconnects", func(ctx context.Context, t *testing.T, client *mcp.Client, endpoint, _ string) {
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "again"}}); err != nil {
				t.Fatal(err)
			}
			cs.Close()
		}, "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			har := &harRecorder{}
			newHandler := func() http.Handler {
				server := mcp.NewServer(&mcp.Implementation{Name: "restarting-server", Version: "0.1.0"}, nil)
				mcp.AddTool(server, &mcp.Tool{Name: "ask-llm", Description: "Answer"},
					func(context.Context, *mcp.CallToolRequest, samplePrompt) (*mcp.CallToolResult, any, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
					})
				return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
			}
			front := &swappable{h: newHandler()}
			upstream := httptest.NewServer(har.wrap(front))
			defer upstream.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			endpoint := upstream.URL + "/mcp"
			client := mcp.NewClient(&mcp.Implementation{Name: "restart-client", Version: "0.1.0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			call := func() error {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hello"}})
				return err
			}
			if err := call(); err != nil {
				t.Fatal(err)
			}
			front.mu.Lock()
			front.h = newHandler() // the server restarts: the session is gone
			front.mu.Unlock()
			if err := call(); err == nil {
				t.Fatal("the call after the restart succeeded")
			}
			cs.Close()
			if tc.after != nil {
				tc.after(ctx, t, client, endpoint, cs.ID())
			}
			waitForEntries(t, har)
			upstream.Close()
			path := filepath.Join(t.TempDir(), tc.name+".har")
			har.write(t, path)
			if *writeRestartFixtures != "" {
				har.write(t, filepath.Join(*writeRestartFixtures, "go-sdk-restart-"+tc.name+".har"))
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			run, err := driver.Run(path, f, rules.All(), driver.RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var gone, loud []string
			for _, s := range run.Sessions {
				for _, fd := range s.Findings {
					if fd.Rule == "MCP0007" {
						gone = append(gone, fd.Severity.String()+" "+fd.Message)
						if fd.Entry != tc.entry || fd.Party != spec.Client {
							t.Errorf("MCP0007 at entry %d naming %s, want entry %d and the client", fd.Entry, fd.Party, tc.entry)
						}
					} else if fd.Severity >= rule.SeverityWarning {
						loud = append(loud, fd.Rule+" "+fd.Message)
					}
				}
			}
			switch {
			case tc.want == "" && len(gone) != 0:
				t.Errorf("MCP0007 on a client that started again: %q", gone)
			case tc.want != "" && (len(gone) != 1 || !regexp.MustCompile(tc.want).MatchString(gone[0])):
				t.Errorf("MCP0007: %q\nwant one matching %s", gone, tc.want)
			}
			for _, l := range loud {
				if !strings.HasPrefix(l, "MCP0005 HTTP 404") && !strings.HasPrefix(l, "MCP3001") {
					t.Errorf("unexpected: %s", l)
				}
			}
		})
	}
}
