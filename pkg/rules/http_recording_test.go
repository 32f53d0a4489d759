package rules_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/record/recordtest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
)

// harRecorder is an upstream wrapper that keeps every exchange as a HAR entry: the
// same session a HAR-writing proxy would have captured.
type harRecorder struct {
	mu      sync.Mutex
	entries []map[string]any
}

type keepingWriter struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *keepingWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *keepingWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(p)
	return w.ResponseWriter.Write(p)
}

func (w *keepingWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func harHeaders(h http.Header) []map[string]string {
	var out []map[string]string
	for name, values := range h {
		out = append(out, map[string]string{"name": name, "value": strings.Join(values, ", ")})
	}
	return out
}

func (h *harRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started := time.Now().UTC()
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		kw := &keepingWriter{ResponseWriter: w}
		h.mu.Lock()
		index := len(h.entries)
		h.entries = append(h.entries, nil)
		h.mu.Unlock()
		next.ServeHTTP(kw, r)
		request := map[string]any{"method": r.Method, "url": "http://upstream" + r.URL.RequestURI(), "headers": harHeaders(r.Header)}
		if len(body) > 0 {
			request["postData"] = map[string]any{"mimeType": "application/json", "text": string(body)}
		}
		entry := map[string]any{
			"startedDateTime": started.Format(time.RFC3339Nano), "time": float64(time.Since(started).Microseconds()) / 1000, "request": request,
			"response": map[string]any{"status": kw.status, "statusText": http.StatusText(kw.status), "headers": harHeaders(w.Header()),
				"content": map[string]any{"mimeType": w.Header().Get("Content-Type"), "text": kw.body.String()}},
		}
		h.mu.Lock()
		h.entries[index] = entry
		h.mu.Unlock()
	})
}

func (h *harRecorder) write(t *testing.T, path string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	doc := map[string]any{"log": map[string]any{"version": "1.2", "creator": map[string]string{"name": "test-harproxy"}, "entries": h.entries}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// faultyUpstream refuses what the test needs refused: the GET for the event stream
// (400, as mcp-lite does) and the tools/call whose text is "refuse" (503).
func faultyUpstream(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.Error(w, "Bad Request: Protocol version mismatch", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"text":"refuse"`)) {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headerDropper is the client's transport: it drops MCP-Protocol-Version from the
// tools/list request, the header problem MCP1011 reports.
type headerDropper struct{}

func (headerDropper) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"method":"tools/list"`)) {
			r = r.Clone(r.Context())
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.Header.Del("Mcp-Protocol-Version")
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPRecordingJudgedLikeHAR records one Go SDK session through record's HTTP
// proxy while the upstream keeps it as a HAR: the tools/list request lacks
// MCP-Protocol-Version (MCP1011), a tools/call is refused 503 and the GET for the
// event stream 400 (MCP0005). The recording's http members must give the findings
// the HAR gives, each at the line of the request's record.
func TestHTTPRecordingJudgedLikeHAR(t *testing.T) {
	har := &harRecorder{}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return recordtest.NewServer() }, nil)
	upstream := httptest.NewServer(har.wrap(faultyUpstream(sdk)))
	defer upstream.Close()
	proxy, rec, out := recordingProxy(t, upstream.URL)
	dir := t.TempDir()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "recordtest-client", Version: "0.1.0"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", HTTPClient: &http.Client{Transport: headerDropper{}}, DisableStandaloneSSE: true, MaxRetries: -1}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	get, _ := http.NewRequest(http.MethodGet, proxy.URL+"/mcp", nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", cs.ID())
	get.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("GET answered %d, want 400", resp.StatusCode)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "refuse"}}); err == nil {
		t.Fatal("the refused tools/call succeeded")
	}
	cs.Close()
	proxy.Close()
	rec.Close()
	harPath := filepath.Join(dir, "same.har")
	har.write(t, harPath)

	lines := recordLines(t, out)
	want := []struct {
		rule string
		line int // in the recording
		re   string
	}{
		{"MCP1011", lines(`"dir":"c2s"`, `"method":"tools/list"`), `^POST /mcp \(exchange \d+\) carrying tools/list id=\d+ has no MCP-Protocol-Version header, but the session negotiated 2025-11-25 \(initialize result, line 2\)`},
		{"MCP0005", lines(`"dir":"http"`, `"method":"GET"`), `^HTTP 400 Bad Request for GET /mcp \(exchange \d+\) with Mcp-Session-Id \w+: the request was well-formed .*no event stream was opened`},
		{"MCP0005", lines(`"dir":"c2s"`, `"text":"refuse"`), `^HTTP 503 Service Unavailable for POST /mcp \(exchange \d+\) carrying tools/call id=\d+ with Mcp-Session-Id \w+: the server failed while handling it \(see its log\); the request gets no JSON-RPC response \(at fault: the server\)$`},
	}
	recorded := httpFindings(t, out)
	if len(recorded) != len(want) {
		t.Fatalf("recording: %d MCP0005/MCP1011 findings, want %d: %+v", len(recorded), len(want), recorded)
	}
	for i, w := range want {
		f := recorded[i]
		if f.Rule != w.rule || f.Line != w.line || !regexp.MustCompile(w.re).MatchString(f.Message) {
			t.Errorf("recording finding %d: %s line %d %q\nwant %s line %d matching %s", i, f.Rule, f.Line, f.Message, w.rule, w.line, w.re)
		}
	}
	fromHAR := httpFindings(t, harPath)
	if len(fromHAR) != len(recorded) {
		t.Fatalf("HAR: %d findings, recording %d: %+v", len(fromHAR), len(recorded), fromHAR)
	}
	// The two captures differ in how they name an exchange (a HAR entry, a
	// recording's exchange number) and in the lines of related frames.
	entry, line := regexp.MustCompile(`\(entry (\d+)\)`), regexp.MustCompile(`line \d+`)
	for i := range fromHAR {
		got := line.ReplaceAllString(entry.ReplaceAllString(fromHAR[i].Message, "(exchange $1)"), "line N")
		wantMsg := line.ReplaceAllString(recorded[i].Message, "line N")
		if fromHAR[i].Rule != recorded[i].Rule || got != wantMsg {
			t.Errorf("finding %d differs:\nHAR       %s %s\nrecording %s %s", i, fromHAR[i].Rule, got, recorded[i].Rule, wantMsg)
		}
	}
}

