package record_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/record/recordtest"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/rules"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const serverEnv = "MCPSLEUTH_RECORD_TEST_SERVER"

// TestMain re-executes the test binary as the Go SDK server the proxy runs.
func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		os.Exit(recordtest.Main())
	}
	os.Exit(m.Run())
}

// serverCommand is the command that runs the test server, with the tee
// directory (may be "") in its environment.
func serverCommand(t *testing.T, tee string) []string {
	t.Helper()
	t.Setenv(serverEnv, "1")
	t.Setenv(recordtest.TeeDirEnv, tee)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "-test.run=^$"}
}

// newRecording starts a recording to a file of the test's: its path and the
// recording, whose file is closed when the test ends.
func newRecording(t *testing.T, opt record.Options) (string, *record.Recording) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "rec.jsonl")
	file, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	return out, record.NewRecording(file, opt)
}

// envelope is one record of a recording.
type envelope struct {
	TS    string          `json:"ts"`
	Dir   string          `json:"dir"`
	Event string          `json:"event"`
	Code  *int            `json:"code"`
	Text  *string         `json:"text"`
	Msg   json.RawMessage `json:"msg"`
	Line  int             `json:"-"`
	Raw   string          `json:"-"`
}

func readRecording(t *testing.T, path string) []envelope {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []envelope
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var e envelope
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("recording line %d is not JSON: %v: %s", n, err, sc.Text())
		}
		e.Line, e.Raw = n, sc.Text()
		out = append(out, e)
	}
	return out
}

// wire rebuilds the bytes of one direction from its recorded frames.
func wire(recs []envelope, dir string) []byte {
	var b bytes.Buffer
	for _, e := range recs {
		if e.Dir == dir && e.Msg != nil {
			b.Write(e.Msg)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func analyse(t *testing.T, path string) *driver.InputResult {
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
	if res.Stats.Format != "envelope-jsonl" {
		t.Errorf("the recording was read as %q, want envelope-jsonl", res.Stats.Format)
	}
	return res
}

func findings(res *driver.InputResult, id string) []rule.Finding {
	var out []rule.Finding
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if f.Rule == id {
				out = append(out, f)
			}
		}
	}
	return out
}

// capture keeps what passed through it.
type capture struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Write(p)
}

