package rules_test

import (
	"bytes"
	"context"
	"flag"
	"io"
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

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

var writeResumeFixture = flag.String("write-resume-fixture", "", "also write the HAR TestResumedStreamCarriesTheResponse records to this file")

// streamCutter stands for a load balancer or proxy that drops a long POST: it
// passes the first write of the tools/call answer (the Go SDK server's priming
// event, which carries an event id) and then ends the response, while the server,
// which does not see the cut, goes on and stores the rest in its event store.
type streamCutter struct{ next http.Handler }

// cutWriter forwards writes until cut; what follows is dropped.
type cutWriter struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	header  http.Header
	wrote   bool
	cut     bool
	primed  chan struct{}
	primedN int
}

func (c *cutWriter) Header() http.Header { return c.header }

func (c *cutWriter) WriteHeader(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wrote || c.cut {
		return
	}
	c.wrote = true
	for k, v := range c.header {
		c.w.Header()[k] = v
	}
	c.w.WriteHeader(code)
}

func (c *cutWriter) Write(p []byte) (int, error) {
	c.WriteHeader(http.StatusOK)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return len(p), nil
	}
	n, err := c.w.Write(p)
	c.w.(http.Flusher).Flush()
	c.primedN++
	if c.primedN == 1 {
		c.cut = true
		close(c.primed)
	}
	return n, err
}

func (c *cutWriter) Flush() {}

func (s streamCutter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.Method != http.MethodPost || !bytes.Contains(body, []byte(`"method":"tools/call"`)) {
		s.next.ServeHTTP(w, r)
		return
	}
	cw := &cutWriter{w: w, header: http.Header{}, primed: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The server goes on after the cut: the request's context outlives it.
		s.next.ServeHTTP(cw, r.WithContext(context.WithoutCancel(r.Context())))
	}()
	select {
	case <-cw.primed:
	case <-done:
	}
}

// cutResumableServer starts the Go SDK server with an event store behind
// streamCutter, kept as a HAR: its tool answers after the cut.
func cutResumableServer(t *testing.T) (*harRecorder, *httptest.Server) {
	t.Helper()
	har := &harRecorder{}
	server := mcp.NewServer(&mcp.Implementation{Name: "resumable-server", Version: "0.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "ask-llm", Description: "Answer"},
		func(context.Context, *mcp.CallToolRequest, samplePrompt) (*mcp.CallToolResult, any, error) {
			time.Sleep(100 * time.Millisecond) // the answer comes after the cut
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{EventStore: mcp.NewMemoryEventStore(nil)})
	upstream := httptest.NewServer(har.wrap(streamCutter{next: sdk}))
	t.Cleanup(upstream.Close)
	return har, upstream
}

// TestResumedStreamCarriesTheResponse records the Go SDK client and server (with
// an event store) over Streamable HTTP, with a proxy that cuts the tools/call
// stream after its priming event: the client resumes with a GET carrying
// Last-Event-ID, and the server replays the response there, as the spec allows.
// Recorded as a HAR and through record --http, the session is clean in both:
// MCP0011 stays silent on a response that a resumed GET carries, MCP0013 on the
// server's event ids (each its own, the replay after the Last-Event-ID), and the
// call counts as answered.
func TestResumedStreamCarriesTheResponse(t *testing.T) {
	har, upstream := cutResumableServer(t)
	proxy, rec, recPath := recordingProxy(t, upstream.URL)
	dir := t.TempDir()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: 3, DisableStandaloneSSE: true}
	client := mcp.NewClient(&mcp.Implementation{Name: "resuming-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hello"}})
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "ok" {
		t.Fatalf("tools/call answered %q", text)
	}
	cs.Close()
	finishCaptures(t, har, proxy, upstream, rec)
	harPath := filepath.Join(dir, "resumed.har")
	har.write(t, harPath)
	if *writeResumeFixture != "" {
		har.write(t, *writeResumeFixture)
	}
	resumed := false
	for _, e := range har.entries {
		req := e["request"].(map[string]any)
		for _, h := range req["headers"].([]map[string]string) {
			resumed = resumed || (req["method"] == http.MethodGet && strings.EqualFold(h["name"], "Last-Event-ID"))
		}
	}
	if !resumed {
		t.Fatal("the client never resumed the stream with a GET carrying Last-Event-ID")
	}
	if rec, err := os.ReadFile(recPath); err != nil || !strings.Contains(string(rec), `"sseId":`) {
		t.Fatalf("the recording keeps no SSE event id (%v)", err)
	}
	for _, path := range []string{harPath, recPath} {
		if got := ruleFindings(t, path, "MCP0011", "MCP0013", "MCP3001"); len(got) != 0 {
			t.Errorf("%s: %+v", filepath.Base(path), got)
		}
	}
}

// TestUnresumedStreamNamesTheClient is TestResumedStreamCarriesTheResponse with a
// Go SDK client that does not reconnect (MaxRetries -1): the tools/call stream
// ends after the priming event, whose id the client could have resumed from, and
// the call fails. MCP3001 names the client, with the same words in the HAR and in
// the recording (which writes the stream's end and its last event id).
func TestUnresumedStreamNamesTheClient(t *testing.T) {
	har, upstream := cutResumableServer(t)
	proxy, rec, recPath := recordingProxy(t, upstream.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}
	client := mcp.NewClient(&mcp.Implementation{Name: "giving-up-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hello"}}); err == nil {
		t.Fatal("the call succeeded on a stream that was cut and never resumed")
	}
	cs.Close()
	finishCaptures(t, har, proxy, upstream, rec)
	harPath := filepath.Join(t.TempDir(), "unresumed.har")
	har.write(t, harPath)

	want := regexp.MustCompile(`^tools/call id=2 sent by the client was never answered: its POST's event stream \((entry|line) \d+\) ended after event \S+ without the response, and the client never resumed the stream with a GET carrying Last-Event-ID; .* \(at fault: the client\)$`)
	var messages []string
	for _, path := range []string{harPath, recPath} {
		got := ruleFindings(t, path, "MCP3001")
		if len(got) != 1 || !want.MatchString(got[0].Message) || got[0].Party != spec.Client {
			t.Fatalf("%s: MCP3001 findings %+v, want one matching %s", filepath.Base(path), got, want)
		}
		messages = append(messages, regexp.MustCompile(`\((entry|line) \d+\)|; .*`).ReplaceAllString(got[0].Message, ""))
	}
	if messages[0] != messages[1] {
		t.Errorf("the HAR and the recording disagree:\nHAR       %s\nrecording %s", messages[0], messages[1])
	}
}
