package mock_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	mgclient "github.com/mark3labs/mcp-go/client"
	mgtransport "github.com/mark3labs/mcp-go/client/transport"
	mgmcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/mock"
	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/script"
)

// seed is the capture of the first seed article: the invoices server declares
// resources without listChanged and sends resources/list_changed twice.
const seed = "../../fixtures/seeds/invoices-undeclared-list-changed.jsonl"

// load reads session 1 of a capture as a script, as mcpsleuth mock does.
func load(t *testing.T, path string) *script.Script {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	keep := script.NewAnalysis(0)
	var s *script.Script
	if _, err := driver.Run(path, f, nil, driver.RunOptions{Discard: true, Analyses: []*rule.Analysis{keep},
		OnSession: func(sr *rule.SessionResult) {
			if got := script.Of(sr.ResultOf(keep)); got != nil {
				s = got
			}
		}}); err != nil {
		t.Fatal(err)
	}
	if s == nil {
		t.Fatalf("%s: no session 1", path)
	}
	return s
}

// recorded is what crossed the mock, recorded as record writes it; judged
// runs the rules on it.
type recorded struct {
	buf bytes.Buffer
	rec *record.Recording
	mu  sync.Mutex
}

func newRecorded() *recorded {
	r := &recorded{}
	r.rec = record.NewRecording(lockedWriter{r}, record.Options{})
	return r
}

type lockedWriter struct{ r *recorded }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.r.buf.Write(p)
}

// judged closes the recording and lists the findings of a rule in it as
// "line rule".
func (r *recorded) judged(t *testing.T, id string) []string {
	t.Helper()
	r.rec.Close()
	r.mu.Lock()
	text := r.buf.String()
	r.mu.Unlock()
	res, err := driver.Run("mock", strings.NewReader(text), rules.All(), driver.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if f.Rule == id {
				got = append(got, itoa(f.Line)+" "+f.Rule)
			}
		}
	}
	return got
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// wantSeedSession asserts what the seed's session looks like through a
// client: the captured tool, the captured result for the captured arguments,
// the mock's error for others, and the undeclared notifications delivered
// (neither SDK drops an undeclared list_changed) and judged MCP2001 at their
// lines in the recording of the mock's session.
func wantSeedFindings(t *testing.T, rec *recorded, notified int) {
	t.Helper()
	if notified != 2 {
		t.Errorf("the client saw %d resources/list_changed, want the capture's 2", notified)
	}
	got := rec.judged(t, "MCP2001")
	// MCP2001 stands at each list_changed the mock sent, and nowhere else.
	var want []string
	for i, line := range strings.Split(rec.buf.String(), "\n") {
		if strings.Contains(line, `"notifications/resources/list_changed"`) {
			want = append(want, itoa(i+1)+" MCP2001")
		}
	}
	if len(want) != 2 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("the mock's session: MCP2001 at %v, want %v (the notifications)\n%s", got, want, rec.buf.String())
	}
}

// TestGoSDKClient: the official Go SDK client, over stdio and Streamable HTTP,
// sees the captured server through the mock.
func TestGoSDKClient(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			rec := newRecorded()
			var log bytes.Buffer
			m := mock.New(load(t, seed), mock.Options{Log: &log, Crossed: rec.rec.Frame})
			var mu sync.Mutex
			notified := 0
			client := mcp.NewClient(&mcp.Implementation{Name: "mocktest", Version: "0.1.0"}, &mcp.ClientOptions{
				ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
					mu.Lock()
					notified++
					mu.Unlock()
				},
			})
			var tr mcp.Transport
			if transport == "stdio" {
				clientIn, mockOut := io.Pipe()
				mockIn, clientOut := io.Pipe()
				go func() {
					m.ServeStdio(mockIn, mockOut)
					mockOut.Close()
				}()
				tr = &mcp.IOTransport{Reader: clientIn, Writer: clientOut}
			} else {
				srv := httptest.NewServer(m.Handler())
				defer srv.Close()
				tr = &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1}
			}
			cs, err := client.Connect(ctx, tr, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.InitializeResult(); got.ServerInfo.Name != "invoices" || got.ProtocolVersion != "2025-06-18" || got.Capabilities.Resources == nil || got.Capabilities.Resources.ListChanged {
				t.Fatalf("initialize result: %+v", got)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 || tools.Tools[0].Name != "get_invoice" {
				t.Fatalf("tools/list: %v %+v", err, tools)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_invoice", Arguments: map[string]any{"invoice_id": "INV-2026-0412"}})
			if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "ACME GmbH") {
				t.Fatalf("tools/call: %v %+v", err, res)
			}
			_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_invoice", Arguments: map[string]any{"invoice_id": "INV-9"}})
			if err == nil || !strings.Contains(err.Error(), "mcpsleuth mock: the captured client sent 1 time tools/call, never with these params") {
				t.Fatalf("a call the capture cannot answer: %v", err)
			}
			waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return notified >= 2 })
			cs.Close()
			mu.Lock()
			n := notified
			mu.Unlock()
			wantSeedFindings(t, rec, n)
			if !strings.Contains(log.String(), "tools/call id=") {
				t.Errorf("stderr does not say which request went unanswered: %q", log.String())
			}
		})
	}
}