func (c *capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

type readCloser struct {
	io.Reader
	io.Closer
}

type writeCloser struct {
	io.Writer
	io.Closer
}

// TestStdioRecordsWhatCrossed records a Go SDK client talking to a Go SDK server
// process through the proxy: each side sees exactly the bytes the other wrote,
// the recording holds exactly those bytes, and check finds the sampling request
// sent to a client that declared no sampling (MCP2002).
func TestStdioRecordsWhatCrossed(t *testing.T) {
	tee := t.TempDir()
	out, rec := newRecording(t, record.Options{})

	clientIn, proxyOut := io.Pipe() // proxy stdout -> client
	proxyIn, clientOut := io.Pipe() // client -> proxy stdin
	var stderr capture
	proxy := &record.Stdio{Command: serverCommand(t, tee), Stdin: proxyIn, Stdout: proxyOut, Stderr: &stderr, Recording: rec}
	type result struct {
		exit record.Exit
		err  error
	}
	done := make(chan result, 1)
	go func() {
		exit, err := proxy.Run(context.Background())
		proxyOut.Close()
		done <- result{exit, err}
	}()

	var clientRead, clientWrote capture
	transport := &mcp.IOTransport{
		Reader: readCloser{Reader: io.TeeReader(clientIn, &clientRead), Closer: clientIn},
		Writer: writeCloser{Writer: io.MultiWriter(&clientWrote, clientOut), Closer: clientOut},
	}
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "recordtest-client", Version: "0.1.0"}, nil)
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	echo, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "<hello & welcome>"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := echo.Content[0].(*mcp.TextContent).Text; got != "<hello & welcome>" {
		t.Errorf("echo through the proxy = %q", got)
	}
	ask, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask-llm", Arguments: map[string]any{"prompt": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if !ask.IsError {
		t.Errorf("ask-llm succeeded against a client without sampling: %+v", ask.Content)
	}
	cs.Close()
	r := <-done
	if r.err != nil || r.exit.Code != 0 {
		t.Fatalf("proxy ended with %+v, %v; want the server's clean exit", r.exit, r.err)
	}
	rec.Close()

	serverRead, err := os.ReadFile(filepath.Join(tee, "stdin.bin"))
	if err != nil {
		t.Fatal(err)
	}
	serverWrote, err := os.ReadFile(filepath.Join(tee, "stdout.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(clientWrote.Bytes(), serverRead) {
		t.Errorf("the server read other bytes than the client wrote:\nclient wrote %q\nserver read  %q", clientWrote.Bytes(), serverRead)
	}
	if !bytes.Equal(serverWrote, clientRead.Bytes()) {
		t.Errorf("the client read other bytes than the server wrote:\nserver wrote %q\nclient read  %q", serverWrote, clientRead.Bytes())
	}
	recs := readRecording(t, out)
	if got := wire(recs, "c2s"); !bytes.Equal(got, clientWrote.Bytes()) {
		t.Errorf("recorded c2s frames differ from the wire:\nrecorded %q\nwire     %q", got, clientWrote.Bytes())
	}
	if got := wire(recs, "s2c"); !bytes.Equal(got, serverWrote) {
		t.Errorf("recorded s2c frames differ from the wire:\nrecorded %q\nwire     %q", got, serverWrote)
	}
	if !strings.Contains(string(stderr.Bytes()), recordtest.StderrBanner) {
		t.Errorf("the server's stderr was not passed through: %q", stderr.Bytes())
	}
	var banner, exit, samplingLine int
	for _, e := range recs {
		switch {
		case e.Dir == "stderr" && e.Text != nil && *e.Text == recordtest.StderrBanner:
			banner = e.Line
		case e.Event == "exit" && e.Code != nil && *e.Code == 0:
			exit = e.Line
		case e.Dir == "s2c" && bytes.Contains(e.Msg, []byte(`"method":"sampling/createMessage"`)):
			samplingLine = e.Line
		}
		if _, err := timeOf(e.TS); err != nil {
			t.Errorf("line %d: ts %q is not RFC 3339: %v", e.Line, e.TS, err)
		}
	}
	if banner == 0 || exit != len(recs) || samplingLine == 0 {
		t.Fatalf("stderr banner at line %d, exit record at %d (want the last, %d), sampling request at %d:\n%s", banner, exit, len(recs), samplingLine, dump(recs))
	}

	res := analyse(t, out)
	hits := findings(res, "MCP2002")
	if len(hits) != 1 || hits[0].Line != samplingLine || hits[0].Method != "sampling/createMessage" || !strings.Contains(hits[0].Message, "sampling") {
		t.Errorf("MCP2002 findings = %+v, want one at line %d for sampling/createMessage", hits, samplingLine)
	}
	for _, s := range res.Sessions {
		for _, f := range s.Findings {
			if f.Rule != "MCP2002" && f.Severity >= rule.SeverityWarning {
				t.Errorf("unexpected finding on the recording: %s line %d: %s", f.Rule, f.Line, f.Message)
			}
		}
	}
}

func dump(recs []envelope) string {
	var b strings.Builder
	for _, e := range recs {
		b.WriteString(e.Raw)
		b.WriteByte('\n')
	}
	return b.String()
}

// scripted runs the proxy with a client that writes lines and then waits for
// the server, without closing its end until the proxy returns.
func scripted(t *testing.T, proxy *record.Stdio, script string, keepOpen bool) (record.Exit, error) {
	t.Helper()
	in, clientOut := io.Pipe()
	proxy.Stdin = in
	go func() {
		_, _ = io.WriteString(clientOut, script)
		if !keepOpen {
			clientOut.Close()
		}
	}()
	exit, err := proxy.Run(context.Background())
	clientOut.Close()
	return exit, err
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scripted","version":"1"}}}` + "\n" +
	`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"

// TestStdioServerCrash: the server exits in the middle of a call; the proxy
// records the calls, the server's last stderr line and its exit status, and
// returns that status.
func TestStdioServerCrash(t *testing.T) {
	out, rec := newRecording(t, record.Options{})
	var stdout, stderr capture
	proxy := &record.Stdio{Command: serverCommand(t, ""), Stdout: &stdout, Stderr: &stderr, Recording: rec}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{}}}` + "\n"
	exit, err := scripted(t, proxy, initialize+call, true)
	rec.Close()
	if err != nil {
		t.Fatal(err)
	}
	if exit.Code != recordtest.CrashCode || exit.Signal != "" {
		t.Errorf("exit = %+v, want status %d", exit, recordtest.CrashCode)
	}
	recs := readRecording(t, out)
	last := recs[len(recs)-1]
	if last.Event != "exit" || last.Code == nil || *last.Code != recordtest.CrashCode || !strings.Contains(*last.Text, "exited with status 3") {
		t.Errorf("last record = %s, want the exit with status 3", last.Raw)
	}
	var crashed bool
	for _, e := range recs {
		if e.Dir == "stderr" && e.Text != nil && strings.Contains(*e.Text, "crashing on purpose") {
			crashed = true
		}
	}
	if !crashed {
		t.Errorf("the server's last stderr line is not recorded:\n%s", dump(recs))
	}
	res := analyse(t, out)
	if hits := findings(res, "MCP3001"); len(hits) != 1 || hits[0].Line != 4 || hits[0].Method != "tools/call" {
		t.Errorf("MCP3001 findings = %+v, want the crash call (line 4) unanswered:\n%s", hits, dump(recs))
	}
}

