package rules_test

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

var writeTSSDKFixture = flag.String("write-tssdk-fixture", "", "also write the HAR TestTypeScriptServerRefusesAMissingSessionID records to this file")

// tsSDKOnce installs the pinned TypeScript SDK (package-lock.json) with npm ci
// on the first test that needs it, where it is not installed yet.
var (
	tsSDKOnce       sync.Once
	tsSDKInstallErr error
)

// startTSServer runs testdata/tssdk/server.mjs (the TypeScript SDK's Streamable
// HTTP server, @modelcontextprotocol/sdk 1.32.2, installed on the first run by
// npm ci, as .ci/run also does) and returns its URL. The test is skipped, saying
// why, where Node.js or the package cannot be had.
func startTSServer(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK server cannot run")
	}
	dir, _ := filepath.Abs(filepath.Join("testdata", "tssdk"))
	tsSDKOnce.Do(func() {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err == nil {
			return
		}
		npm, err := exec.LookPath("npm")
		if err != nil {
			tsSDKInstallErr = err
			return
		}
		if out, err := exec.Command(npm, "ci", "--prefix", dir, "--no-audit", "--no-fund").CombinedOutput(); err != nil {
			tsSDKInstallErr = fmt.Errorf("npm ci: %v: %s", err, bytes.TrimSpace(out))
		}
	})
	if tsSDKInstallErr != nil {
		t.Skipf("the TypeScript SDK could not be installed (%v): run npm ci --prefix pkg/rules/testdata/tssdk", tsSDKInstallErr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, node, "server.mjs")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case line := <-lines:
		port, ok := strings.CutPrefix(line, "listening ")
		if !ok {
			t.Fatalf("the TypeScript SDK server said %q", line)
		}
		return "http://127.0.0.1:" + port
	case <-time.After(30 * time.Second):
		t.Fatal("the TypeScript SDK server did not start within 30s")
	}
	return ""
}

// TestTypeScriptServerRefusesAMissingSessionID records the Go SDK client (v1.8.0)
// against the TypeScript SDK's Streamable HTTP server as its README wires it, as
// a HAR and through record --http. The Go SDK client probes with server/discover
// (the TypeScript server refuses it 400, as it refuses any request without a
// session that is no initialize) and falls back to initialize: MCP1014 silent.
// Then a tools/call POSTed without the Mcp-Session-Id the server assigned (as a
// proxy that drops the header sends it) is refused 400: MCP0010 names the client,
// and MCP0005 does not report the refusal a second time, in both captures.
func TestTypeScriptServerRefusesAMissingSessionID(t *testing.T) {
	server := startTSServer(t)
	target, _ := url.Parse(server)
	har := &harRecorder{}
	front := httputil.NewSingleHostReverseProxy(target)
	front.FlushInterval = -1
	upstream := httptest.NewServer(har.wrap(front))
	defer upstream.Close()
	proxy, rec, recPath := recordingProxy(t, upstream.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "1.8.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	stripped, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxy.URL+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}`))
	stripped.Header.Set("Content-Type", "application/json")
	stripped.Header.Set("Accept", "application/json, text/event-stream")
	stripped.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(stripped)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("the POST without Mcp-Session-Id was answered %d, want 400", resp.StatusCode)
	}
	cs.Close()
	finishCaptures(t, har, proxy, upstream, rec)
	harPath := filepath.Join(t.TempDir(), "ts.har")
	har.write(t, harPath)
	if *writeTSSDKFixture != "" {
		har.write(t, *writeTSSDKFixture)
	}

	want := regexp.MustCompile(`^POST /mcp \((entry|exchange) \d+\) carrying tools/call id=99 has no Mcp-Session-Id, but the server assigned this client session \S+ in its answer to initialize \((entry|line) \d+\), which is still open: a client must send the id on every request after initialize \(at fault: the client\)$`)
	var messages []string
	for _, path := range []string{harPath, recPath} {
		var problems []rule.Finding
		for _, f := range ruleFindings(t, path, allRuleIDs()...) {
			if f.Severity >= rule.SeverityWarning && f.Rule != "MCP0010" {
				problems = append(problems, f)
			}
		}
		got := ruleFindings(t, path, "MCP0010")
		if len(got) != 1 || !want.MatchString(got[0].Message) || got[0].Party != spec.Client || len(problems) != 0 {
			t.Fatalf("%s: MCP0010 %+v (want one matching %s); other warnings and errors %+v", filepath.Base(path), got, want, problems)
		}
		messages = append(messages, regexp.MustCompile(`\((entry|exchange|line) \d+\)`).ReplaceAllString(got[0].Message, "(N)"))
	}
	if messages[0] != messages[1] {
		t.Errorf("the HAR and the recording disagree:\nHAR       %s\nrecording %s", messages[0], messages[1])
	}
}

// allRuleIDs lists the catalogue's IDs.
func allRuleIDs() []string {
	var ids []string
	for _, r := range rules.All() {
		ids = append(ids, r.ID)
	}
	return ids
}
