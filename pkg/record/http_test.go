package record_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/record/recordtest"
)

// bodies keeps the request and response bodies of every exchange seen at one
// point of the path, in the order they were seen.
type bodies struct {
	mu        sync.Mutex
	requests  bytes.Buffer
	responses bytes.Buffer
}

func (b *bodies) addRequest(p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.requests.Write(p)
}

func (b *bodies) addResponse(p []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.responses.Write(p)
}

func (b *bodies) get() (req, resp []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.requests.Bytes()), bytes.Clone(b.responses.Bytes())
}

// teeWriter is a ResponseWriter that keeps what the upstream wrote.
type teeWriter struct {
	http.ResponseWriter
	seen *bodies
}

func (w teeWriter) Write(p []byte) (int, error) {
	w.seen.addResponse(p)
	return w.ResponseWriter.Write(p)
}

func (w teeWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func (w teeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// teeTransport is the client's RoundTripper, keeping what it sent and received.
type teeTransport struct{ seen *bodies }

func (t teeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		t.seen.addRequest(body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = readCloser{Reader: io.TeeReader(resp.Body, writerFunc(t.seen.addResponse)), Closer: resp.Body}
	return resp, nil
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// TestHTTPRecordsWhatCrossed puts the proxy between a Go SDK streamable HTTP
// client and server: both see the same bodies, each message is recorded with the
// session id as its stream key, and check finds the sampling request sent to a
// client without sampling.
func TestHTTPRecordsWhatCrossed(t *testing.T) {
	var atServer, atClient bodies
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return recordtest.NewServer() }, nil)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil {
			body, _ := io.ReadAll(r.Body)
			atServer.addRequest(body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		sdk.ServeHTTP(teeWriter{ResponseWriter: w, seen: &atServer}, r)
	}))
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)

	out, rec := newRecording(t, record.Options{})
	proxy := httptest.NewServer(record.NewHTTPProxy(target, rec))
	defer proxy.Close()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "recordtest-client", Version: "0.1.0"}, nil)
	transport := &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", HTTPClient: &http.Client{Transport: teeTransport{seen: &atClient}}, DisableStandaloneSSE: true}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}); err != nil {
		t.Fatal(err)
	}
	ask, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if !ask.IsError {
		t.Errorf("ask-llm succeeded against a client without sampling")
	}
	cs.Close()
	proxy.Close()
	rec.Close()

	clientSent, clientGot := atClient.get()
	serverGot, serverSent := atServer.get()
	if !bytes.Equal(clientSent, serverGot) {
		t.Errorf("request bodies changed on the way:\nclient sent %q\nserver got  %q", clientSent, serverGot)
	}
	if !bytes.Equal(serverSent, clientGot) {
		t.Errorf("response bodies changed on the way:\nserver sent %q\nclient got  %q", serverSent, clientGot)
	}

	recs := readRecording(t, out)
	var sessionID string
	var samplingLine, c2s int
	for _, e := range recs {
		var extra struct {
			SessionID string           `json:"session_id"`
			HTTP      *record.Exchange `json:"http"`
		}
		if err := json.Unmarshal([]byte(e.Raw), &extra); err != nil {
			t.Fatal(err)
		}
		if e.Msg == nil {
			continue
		}
		if extra.HTTP == nil {
			t.Errorf("line %d: a message without its exchange: %s", e.Line, e.Raw)
		}
		if sessionID == "" {
			sessionID = extra.SessionID
		}
		if extra.SessionID == "" || extra.SessionID != sessionID {
			t.Errorf("line %d: session_id %q, want the session's %q", e.Line, extra.SessionID, sessionID)
		}
		if e.Dir == "c2s" {
			c2s++
			if !bytes.Contains(clientSent, e.Msg) {
				t.Errorf("line %d: recorded %s, which the client never sent", e.Line, e.Msg)
			}
		}
		if e.Dir == "s2c" && !bytes.Contains(serverSent, e.Msg) {
			t.Errorf("line %d: recorded %s, which the server never sent", e.Line, e.Msg)
		}
		if e.Dir == "s2c" && bytes.Contains(e.Msg, []byte(`"method":"sampling/createMessage"`)) {
			samplingLine = e.Line
		}
	}
	if sessionID == "" || samplingLine == 0 || c2s < 5 {
		t.Fatalf("session %q, sampling request at line %d, %d client messages:\n%s", sessionID, samplingLine, c2s, dump(recs))
	}
	if first := recs[0]; !bytes.Contains(first.Msg, []byte(`"method":"initialize"`)) {
		t.Errorf("the first record is not the initialize request: %s", first.Raw)
	}

	res := analyse(t, out)
	if len(res.Sessions) != 1 {
		t.Fatalf("%d sessions, want 1:\n%s", len(res.Sessions), dump(recs))
	}
	hits := findings(res, "MCP2002")
	if len(hits) != 1 || hits[0].Line != samplingLine || hits[0].Method != "sampling/createMessage" {
		t.Errorf("MCP2002 findings = %+v, want one at line %d", hits, samplingLine)
	}
	for _, f := range res.Sessions[0].Findings {
		if f.Rule != "MCP2002" && f.Severity >= 2 {
			t.Errorf("unexpected finding: %s line %d: %s", f.Rule, f.Line, f.Message)
		}
	}
}