// brokenClient is a client that stopped reading; wrote is closed at the first
// write the proxy tries.
type brokenClient struct {
	once  sync.Once
	wrote chan struct{}
}

func (b *brokenClient) Write([]byte) (int, error) {
	b.once.Do(func() { close(b.wrote) })
	return 0, errors.New("write |1: broken pipe")
}

// TestStdioClientHangsUp: the client stops reading, then closes the server's
// stdin; the server's answer is still recorded, the hang-up is noted, and the
// server ends normally.
func TestStdioClientHangsUp(t *testing.T) {
	out, rec := newRecording(t, record.Options{})
	client := &brokenClient{wrote: make(chan struct{})}
	in, clientOut := io.Pipe()
	proxy := &record.Stdio{Command: serverCommand(t, ""), Stdin: in, Stdout: client, Stderr: io.Discard, Recording: rec}
	go func() {
		_, _ = io.WriteString(clientOut, initialize)
		<-client.wrote // the answer came, and could not be delivered
		clientOut.Close()
	}()
	exit, err := proxy.Run(context.Background())
	rec.Close()
	if err != nil || exit.Code != 0 {
		t.Fatalf("exit = %+v, %v; want a clean exit", exit, err)
	}
	recs := readRecording(t, out)
	var result, gone, closed bool
	for _, e := range recs {
		switch {
		case e.Dir == "s2c" && bytes.Contains(e.Msg, []byte(`"serverInfo"`)):
			result = true
		case e.Event == "client-gone" && strings.Contains(*e.Text, "broken pipe"):
			gone = true
		case e.Event == "client-closed":
			closed = true
		}
	}
	if !result || !gone || !closed {
		t.Errorf("initialize result recorded %v, client-gone %v, client-closed %v:\n%s", result, gone, closed, dump(recs))
	}
}

