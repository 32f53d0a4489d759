package rules_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/record/recordtest"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

var writeMisroutedFixture = flag.String("write-misrouted-fixture", "", "also write the HAR TestResponseOnTheStandaloneStream records to this file")

// streamMisrouter stands for a server transport that routes a response through
// a table shared by all of a session's streams and finds the standalone GET
// stream first (the shape of the TypeScript SDK's shared stream mapping, which
// typescript-sdk#2068 replaced with per-request routing): the session's
// standalone stream is the front's own, held open; a tools/call is passed to the
// Go SDK server behind, and its response is written on the standalone stream,
// while the POST is answered with an event stream that ends without it. With
// misroute false the front passes the response on its POST's stream, as the
// transport requires: the healthy twin.
type streamMisrouter struct {
	next     http.Handler
	misroute bool

	mu      sync.Mutex
	streams map[string]chan []byte // standalone streams, by Mcp-Session-Id
}

func (s *streamMisrouter) standalone(session string) chan []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.streams == nil {
		s.streams = map[string]chan []byte{}
	}
	if s.streams[session] == nil {
		s.streams[session] = make(chan []byte, 4)
	}
	return s.streams[session]
}

func (s *streamMisrouter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	session := r.Header.Get("Mcp-Session-Id")
	switch {
	case r.Method == http.MethodGet && session != "" && r.Header.Get("Last-Event-ID") == "":
		events := s.standalone(session)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Mcp-Session-Id", session)
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for {
			select {
			case <-r.Context().Done():
				return
			case msg, ok := <-events:
				if !ok {
					return
				}
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
				w.(http.Flusher).Flush()
			}
		}
	case r.Method == http.MethodDelete:
		s.next.ServeHTTP(w, r)
		if ch := s.standalone(session); ch != nil {
			close(ch)
		}
		return
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.Method != http.MethodPost || !bytes.Contains(body, []byte(`"method":"tools/call"`)) {
		s.next.ServeHTTP(w, r)
		return
	}
	// The server behind answers the call as JSON (the handler's JSONResponse).
	rec := httptest.NewRecorder()
	s.next.ServeHTTP(rec, r)
	response := bytes.TrimSpace(rec.Body.Bytes())
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	if !s.misroute {
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", response)
		return
	}
	s.standalone(session) <- response
	// The POST's stream ends once the client has had the time to read the
	// response where the server put it.
	time.Sleep(200 * time.Millisecond)
}

// TestResponseOnTheStandaloneStream records the Go SDK client (v1.8.0) and
// server, the client with its standalone GET stream open, through
// streamMisrouter: the tools/call response arrives on the GET stream, which
// resumed nothing, and the call's POST stream ends without it. The Go SDK client
// takes the response wherever it comes (its call succeeds), so nothing fails
// that the user sees; the spec forbids it (a client that waits on the POST's
// stream never gets it). MCP0011 names the server, the same in the HAR and the
// recording; the twin that answers on the POST's stream is silent.
func TestResponseOnTheStandaloneStream(t *testing.T) {
	for _, misroute := range []bool{true, false} {
		t.Run(map[bool]string{true: "misrouted", false: "healthy"}[misroute], func(t *testing.T) {
			har := &harRecorder{}
			sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return recordtest.NewServer() }, &mcp.StreamableHTTPOptions{JSONResponse: true})
			upstream := httptest.NewServer(har.wrap(&streamMisrouter{next: sdk, misroute: misroute}))
			proxy, rec, recPath := recordingProxy(t, upstream.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "0.1.0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: -1},
				&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "routed"}})
			if err != nil {
				t.Fatalf("tools/call: %v", err)
			}
			if text := res.Content[0].(*mcp.TextContent).Text; text != "routed" {
				t.Fatalf("tools/call answered %q", text)
			}
			cs.Close()
			finishCaptures(t, har, proxy, upstream, rec)
			harPath := filepath.Join(t.TempDir(), "routed.har")
			har.write(t, harPath)
			if misroute && *writeMisroutedFixture != "" {
				har.write(t, *writeMisroutedFixture)
			}
			if !misroute {
				for _, path := range []string{harPath, recPath} {
					if got := ruleFindings(t, path, "MCP0011", "MCP3001", "MCP0005", "MCP0008"); len(got) != 0 {
						t.Errorf("%s: %+v", filepath.Base(path), got)
					}
				}
				return
			}
			if !getCarried(har, `"result"`) {
				t.Fatal("the standalone GET stream did not carry the response: the test tests nothing")
			}
			want := regexp.MustCompile(`^the server sent the tools/call response id=2 on the standalone GET stream \((entry|exchange) \d+\), which resumed no stream \(its GET carried no Last-Event-ID\): a server must not send a JSON-RPC response there, and a client waiting on the stream of the POST that carried the request \((entry|exchange) \d+\) may never see it \(at fault: the server\)$`)
			var messages []string
			for _, path := range []string{recPath, harPath} {
				got := ruleFindings(t, path, "MCP0011")
				if len(got) != 1 || !want.MatchString(got[0].Message) || got[0].Party != spec.Server {
					t.Fatalf("%s: MCP0011 findings %+v, want one matching %s", filepath.Base(path), got, want)
				}
				messages = append(messages, regexp.MustCompile(`\((entry|exchange) \d+\)`).ReplaceAllString(got[0].Message, ""))
			}
			if messages[0] != messages[1] {
				t.Errorf("the HAR and the recording disagree:\nHAR       %s\nrecording %s", messages[0], messages[1])
			}
		})
	}
}

// getCarried reports whether a GET's event stream in the HAR carries text.
func getCarried(h *harRecorder, text string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range h.entries {
		if e["request"].(map[string]any)["method"] != http.MethodGet {
			continue
		}
		content, _ := e["response"].(map[string]any)["content"].(map[string]any)
		if body, _ := content["text"].(string); strings.Contains(body, text) {
			return true
		}
	}
	return false
}