// recordingProxy starts record --http's proxy in front of upstream, recording
// into a file of the test's: the proxy, the recording and the file's path. A
// test closes the proxy and the recording before it reads the file; what it
// leaves open is closed when it ends.
func recordingProxy(t *testing.T, upstream string) (*httptest.Server, *record.Recording, string) {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	file, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	rec := record.NewRecording(file, record.Options{})
	proxy := httptest.NewServer(record.NewHTTPProxy(target, rec))
	t.Cleanup(proxy.Close)
	return proxy, rec, path
}

// finishCaptures ends a session recorded both ways: it waits for the HAR's last
// exchange, then closes the proxy, the upstream and the recording, which must
// have written every record.
func finishCaptures(t *testing.T, har *harRecorder, proxy, upstream *httptest.Server, rec *record.Recording) {
	t.Helper()
	waitForEntries(t, har)
	proxy.Close()
	upstream.Close()
	rec.Close()
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
}

// recordLines returns a lookup of the 1-based line of the first record holding every
// given substring (0 when none does).
func recordLines(t *testing.T, path string) func(...string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return func(parts ...string) int {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for n := 1; sc.Scan(); n++ {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(sc.Text(), p)
			}
			if all {
				return n
			}
		}
		t.Errorf("no record holds %q in:\n%s", parts, b)
		return 0
	}
}

// httpFindings runs the catalogue over a capture and returns its MCP0005 and
// MCP1011 findings in report order.
func httpFindings(t *testing.T, path string) []rule.Finding {
	t.Helper()
	return ruleFindings(t, path, "MCP0005", "MCP1011")
}

// TestRecordedDELETEEndsTheSession closes a Go SDK client's session (its DELETE)
// and then POSTs a tools/list with the dead session's id, recorded through
// record's HTTP proxy while the upstream keeps a HAR: the recording writes the
// DELETE's status as its headers cross, so the session ends there in both
// captures, and MCP0007 reports the POST after the DELETE at the same message.
func TestRecordedDELETEEndsTheSession(t *testing.T) {
	har := &harRecorder{}
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return recordtest.NewServer() }, nil)
	upstream := httptest.NewServer(har.wrap(sdk))
	defer upstream.Close()
	proxy, rec, out := recordingProxy(t, upstream.URL)
	dir := t.TempDir()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "recordtest-client", Version: "0.1.0"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", DisableStandaloneSSE: true, MaxRetries: -1}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	id := cs.ID()
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	post, _ := http.NewRequest(http.MethodPost, proxy.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":99,"method":"tools/list"}`))
	post.Header.Set("Content-Type", "application/json")
	post.Header.Set("Accept", "application/json, text/event-stream")
	post.Header.Set("Mcp-Session-Id", id)
	post.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(post)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the POST after the DELETE was answered %d, want 404", resp.StatusCode)
	}
	proxy.Close()
	rec.Close()
	harPath := filepath.Join(dir, "same.har")
	har.write(t, harPath)

	lines := recordLines(t, out)
	wantLine := lines(`"dir":"c2s"`, `"id":99`)
	re := regexp.MustCompile(`^the client sent POST /mcp \(exchange \d+\) carrying tools/list id=99 with Mcp-Session-Id \w+ after its DELETE ended that session \(exchange \d+, answered 204\) \(at fault: the client\)$`)
	recorded := ruleFindings(t, out, "MCP0007")
	if len(recorded) != 1 || recorded[0].Line != wantLine || !re.MatchString(recorded[0].Message) {
		t.Fatalf("recording: MCP0007 findings %+v, want one at line %d matching %s", recorded, wantLine, re)
	}
	fromHAR := ruleFindings(t, harPath, "MCP0007")
	entry := regexp.MustCompile(`\(entry (\d+)`)
	if len(fromHAR) != 1 || entry.ReplaceAllString(fromHAR[0].Message, "(exchange $1") != recorded[0].Message {
		t.Fatalf("HAR: MCP0007 findings %+v, want the recording's %q", fromHAR, recorded[0].Message)
	}
}

// ruleFindings runs the catalogue over a capture and returns the findings of the
// rules ids in report order.
func ruleFindings(t *testing.T, path string, ids ...string) []rule.Finding {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := driver.Run(path, f, rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []rule.Finding
	for _, s := range res.Sessions {
		for _, fd := range s.Findings {
			if slices.Contains(ids, fd.Rule) {
				out = append(out, fd)
			}
		}
	}
	return out
}