// TestStdioRedact: --redact masks the secret in the server's stderr line in the
// recording, and passes the line through unchanged.
func TestStdioRedact(t *testing.T) {
	out, rec := newRecording(t, record.Options{Redact: true})
	var stdout, stderr capture
	proxy := &record.Stdio{Command: serverCommand(t, ""), Stdout: &stdout, Stderr: &stderr, Recording: rec}
	secret := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},"_meta":{"apiKey":"hunter2-is-long"}}}` + "\n"
	if _, err := scripted(t, proxy, initialize+secret, false); err != nil {
		t.Fatal(err)
	}
	rec.Close()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("sk-recordtest0123456789abcdef")) || bytes.Contains(data, []byte("hunter2-is-long")) {
		t.Errorf("the recording keeps a secret:\n%s", data)
	}
	if !bytes.Contains(stderr.Bytes(), []byte("sk-recordtest0123456789abcdef")) {
		t.Errorf("the server's stderr was changed on its way: %q", stderr.Bytes())
	}
	recs := readRecording(t, out)
	if wire := wire(recs, "c2s"); !bytes.HasPrefix(wire, []byte(initialize)) {
		t.Errorf("a message without secrets was not kept verbatim:\n%s", wire)
	}
}

func timeOf(ts string) (time.Time, error) { return time.Parse(time.RFC3339Nano, ts) }

// TestStdioServerLeavesAChildHoldingStdout (issue 29, item 1): a server that
// exits leaving a process of its own holding its stdout ends the recording a
// moment later (said in an output-held record), not when that process ends; and
// no signal is sent, or said to be sent, to a server that has exited.
func TestStdioServerLeavesAChildHoldingStdout(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run the server with")
	}
	out, rec := newRecording(t, record.Options{})
	server := `read line; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; sleep 8 & exit 0`
	proxy := &record.Stdio{Command: []string{sh, "-c", server}, Stdin: strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"),
		Stdout: io.Discard, Stderr: io.Discard, Recording: rec, HangupGrace: 50 * time.Millisecond}
	type ran struct {
		exit record.Exit
		err  error
	}
	done := make(chan ran, 1)
	go func() {
		exit, err := proxy.Run(context.Background())
		done <- ran{exit, err}
	}()
	var r ran
	select {
	case r = <-done:
	case <-time.After(6 * time.Second): // a hang guard: the child lives 8 s
		t.Fatal("the recording waited for the server's child")
	}
	rec.Close()
	if r.err != nil || r.exit.Code != 0 {
		t.Fatalf("exit = %+v, %v; want a clean exit", r.exit, r.err)
	}
	recs := readRecording(t, out)
	var answered, held bool
	for _, e := range recs {
		switch {
		case e.Dir == "s2c" && bytes.Contains(e.Msg, []byte(`"result"`)):
			answered = true
		case e.Event == "output-held":
			held = true
		case e.Event == "signal":
			t.Errorf("a signal record for a server that had exited: %s", e.Raw)
		}
	}
	if !answered || !held {
		t.Errorf("answer recorded %v, output-held %v:\n%s", answered, held, dump(recs))
	}
}

// TestStdioShutdownOrder records a Go SDK client ending a Go SDK server process in
// two orders: with SIGINT and its stdin still open, as Claude Code does (MCP1015
// names the client at the signal), and by closing its stdin, the order the
// lifecycle page gives (silent).
func TestStdioShutdownOrder(t *testing.T) {
	for _, signalFirst := range []bool{true, false} {
		t.Run(map[bool]string{true: "sigint", false: "stdin-closed"}[signalFirst], func(t *testing.T) {
			out, rec := newRecording(t, record.Options{})
			clientIn, proxyOut := io.Pipe()
			proxyIn, clientOut := io.Pipe()
			signals := make(chan os.Signal, 1)
			proxy := &record.Stdio{Command: serverCommand(t, ""), Stdin: proxyIn, Stdout: proxyOut, Stderr: io.Discard, Recording: rec, Signals: signals}
			done := make(chan record.Exit, 1)
			go func() {
				exit, err := proxy.Run(context.Background())
				if err != nil {
					t.Errorf("proxy: %v", err)
				}
				proxyOut.Close()
				done <- exit
			}()
			ctx := context.Background()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "recordtest-client", Version: "0.1.0"}, nil).Connect(ctx,
				&mcp.IOTransport{Reader: clientIn, Writer: clientOut}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "bye"}}); err != nil {
				t.Fatal(err)
			}
			var exit record.Exit
			if signalFirst {
				signals <- syscall.SIGINT
				exit = <-done
				cs.Close()
			} else {
				cs.Close()
				exit = <-done
			}
			rec.Close()
			recs := readRecording(t, out)
			var signalLine, closedLine int
			for _, e := range recs {
				switch e.Event {
				case "signal":
					signalLine = e.Line
				case "client-closed":
					closedLine = e.Line
				}
			}
			got := findings(analyse(t, out), "MCP1015")
			if !signalFirst {
				if signalLine != 0 || closedLine == 0 || exit.Code != 0 || len(got) != 0 {
					t.Fatalf("stdin closed first: signal at line %d, stdin closed at %d, exit %+v, MCP1015 %+v\n%s", signalLine, closedLine, exit, got, dump(recs))
				}
				return
			}
			if signalLine == 0 || (closedLine != 0 && closedLine < signalLine) {
				t.Fatalf("SIGINT first: signal at line %d, stdin closed at %d\n%s", signalLine, closedLine, dump(recs))
			}
			want := fmt.Sprintf("the client sent the server SIGINT (line %d) and never closed the server's stdin before the server exited", signalLine)
			if len(got) != 1 || got[0].Line != signalLine || !strings.HasPrefix(got[0].Message, want) || got[0].Party != spec.Client {
				t.Fatalf("want one MCP1015 at line %d, %q...; got %+v\n%s", signalLine, want, got, dump(recs))
			}
		})
	}
}