// TestHTTPRedact: under --redact the recording masks the Authorization header
// and names the session instead of keeping its id.
func TestHTTPRedact(t *testing.T) {
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return recordtest.NewServer() }, nil)
	upstream := httptest.NewServer(sdk)
	defer upstream.Close()
	target, _ := url.Parse(upstream.URL)
	out, rec := newRecording(t, record.Options{Redact: true})
	proxy := httptest.NewServer(record.NewHTTPProxy(target, rec))
	defer proxy.Close()

	const token = "Bearer abcdefghijklmnopqrstuvwxyz0123456789"
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	hc := &http.Client{Transport: headerTransport{name: "Authorization", value: token}}
	// Credentials under generic query names too (issue 29 item 10): a SAS
	// token's sig, an OAuth code.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp?sv=2022-11-02&sig=SASsignature0123456789&code=OAuthCode0123456789", HTTPClient: hc, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	id := cs.ID()
	cs.Close()
	proxy.Close()
	rec.Close()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if id == "" || bytes.Contains(data, []byte(id)) || bytes.Contains(data, []byte("abcdefghijklmnopqrstuvwxyz0123456789")) ||
		bytes.Contains(data, []byte("SASsignature0123456789")) || bytes.Contains(data, []byte("OAuthCode0123456789")) {
		t.Errorf("the recording keeps the session id %q or the token:\n%s", id, data)
	}
	if !strings.Contains(string(data), `"session_id":"session-1"`) || !strings.Contains(string(data), `"Authorization":"[redacted`) {
		t.Errorf("the recording does not name the session or mask the header:\n%s", data)
	}
}

type headerTransport struct{ name, value string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(h.name, h.value)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPUpstreamDown: a request the upstream never answers is recorded, with
// the proxy's 502.
func TestHTTPUpstreamDown(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	target, _ := url.Parse(gone.URL)
	gone.Close()
	out, rec := newRecording(t, record.Options{})
	proxy := httptest.NewServer(record.NewHTTPProxy(target, rec))
	defer proxy.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	resp, err := http.Post(proxy.URL+"/mcp", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("status %d, want 502", resp.StatusCode)
	}
	rec.Close()
	recs := readRecording(t, out)
	if len(recs) != 2 || string(recs[0].Msg) != body || recs[1].Text == nil || !strings.Contains(*recs[1].Text, "the upstream did not answer") {
		t.Errorf("recording:\n%s\nwant the request verbatim, then the upstream's failure", dump(recs))
	}
}

// TestHTTPClientGivesUp: a request the client abandons before the upstream
// answers is recorded without a status (the client saw none, as a HAR of it
// shows none), not with the 502 the proxy would have answered.
func TestHTTPClientGivesUp(t *testing.T) {
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer hanging.Close()
	defer close(release)
	target, _ := url.Parse(hanging.URL)
	out, rec := newRecording(t, record.Options{})
	proxy := httptest.NewServer(record.NewHTTPProxy(target, rec))
	body := `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}`
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, proxy.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the request was answered %d; want the client's timeout", resp.StatusCode)
	}
	proxy.Close()
	rec.Close()
	recs := readRecording(t, out)
	if len(recs) != 2 || string(recs[0].Msg) != body || recs[1].Text == nil || *recs[1].Text != "the client gave up before the upstream answered" ||
		strings.Contains(recs[1].Raw, `"status"`) {
		t.Errorf("recording:\n%s\nwant the request verbatim, then the client's giving up, with no status", dump(recs))
	}
}
