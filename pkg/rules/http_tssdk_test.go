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

	"github.com/mcpsleuth/mcpsleuth/pkg/record"
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

// tsSDK returns node and the directory of the pinned TypeScript SDK, installed
// on the first test that needs it; the test is skipped, saying why, where Node.js
// or the package cannot be had.
func tsSDK(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK cannot run")
	}
	dir, _ = filepath.Abs(filepath.Join("testdata", "tssdk"))
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
	return node, dir
}

// startTSServer runs testdata/tssdk/server.mjs (the TypeScript SDK's Streamable
// HTTP server, @modelcontextprotocol/sdk 1.32.2, installed on the first run by
// npm ci, as .ci/run also does) and returns its URL. The test is skipped, saying
// why, where Node.js or the package cannot be had.
func startTSServer(t *testing.T) string {
	t.Helper()
	node, dir := tsSDK(t)
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

// tsSession is a Go SDK client session with the TypeScript SDK server, recorded
// as a HAR (har, by a front before the server) and through record --http (rec,
// into recPath, by proxy), after one tools/call.
type tsSession struct {
	har             *harRecorder
	upstream, proxy *httptest.Server
	rec             *record.Recording
	recPath         string
	ctx             context.Context
	cs              *mcp.ClientSession
}

// startTSSession starts the TypeScript SDK server, the captures and the Go SDK
// client's session, and makes one tools/call.
func startTSSession(t *testing.T) tsSession {
	t.Helper()
	target, _ := url.Parse(startTSServer(t))
	ts := tsSession{har: &harRecorder{}}
	front := httputil.NewSingleHostReverseProxy(target)
	front.FlushInterval = -1
	ts.upstream = httptest.NewServer(ts.har.wrap(front))
	t.Cleanup(ts.upstream.Close)
	ts.proxy, ts.rec, ts.recPath = recordingProxy(t, ts.upstream.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	ts.ctx = ctx
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-client", Version: "1.8.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.proxy.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts.cs = cs
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
		t.Fatal(err)
	}
	return ts
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
	ts := startTSSession(t)
	har, upstream, proxy, rec, recPath, ctx, cs := ts.har, ts.upstream, ts.proxy, ts.rec, ts.recPath, ts.ctx, ts.cs
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

var writeTSSDKDeletedFixture = flag.String("write-tssdk-deleted-fixture", "", "also write the HAR TestTypeScriptServerAnswersAnEndedSession400 records to this file")

// TestTypeScriptServerAnswersAnEndedSession400 records the Go SDK client ending
// its session with the TypeScript SDK's server (DELETE), then a tools/call sent
// with the dead session's id. The server, wired as its README shows, answers it
// 400 ("No valid session ID provided") where the spec wants 404 for a session it
// ended: MCP0007 reports the client's use of the ended session and the server's
// 400, each naming its side, with the same words in the HAR and the recording.
func TestTypeScriptServerAnswersAnEndedSession400(t *testing.T) {
	ts := startTSSession(t)
	har, upstream, proxy, rec, recPath, ctx, cs := ts.har, ts.upstream, ts.proxy, ts.rec, ts.recPath, ts.ctx, ts.cs
	id := cs.ID()
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	late, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxy.URL+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{"text":"late"}}}`))
	late.Header.Set("Content-Type", "application/json")
	late.Header.Set("Accept", "application/json, text/event-stream")
	late.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	late.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(late)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("the POST on the deleted session was answered %d; the TypeScript example answers 400", resp.StatusCode)
	}
	finishCaptures(t, har, proxy, upstream, rec)
	harPath := filepath.Join(t.TempDir(), "ts-deleted.har")
	har.write(t, harPath)
	if *writeTSSDKDeletedFixture != "" {
		har.write(t, *writeTSSDKDeletedFixture)
	}

	want := []struct {
		party spec.Side
		re    *regexp.Regexp
	}{
		{spec.Client, regexp.MustCompile(`^the client sent POST /mcp \((entry|exchange) \d+\) carrying tools/call id=99 with Mcp-Session-Id \S+ after its DELETE ended that session \((entry|exchange) \d+, answered 200\) \(at fault: the client\)$`)},
		{spec.Server, regexp.MustCompile(`^the server answered 400 Bad Request for POST /mcp \((entry|exchange) \d+\) carrying tools/call id=99 with Mcp-Session-Id \S+, a session which a DELETE ended \((entry|exchange) \d+\): a server must answer requests for a session it ended with 404 Not Found, the signal a client starts a new session on \(at fault: the server\)$`)},
	}
	var messages [2][]string
	for i, path := range []string{harPath, recPath} {
		got := ruleFindings(t, path, "MCP0007")
		if len(got) != len(want) {
			t.Fatalf("%s: MCP0007 findings %+v, want %d", filepath.Base(path), got, len(want))
		}
		for j, w := range want {
			if got[j].Party != w.party || !w.re.MatchString(got[j].Message) {
				t.Errorf("%s: finding %d: %s %q\nwant %s matching %s", filepath.Base(path), j, got[j].Party, got[j].Message, w.party, w.re)
			}
			messages[i] = append(messages[i], regexp.MustCompile(`\((entry|exchange) \d+|\(entry|\(exchange`).ReplaceAllString(got[j].Message, "(N"))
		}
	}
	if strings.Join(messages[0], "\n") != strings.Join(messages[1], "\n") {
		t.Errorf("the HAR and the recording disagree:\nHAR       %s\nrecording %s", messages[0], messages[1])
	}
}

var writeTSClientFixture = flag.String("write-ts-client-fixture", "", "also write the HAR TestTypeScriptClientAfterServerRestart records to this file")

// TestTypeScriptClientAfterServerRestart records the TypeScript SDK's Streamable
// HTTP client (testdata/tssdk/client.mjs, @modelcontextprotocol/sdk 1.32.2) with
// a Go SDK server that restarts between two calls, as a HAR and through record
// --http: the server answers the second call 404 (the session is gone), and the
// TypeScript client fails the call and never starts a new session. MCP0007
// names the client, with the same words in both captures.
func TestTypeScriptClientAfterServerRestart(t *testing.T) {
	node, dir := tsSDK(t)
	har := &harRecorder{}
	newHandler := func() http.Handler {
		server := mcp.NewServer(&mcp.Implementation{Name: "restarting-server", Version: "0.1.0"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "Echo"},
			func(context.Context, *mcp.CallToolRequest, struct {
				Text string `json:"text"`
			}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	}
	front := &swappable{h: newHandler()}
	upstream := httptest.NewServer(har.wrap(front))
	defer upstream.Close()
	proxy, rec, recPath := recordingProxy(t, upstream.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", proxy.URL+"/mcp")
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "called" {
		t.Fatalf("the TypeScript client said %q before the restart", lines.Text())
	}
	front.mu.Lock()
	front.h = newHandler() // the server restarts: the session is gone
	front.mu.Unlock()
	_, _ = io.WriteString(stdin, "go\n")
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "error: ") {
		t.Fatalf("the TypeScript client said %q after the restart, want the call's error", lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	finishCaptures(t, har, proxy, upstream, rec)
	harPath := filepath.Join(t.TempDir(), "ts-client.har")
	har.write(t, harPath)
	if *writeTSClientFixture != "" {
		har.write(t, *writeTSClientFixture)
	}

	want := regexp.MustCompile(`^the server answered 404 for POST /mcp \((entry|exchange) \d+\) with Mcp-Session-Id \S+, and the client never started a new session before the capture ended: a client that gets 404 must send a new initialize without Mcp-Session-Id \(at fault: the client\)$`)
	var messages []string
	for _, path := range []string{harPath, recPath} {
		got := ruleFindings(t, path, "MCP0007")
		if len(got) != 1 || !want.MatchString(got[0].Message) || got[0].Party != spec.Client || got[0].Severity != rule.SeverityWarning {
			t.Fatalf("%s: MCP0007 findings %+v, want one warning matching %s", filepath.Base(path), got, want)
		}
		messages = append(messages, regexp.MustCompile(`\((entry|exchange) \d+\)`).ReplaceAllString(got[0].Message, "(N)"))
	}
	if messages[0] != messages[1] {
		t.Errorf("the HAR and the recording disagree:\nHAR       %s\nrecording %s", messages[0], messages[1])
	}
}
