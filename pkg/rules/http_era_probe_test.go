package rules_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var writeEraProbeFixture = flag.String("write-era-probe-fixture", "", "also write the HAR TestDualEraClientFallsBack records to this file")

// legacyFront makes a server legacy for the probe: it refuses server/discover
// as the TypeScript SDK's legacy Streamable HTTP server refuses any request
// before initialize (400, a JSON-RPC error with a null id, no modern code).
type legacyFront struct{ next http.Handler }

func (l legacyFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if bytes.Contains(body, []byte(`"method":"server/discover"`)) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`)
		return
	}
	l.next.ServeHTTP(w, r)
}

// TestDualEraClientFallsBack records the Go SDK client (v1.8.0) asking for
// 2026-07-28, so that it probes with server/discover first, against mcp-go's
// Streamable HTTP server (v1.2.1) behind a front that refuses the probe as a
// legacy server does: the client falls back to initialize, and the call works. MCP1014 must stay silent
// (the HTTP initialize opens a session of its own: the fallback is found across
// the two), and the capture must show the probe and the initialize.
func TestDualEraClientFallsBack(t *testing.T) {
	har := &harRecorder{}
	legacy := mgserver.NewMCPServer("mcp-go-legacy", "0.1.0", mgserver.WithToolCapabilities(true))
	legacy.AddTool(mgmcp.NewTool("echo", mgmcp.WithString("text")), func(_ context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
		return mgmcp.NewToolResultText("ok"), nil
	})
	upstream := httptest.NewServer(har.wrap(legacyFront{next: mgserver.NewStreamableHTTPServer(legacy)}))
	defer upstream.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "dual-era-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: upstream.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	waitForEntries(t, har)
	upstream.Close()
	path := filepath.Join(t.TempDir(), "probe.har")
	har.write(t, path)
	if *writeEraProbeFixture != "" {
		har.write(t, *writeEraProbeFixture)
	}
	var bodies []string
	for _, e := range har.entries {
		if pd, ok := e["request"].(map[string]any)["postData"].(map[string]any); ok {
			bodies = append(bodies, pd["text"].(string))
		}
	}
	if len(bodies) < 2 || !strings.Contains(bodies[0], `"method":"server/discover"`) || !strings.Contains(bodies[1], `"method":"initialize"`) {
		t.Fatalf("want a server/discover probe, then initialize; the client POSTed %q", bodies)
	}
	if got := ruleFindings(t, path, "MCP1014"); len(got) != 0 {
		t.Fatalf("MCP1014 on a client that fell back: %+v", got)
	}
}
