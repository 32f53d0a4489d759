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
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

var writeAnswerFixtures = flag.String("write-answer-fixtures", "", "also write the HARs TestPOSTAnswersAndAccept records into this directory")

// answerRewriter stands for a hand-written front (a proxy, a middleware) between
// the client and the Go SDK's Streamable HTTP handler: it answers accepted
// notifications 200 instead of 202, or labels a tools/call's answer with another
// Content-Type (text/plain, or the other of JSON and event stream).
type answerRewriter struct {
	next             http.Handler
	notifications200 bool
	label            string
}

type rewritingWriter struct {
	http.ResponseWriter
	notifications200 bool
	label            string
	wrote            bool
}

func (w *rewritingWriter) WriteHeader(code int) {
	w.wrote = true
	if code == http.StatusAccepted && w.notifications200 {
		code = http.StatusOK
	}
	if w.label != "" {
		w.Header().Set("Content-Type", w.label)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *rewritingWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *rewritingWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

func (a answerRewriter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	a.next.ServeHTTP(&rewritingWriter{ResponseWriter: w, notifications200: a.notifications200,
		label: map[bool]string{true: a.label}[bytes.Contains(body, []byte(`"method":"tools/call"`))]}, r)
}

// acceptSetter is the client's HTTP transport: it sends every request with the
// Accept header an HTTP library's default would carry.
type acceptSetter struct{ accept string }

func (a acceptSetter) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Accept", a.accept)
	return http.DefaultTransport.RoundTrip(r)
}

// sessionStripper is the client's HTTP transport: it drops Mcp-Session-Id from the
// tools/call POST, as a proxy that forwards only the headers it knows does.
type sessionStripper struct{}

func (sessionStripper) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"method":"tools/call"`)) {
			r.Header.Del("Mcp-Session-Id")
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestPOSTAnswersAndAccept records the Go SDK client and server (v1.8.0) over
// Streamable HTTP, with a front that breaks what the transport says a POST is
// answered with, or a client HTTP transport that sends Accept: */*, as a HAR and as
// a recording of mcpsleuth record --http, and judges both: MCP0008 names the
// server, MCP0009 the client, at the same message in each capture; the healthy
// twin is silent.
func TestPOSTAnswersAndAccept(t *testing.T) {
	cases := []struct {
		name      string
		rewriter  answerRewriter
		json      bool // the server answers requests application/json, not an event stream
		accept    string
		transport http.RoundTripper // the client's, when not http.DefaultTransport
		callFails bool
		rule      string
		want      string // severity and message of the one finding
		method    string // the message the first is anchored at
		n         int    // how many (one a session)
	}{
		{name: "notification-200", rewriter: answerRewriter{notifications200: true}, rule: "MCP0008", method: "notifications/initialized", n: 1,
			want: `^warning POST /mcp \((entry|exchange) \d\) carrying notifications/initialized was answered 200 OK instead of 202 Accepted: .* \(at fault: the server\)$`},
		{name: "request-text-plain", rewriter: answerRewriter{label: "text/plain; charset=utf-8"}, callFails: true, rule: "MCP0008", method: "tools/call", n: 1,
			want: `^error POST /mcp \((entry|exchange) \d\) carrying tools/call id=\d+ was answered 200 OK with Content-Type text/plain: a client reads the response only from application/json or text/event-stream, so this one never reaches it \(at fault: the server\)$`},
		{name: "request-json-labelled-event-stream", rewriter: answerRewriter{label: "text/event-stream"}, json: true, callFails: true, rule: "MCP0008", method: "tools/call", n: 1,
			want: `^error POST /mcp \((entry|exchange) \d\) carrying tools/call id=\d+ was answered 200 OK with Content-Type text/event-stream, but the body is one JSON value and no event: a client reads the body as its Content-Type says, so the response in it never reaches the client \(at fault: the server\)$`},
		{name: "request-events-labelled-json", rewriter: answerRewriter{label: "application/json"}, callFails: true, rule: "MCP0008", method: "tools/call", n: 1,
			want: `^error POST /mcp \((entry|exchange) \d\) carrying tools/call id=\d+ was answered 200 OK with Content-Type application/json, but the body is an event stream: a client reads the body as its Content-Type says, so the response in it never reaches the client \(at fault: the server\)$`},
		// The Go SDK client probes with server/discover (a session of its own), then
		// initializes: one finding a session.
		{name: "accept-wildcard", accept: "*/*", rule: "MCP0009", method: "server/discover", n: 2,
			want: `^warning POST /mcp \((entry|exchange) 1\) carrying server/discover id=\d+ was sent with Accept: \*/\*, which does not list application/json or text/event-stream: .* answered 200, .* 406 Not Acceptable \(at fault: the client\)$`},
		{name: "session-id-stripped", transport: sessionStripper{}, callFails: true, rule: "MCP0010", method: "tools/call", n: 1,
			want: `^error POST /mcp \((entry|exchange) \d\) carrying tools/call id=\d+ has no Mcp-Session-Id, but the server assigned this client session \w+ in its answer to initialize \((entry|line) \d+\), which is still open: .* \(at fault: the client\)$`},
		{name: "healthy"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			har := &harRecorder{}
			server := mcp.NewServer(&mcp.Implementation{Name: "answering-server", Version: "0.1.0"}, nil)
			mcp.AddTool(server, &mcp.Tool{Name: "ask-llm", Description: "Answer"},
				func(context.Context, *mcp.CallToolRequest, samplePrompt) (*mcp.CallToolResult, any, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
				})
			front := tc.rewriter
			front.next = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{JSONResponse: tc.json})
			upstream := httptest.NewServer(har.wrap(front))
			defer upstream.Close()
			proxy, rec, recPath := recordingProxy(t, upstream.URL)
			dir := t.TempDir()

			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			transport := &mcp.StreamableClientTransport{Endpoint: proxy.URL + "/mcp", MaxRetries: -1, DisableStandaloneSSE: true}
			if tc.accept != "" {
				transport.HTTPClient = &http.Client{Transport: acceptSetter{tc.accept}}
			}
			if tc.transport != nil {
				transport.HTTPClient = &http.Client{Transport: tc.transport}
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "answered-client", Version: "0.1.0"}, nil)
			cs, err := client.Connect(ctx, transport, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hello"}})
			if (err != nil) != tc.callFails {
				t.Fatalf("tools/call: error %v, want failure %v", err, tc.callFails)
			}
			cs.Close()
			finishCaptures(t, har, proxy, upstream, rec)
			harPath := filepath.Join(dir, tc.name+".har")
			har.write(t, harPath)
			if *writeAnswerFixtures != "" {
				har.write(t, filepath.Join(*writeAnswerFixtures, "go-sdk-"+tc.name+".har"))
			}
			lines := recordLines(t, recPath)
			var messages [2]string
			for i, path := range []string{harPath, recPath} {
				got := answerFindings(t, path)
				switch {
				case tc.rule == "" && len(got) != 0:
					t.Fatalf("%s: findings on a healthy session: %+v", filepath.Base(path), got)
				case tc.rule == "":
					continue
				case len(got) != tc.n || got[0].Rule != tc.rule:
					t.Fatalf("%s: MCP0008, MCP0009 and MCP0010 findings %+v, want %d %s", filepath.Base(path), got, tc.n, tc.rule)
				}
				fd := got[0]
				if !regexp.MustCompile(tc.want).MatchString(fd.Severity.String() + " " + fd.Message) {
					t.Errorf("%s: %s %s\nwant %s", filepath.Base(path), fd.Severity, fd.Message, tc.want)
				}
				if want := map[string]spec.Side{"MCP0008": spec.Server, "MCP0009": spec.Client, "MCP0010": spec.Client}[tc.rule]; fd.Party != want {
					t.Errorf("%s: names %s, want %s", filepath.Base(path), fd.Party, want)
				}
				if i == 1 {
					if line := lines(`"dir":"c2s"`, `"method":"`+tc.method+`"`); fd.Line != line {
						t.Errorf("recording: at line %d, want %d (the %s record)", fd.Line, line, tc.method)
					}
				}
				messages[i] = regexp.MustCompile(`(entry|exchange|line) \d+|id=\d+`).ReplaceAllString(fd.Message, "N")
			}
			if messages[0] != messages[1] {
				t.Errorf("the HAR and the recording disagree:\nHAR       %s\nrecording %s", messages[0], messages[1])
			}
		})
	}
}

// answerFindings runs the catalogue over a capture and returns its MCP0008,
// MCP0009 and MCP0010 findings.
func answerFindings(t *testing.T, path string) []rule.Finding {
	t.Helper()
	return ruleFindings(t, path, "MCP0008", "MCP0009", "MCP0010")
}