// TestMcpGoClient: the mcp-go client, over stdio and Streamable HTTP.
func TestMcpGoClient(t *testing.T) {
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			rec := newRecorded()
			m := mock.New(load(t, seed), mock.Options{Crossed: rec.rec.Frame})
			var c *mgclient.Client
			if transport == "stdio" {
				clientIn, mockOut := io.Pipe()
				mockIn, clientOut := io.Pipe()
				go func() {
					m.ServeStdio(mockIn, mockOut)
					mockOut.Close()
				}()
				c = mgclient.NewClient(mgtransport.NewIO(clientIn, clientOut, io.NopCloser(strings.NewReader(""))))
			} else {
				srv := httptest.NewServer(m.Handler())
				defer srv.Close()
				var err error
				if c, err = mgclient.NewStreamableHttpClient(srv.URL + "/mcp"); err != nil {
					t.Fatal(err)
				}
			}
			var mu sync.Mutex
			notified := 0
			c.OnNotification(func(n mgmcp.JSONRPCNotification) {
				if n.Method == "notifications/resources/list_changed" {
					mu.Lock()
					notified++
					mu.Unlock()
				}
			})
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			init, err := c.Initialize(ctx, mgmcp.InitializeRequest{Params: mgmcp.InitializeParams{ProtocolVersion: "2025-06-18",
				ClientInfo: mgmcp.Implementation{Name: "mocktest-mcpgo", Version: "0.1.0"}}})
			if err != nil || init.ServerInfo.Name != "invoices" {
				t.Fatalf("initialize: %v %+v", err, init)
			}
			tools, err := c.ListTools(ctx, mgmcp.ListToolsRequest{})
			if err != nil || len(tools.Tools) == 0 || tools.Tools[0].Name != "get_invoice" {
				t.Fatalf("tools/list: %v %+v", err, tools)
			}
			call := mgmcp.CallToolRequest{}
			call.Params.Name = "get_invoice"
			call.Params.Arguments = map[string]any{"invoice_id": "INV-2026-0412"}
			res, err := c.CallTool(ctx, call)
			if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].(mgmcp.TextContent).Text, "ACME GmbH") {
				t.Fatalf("tools/call: %v %+v", err, res)
			}
			call.Params.Arguments = map[string]any{"invoice_id": "INV-9"}
			if _, err := c.CallTool(ctx, call); err == nil || !strings.Contains(err.Error(), "mcpsleuth mock") {
				t.Fatalf("a call the capture cannot answer: %v", err)
			}
			waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return notified >= 2 })
			c.Close()
			mu.Lock()
			n := notified
			mu.Unlock()
			wantSeedFindings(t, rec, n)
		})
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if ok() {
			return
		}
	}
}

// scriptOf is the script of a capture given as lines.
func scriptOf(t *testing.T, lines ...string) *script.Script {
	t.Helper()
	path := t.TempDir() + "/capture.jsonl"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return load(t, path)
}

const (
	initReq    = `{"dir":"c2s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}}`
	initRes    = `{"dir":"s2c","msg":{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}}`
	initalized = `{"dir":"c2s","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}`
)

func call(id int, arg string, meta string) string {
	return `{"dir":"c2s","msg":{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"t","arguments":{"a":"` + arg + `"}` + meta + `}}}`
}

func result(id int, text string) string {
	return `{"dir":"s2c","msg":{"jsonrpc":"2.0","id":` + itoa(id) + `,"result":{"content":[{"type":"text","text":"` + text + `"}]}}}`
}

