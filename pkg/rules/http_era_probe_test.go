package rules_test

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	mgmcp "github.com/mark3labs/mcp-go/mcp"
	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
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

var writeModernErrorFixtures = flag.String("write-modern-error-fixtures", "", "also write the HARs of TestGoSDKClientFallsBackAfterAModernError and TestGoSDKClientProbeTimeoutNeverFallsBack into this directory")

// modernFront stands for a modern server in front of mcp-go's dual-era
// Streamable HTTP server: it answers server/discover with answer (a JSON-RPC
// error body, HTTP 200), or, when answer is empty, never answers it (the
// request is held until the client gives up); everything else reaches mcp-go.
type modernFront struct {
	next   http.Handler
	answer string
}

func (f modernFront) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if !bytes.Contains(body, []byte(`"method":"server/discover"`)) {
		f.next.ServeHTTP(w, r)
		return
	}
	if f.answer == "" {
		<-r.Context().Done()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, f.answer)
}

// probeSession records the Go SDK client (v1.8.0) asking for 2026-07-28, so that
// it probes with server/discover, against modernFront over mcp-go, as a HAR and
// through record --http; it returns the two paths and whether Connect worked.
func probeSession(t *testing.T, answer string, timeout time.Duration) (harPath, recPath string, har *harRecorder, connected bool) {
	t.Helper()
	har = &harRecorder{}
	dual := mgserver.NewMCPServer("mcp-go-dual-era", "0.1.0", mgserver.WithToolCapabilities(true))
	dual.AddTool(mgmcp.NewTool("echo", mgmcp.WithString("text")), func(_ context.Context, req mgmcp.CallToolRequest) (*mgmcp.CallToolResult, error) {
		return mgmcp.NewToolResultText("ok"), nil
	})
	upstream := httptest.NewServer(har.wrap(modernFront{next: mgserver.NewStreamableHTTPServer(dual), answer: answer}))
	proxy, rec, recPath := recordingProxy(t, upstream.URL)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "dual-era-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err == nil {
		connected = true
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
			t.Fatal(err)
		}
		cs.Close()
	}
	finishCaptures(t, har, proxy, upstream, rec)
	harPath = filepath.Join(t.TempDir(), "probe.har")
	har.write(t, harPath)
	return harPath, recPath, har, connected
}

// TestGoSDKClientFallsBackAfterAModernError records the Go SDK client against a
// modern server that requires sampling: it answers the probe with -32021
// (MissingRequiredClientCapability), a modern error. The client falls back to
// initialize on every error but a negotiable -32022 (client.go: "fall back ...
// on any non-modern error", but the loop breaks on any), where 2026-07-28 asks it
// to correct the request; the dual-era server behind accepts the initialize.
// MCP1014 reports it as info, naming the client, in the HAR and the recording.
func TestGoSDKClientFallsBackAfterAModernError(t *testing.T) {
	harPath, recPath, har, connected := probeSession(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing required client capability","data":{"requiredCapabilities":{"sampling":{}}}}}`, 30*time.Second)
	if !connected {
		t.Fatal("the client did not connect through the fallback")
	}
	if *writeModernErrorFixtures != "" {
		har.write(t, filepath.Join(*writeModernErrorFixtures, "go-sdk-client-falls-back-after-modern-error.har"))
	}
	want := regexp.MustCompile(`^the client fell back to initialize \((entry|line) \d+\) after the server answered its server/discover id=1 with -32021 "Missing required client capability", a modern error: the server speaks a modern revision, and a dual-era client retries with a version from its supported list \(or corrects the request\) rather than falling back \(at fault: the client\)$`)
	for _, path := range []string{harPath, recPath} {
		got := ruleFindings(t, path, "MCP1014")
		if len(got) != 1 || !want.MatchString(got[0].Message) || got[0].Party != spec.Client || got[0].Severity != rule.SeverityInfo {
			t.Fatalf("%s: MCP1014 findings %+v, want one info matching %s", filepath.Base(path), got, want)
		}
	}
}

// TestGoSDKClientProbeTimeoutNeverFallsBack records the Go SDK client against a
// server that never answers server/discover. 2026-07-28 says a client that gets
// no answer "within a reasonable timeout" treats the server as legacy and falls
// back to initialize; the Go SDK waits for the probe with the context Connect
// was given, so when that ends nothing is left for the fallback: no initialize
// is sent, and Connect fails. MCP1014 names the client, in the HAR and the
// recording.
func TestGoSDKClientProbeTimeoutNeverFallsBack(t *testing.T) {
	harPath, recPath, har, connected := probeSession(t, "", 2*time.Second)
	if connected {
		t.Fatal("the client connected although the probe was never answered")
	}
	if *writeModernErrorFixtures != "" {
		har.write(t, filepath.Join(*writeModernErrorFixtures, "go-sdk-client-probe-unanswered.har"))
	}
	want := regexp.MustCompile(`^the server never answered the client's server/discover id=1: the server is legacy, and the client never fell back to initialize; the capture ends .* \(at fault: the client\)$`)
	for _, path := range []string{harPath, recPath} {
		got := ruleFindings(t, path, "MCP1014")
		if len(got) != 1 || !want.MatchString(got[0].Message) || got[0].Party != spec.Client {
			t.Fatalf("%s: MCP1014 findings %+v, want one matching %s", filepath.Base(path), got, want)
		}
	}
}
