package rules_test

import (
	"context"
	"flag"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

var writeReconnectFixtures = flag.String("write-reconnect-fixtures", "", "also write the HARs TestReconnectLoop records into this directory")

// noGETStream stands for a server that offers no standalone event stream: it
// answers every GET 405 Method Not Allowed, as the transport allows.
type noGETStream struct{ next http.Handler }

func (n noGETStream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "no event stream here", http.StatusMethodNotAllowed)
		return
	}
	n.next.ServeHTTP(w, r)
}

// TestReconnectLoop records the Go SDK client (v1.8.0, its standalone GET stream
// on) against the Go SDK server behind a front that answers GET 405: the client
// asks once and works without the stream (silent). Then the same session with a
// client that asks for the stream again at once after each refusal, twelve times
// (a raw loop standing for the clients that do): MCP0012 at the tenth GET, naming
// the client.
func TestReconnectLoop(t *testing.T) {
	for _, loop := range []bool{false, true} {
		name := map[bool]string{false: "go-sdk-get-405-once", true: "go-sdk-get-405-loop"}[loop]
		t.Run(name, func(t *testing.T) {
			har := &harRecorder{}
			server := mcp.NewServer(&mcp.Implementation{Name: "no-stream-server", Version: "0.1.0"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "ask-llm", Description: "Answer"},
				func(context.Context, *mcp.CallToolRequest, samplePrompt) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
				})
			upstream := httptest.NewServer(har.wrap(noGETStream{next: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)}))
			defer upstream.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "looping-client", Version: "0.1.0"}, nil)
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: upstream.URL + "/mcp", MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hello"}}); err != nil {
				t.Fatal(err)
			}
			if loop {
				for range 12 {
					get, _ := http.NewRequestWithContext(ctx, http.MethodGet, upstream.URL+"/mcp", nil)
					get.Header.Set("Accept", "text/event-stream")
					get.Header.Set("Mcp-Session-Id", cs.ID())
					get.Header.Set("Mcp-Protocol-Version", "2025-11-25")
					resp, err := http.DefaultClient.Do(get)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
				}
			}
			cs.Close()
			waitForEntries(t, har)
			upstream.Close()
			path := filepath.Join(t.TempDir(), name+".har")
			har.write(t, path)
			if *writeReconnectFixtures != "" {
				har.write(t, filepath.Join(*writeReconnectFixtures, name+".har"))
			}
			got := ruleFindings(t, path, "MCP0012")
			if !loop {
				gets := 0
				for _, e := range har.entries {
					if e["request"].(map[string]any)["method"] == http.MethodGet {
						gets++
					}
				}
				if gets == 0 || len(got) != 0 {
					t.Fatalf("%d GETs, MCP0012 findings %+v: want the client's GET refused once and no finding", gets, got)
				}
				return
			}
			re := regexp.MustCompile(`^the client asked for the server's event stream 10 times in \d+(\.\d+)?m?s \(GET /mcp, up to entry \d+\), and the server refused each \(405 Method Not Allowed ×10\): a reconnect loop; 405 Method Not Allowed says the server offers no GET stream, so asking again cannot succeed: a client stops asking and works without it \(at fault: the client\)$`)
			if len(got) != 1 || !re.MatchString(got[0].Message) || got[0].Party != spec.Client {
				t.Fatalf("MCP0012 findings %+v, want one matching %s", got, re)
			}
		})
	}
}