// live is a client's message of the live session.
func live(id int, arg, meta string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"t","arguments":{"a":"` + arg + `"}` + meta + `}}`)
}

func texts(out [][]byte) string {
	var parts []string
	for _, o := range out {
		parts = append(parts, string(o))
	}
	return strings.Join(parts, "\n")
}

// TestPolicies: how each policy finds the captured twin of a client's
// request, and what a request the capture cannot answer gets.
func TestPolicies(t *testing.T) {
	s := scriptOf(t, initReq, initRes, initalized, call(1, "x", ""), result(1, "for x"), call(2, "y", ""), result(2, "for y"))
	start := func(p mock.Policy) *mock.Mock {
		m := mock.New(s, mock.Options{Policy: p})
		if got := texts(m.Receive([]byte(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"other","version":"2"}}}`))); !strings.Contains(got, `"id":"i","result":{"protocolVersion":"2025-06-18"`) {
			t.Fatalf("%s: initialize: %s", p, got)
		}
		m.Receive([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		return m
	}
	for _, c := range []struct {
		policy mock.Policy
		args   []string
		want   []string
	}{
		{mock.ByParams, []string{"y", "x", "x", "z"}, []string{`"id":10,"result":{"content":[{"type":"text","text":"for y"}]}`,
			`"id":11,"result":{"content":[{"type":"text","text":"for x"}]}`, `"id":12,"result":{"content":[{"type":"text","text":"for x"}]}`,
			`"code":-32602,"message":"mcpsleuth mock: the captured client sent 2 times tools/call, never with these params`}},
		{mock.ByMethod, []string{"z", "z", "z"}, []string{`"id":10,"result":{"content":[{"type":"text","text":"for x"}]}`,
			`"id":11,"result":{"content":[{"type":"text","text":"for y"}]}`, `"id":12,"result":{"content":[{"type":"text","text":"for y"}]}`}},
		{mock.InOrder, []string{"z", "z", "z"}, []string{`"id":10,"result":{"content":[{"type":"text","text":"for x"}]}`,
			`"id":11,"result":{"content":[{"type":"text","text":"for y"}]}`, `"code":-32603,"message":"mcpsleuth mock: in order, the captured client sent nothing after its last message (line 7), not this tools/call"`}},
	} {
		m := start(c.policy)
		for i, arg := range c.args {
			got := texts(m.Receive(live(10+i, arg, "")))
			if !strings.Contains(got, c.want[i]) {
				t.Errorf("%s, call %d (%s): %s, want %s", c.policy, i+1, arg, got, c.want[i])
			}
		}
	}
	if got := texts(start(mock.ByParams).Receive([]byte(`{"jsonrpc":"2.0","id":5,"method":"prompts/list"}`))); !strings.Contains(got, `"code":-32601,"message":"mcpsleuth mock: the captured client never sent prompts/list`) {
		t.Errorf("a method the capture never saw: %s", got)
	}
}

// TestTurns: the captured server's messages come at the point of the capture:
// a progress notification with the live client's token, a response the
// captured server gave after a later request with that request, a request it
// never answered not answered at all.
func TestTurns(t *testing.T) {
	s := scriptOf(t, initReq, initRes, initalized,
		call(1, "slow", `,"_meta":{"progressToken":"p1"}`),
		call(2, "fast", ""),
		`{"dir":"s2c","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}}`,
		result(2, "fast done"), result(1, "slow done"),
		call(3, "hangs", ""))
	m := mock.New(s, mock.Options{})
	m.Receive([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`))
	if got := m.Receive(live(20, "slow", `,"_meta":{"progressToken":77}`)); len(got) != 0 {
		t.Errorf("the slow call was answered at once: %s", texts(got))
	}
	got := texts(m.Receive(live(21, "fast", "")))
	want := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":77,"progress":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":21,"result":{"content":[{"type":"text","text":"fast done"}]}}` + "\n" +
		`{"jsonrpc":"2.0","id":20,"result":{"content":[{"type":"text","text":"slow done"}]}}`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := m.Receive(live(22, "hangs", "")); len(got) != 0 {
		t.Errorf("the call the captured server never answered got %s", texts(got))
	}
}

// TestRealCapture: a capture recorded between the TypeScript SDK client and
// the everything server (fixtures/real), served to the official Go SDK client
// over stdio and the mcp-go client over Streamable HTTP: each sees the
// everything server's tools and the captured answers to the captured calls.
func TestRealCapture(t *testing.T) {
	const capture = "../../fixtures/real/ts-everything-healthy.jsonl"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	clientIn, mockOut := io.Pipe()
	mockIn, clientOut := io.Pipe()
	go func() {
		mock.New(load(t, capture), mock.Options{}).ServeStdio(mockIn, mockOut)
		mockOut.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "mocktest", Version: "0.1.0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult(); got.ServerInfo.Name != "mcp-servers/everything" || got.ProtocolVersion != "2025-11-25" {
		t.Fatalf("initialize result: %+v", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 13 {
		t.Fatalf("tools/list: %v, %d tools", err, len(tools.Tools))
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "5") {
		t.Fatalf("get-sum: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}})
	if err != nil || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "hello") {
		t.Fatalf("echo: %v %+v", err, res)
	}
	cs.Close()

	srv := httptest.NewServer(mock.New(load(t, capture), mock.Options{}).Handler())
	defer srv.Close()
	c, err := mgclient.NewStreamableHttpClient(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mgmcp.InitializeRequest{Params: mgmcp.InitializeParams{ProtocolVersion: "2025-11-25",
		ClientInfo: mgmcp.Implementation{Name: "mocktest-mcpgo", Version: "0.1.0"}}}); err != nil {
		t.Fatal(err)
	}
	list, err := c.ListTools(ctx, mgmcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 13 {
		t.Fatalf("mcp-go tools/list: %v, %+v", err, list)
	}
	call := mgmcp.CallToolRequest{}
	call.Params.Name = "echo"
	call.Params.Arguments = map[string]any{"message": "hello"}
	got, err := c.CallTool(ctx, call)
	if err != nil || len(got.Content) == 0 || !strings.Contains(got.Content[0].(mgmcp.TextContent).Text, "hello") {
		t.Fatalf("mcp-go echo: %v %+v", err, got)
	}
}
