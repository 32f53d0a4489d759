// Package sdktest drives real MCP SDKs (the official Go SDK and mark3labs/mcp-go)
// in-process, records what they put on the wire as envelope JSONL
// ({"ts","dir","msg"}), and checks mcpsleuth's rules against those captures.
//
// This file holds the recorder; the tests are in the _test.go files.
package sdktest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Directions as written in the envelope, from the client's point of view.
const (
	C2S = "c->s"
	S2C = "s->c"
)

// Side says which peer a recording transport belongs to, so that "written by me"
// and "read by me" map to c->s / s->c.
type Side int

const (
	ClientSide Side = iota
	ServerSide
)

func (s Side) outgoing() string {
	if s == ServerSide {
		return S2C
	}
	return C2S
}

func (s Side) incoming() string {
	if s == ServerSide {
		return C2S
	}
	return S2C
}

// Line is one recorded frame: its 1-based line in the capture, its direction and
// the message bytes exactly as recorded.
type Line struct {
	N   int
	Dir string
	Msg []byte
}

// Method is the message's "method" member ("" for responses).
func (l Line) Method() string {
	var v struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(l.Msg, &v)
	return v.Method
}

// ID is the message's raw "id" token ("" when it has none).
func (l Line) ID() string {
	var v struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(l.Msg, &v)
	return string(v.ID)
}

// IsResponse reports whether the message is a result or an error response.
func (l Line) IsResponse() bool {
	var v map[string]json.RawMessage
	if json.Unmarshal(l.Msg, &v) != nil {
		return false
	}
	_, method := v["method"]
	_, result := v["result"]
	_, failed := v["error"]
	return !method && (result || failed)
}

// Capture is an envelope-JSONL recording, safe for concurrent use. Each Add
// appends one line {"ts":"<RFC3339Nano>","dir":"c->s"|"s->c","msg":<message>}.
type Capture struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	lines []Line
	added chan struct{} // closed (and dropped) by the next Add; see Await
	// Now is the clock (time.Now when nil); SetClock changes it while the peers
	// run.
	Now func() time.Time
}

// SetClock makes now the capture's clock from the next Add on.
func (c *Capture) SetClock(now func() time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Now = now
}

// Add records one message. msg must be exactly one JSON value (a trailing
// newline is dropped); it is embedded verbatim. Bytes that are not valid JSON
// are embedded as a JSON string, so the capture stays one record per line.
func (c *Capture) Add(dir string, msg []byte) {
	msg = bytes.TrimRight(msg, "\r\n")
	if len(bytes.TrimSpace(msg)) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	ts := now().UTC().Format(time.RFC3339Nano)
	payload := msg
	if !json.Valid(msg) {
		payload, _ = json.Marshal(string(msg))
	}
	fmt.Fprintf(&c.buf, `{"ts":%q,"dir":%q,"msg":%s}`+"\n", ts, dir, payload)
	c.lines = append(c.lines, Line{N: len(c.lines) + 1, Dir: dir, Msg: bytes.Clone(msg)})
	if c.added != nil {
		close(c.added)
		c.added = nil
	}
}

// Await blocks until a recorded frame matches and returns the first one that
// does (a frame recorded before the call counts), or fails when ctx ends. Tests
// use it to wait for a message the peers exchange asynchronously (a
// notification, a late response) instead of sleeping.
func (c *Capture) Await(ctx context.Context, match func(Line) bool) (Line, error) {
	next := 0
	for {
		c.mu.Lock()
		pending := c.lines[next:len(c.lines):len(c.lines)]
		next = len(c.lines)
		if c.added == nil {
			c.added = make(chan struct{})
		}
		added := c.added
		c.mu.Unlock()
		for _, l := range pending {
			if match(l) {
				return l, nil
			}
		}
		select {
		case <-added:
		case <-ctx.Done():
			return Line{}, fmt.Errorf("sdktest: no matching frame among the %d recorded: %w", next, ctx.Err())
		}
	}
}

// Bytes returns a copy of the capture.
func (c *Capture) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// String returns the capture as text.
func (c *Capture) String() string { return string(c.Bytes()) }

// Lines returns the recorded frames in capture order.
func (c *Capture) Lines() []Line {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Line(nil), c.lines...)
}

// Find returns the recorded frames that match.
func (c *Capture) Find(match func(Line) bool) []Line {
	var out []Line
	for _, l := range c.Lines() {
		if match(l) {
			out = append(out, l)
		}
	}
	return out
}

// Requests returns the frames carrying a request or notification with this method.
func (c *Capture) Requests(method string) []Line {
	return c.Find(func(l Line) bool { return l.Method() == method })
}

// ResponseTo returns the response to req: the first later frame in the opposite
// direction carrying req's id.
func (c *Capture) ResponseTo(req Line) (Line, bool) {
	id := req.ID()
	for _, l := range c.Lines() {
		if l.N > req.N && l.Dir != req.Dir && l.IsResponse() && l.ID() == id {
			return l, true
		}
	}
	return Line{}, false
}

// Transport wraps an mcp.Transport of one side and records every message that
// side reads or writes. Written messages are recorded before they are handed to
// the wrapped connection, read messages as soon as the wrapped connection returns
// them and before the SDK handles them, so the capture is causally ordered: a
// message never appears before the one that caused it.
//
// The recorded bytes are jsonrpc.EncodeMessage of the message: exactly what the
// SDK's newline-delimited connections (in-memory, IO, stdio, command) write. For a
// message read from a Go SDK peer this re-encoding reproduces the peer's bytes;
// for other peers use Tap, which records the bytes on the pipe itself.
type Transport struct {
	Transport mcp.Transport
	Capture   *Capture
	Side      Side
}

// Connect implements mcp.Transport.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &recordingConn{Connection: conn, capture: t.Capture, side: t.Side}, nil
}

type recordingConn struct {
	mcp.Connection
	capture *Capture
	side    Side
}

func (c *recordingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		data, encErr := jsonrpc.EncodeMessage(msg)
		if encErr != nil {
			return nil, fmt.Errorf("sdktest: re-encoding a read message: %w", encErr)
		}
		c.capture.Add(c.side.incoming(), data)
	}
	return msg, err
}

func (c *recordingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.capture.Add(c.side.outgoing(), data)
	return c.Connection.Write(ctx, msg)
}

// Tap records newline-delimited JSON crossing a byte stream: wrap the reader and
// the writer one side uses (for instance the two ends of io.Pipe between a client
// and a stdio server). Bytes are recorded exactly as they cross, one line per
// message; written lines before they are passed on, read lines before the reader
// returns them.
type Tap struct {
	Capture *Capture
	Side    Side
}

// Reader wraps the side's input.
func (t Tap) Reader(r io.ReadCloser) io.ReadCloser {
	return &tapReader{r: r, capture: t.Capture, dir: t.Side.incoming()}
}

// Writer wraps the side's output.
func (t Tap) Writer(w io.WriteCloser) io.WriteCloser {
	return &tapWriter{w: w, capture: t.Capture, dir: t.Side.outgoing()}
}

type tapReader struct {
	r       io.ReadCloser
	capture *Capture
	dir     string
	mu      sync.Mutex
	pending []byte
}

func (t *tapReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.mu.Lock()
	t.pending = emitLines(t.capture, t.dir, append(t.pending, p[:n]...))
	if err != nil && len(t.pending) > 0 { // a last message without a newline
		t.capture.Add(t.dir, t.pending)
		t.pending = nil
	}
	t.mu.Unlock()
	return n, err
}

func (t *tapReader) Close() error { return t.r.Close() }

type tapWriter struct {
	w       io.WriteCloser
	capture *Capture
	dir     string
	mu      sync.Mutex // keeps recording order equal to write order
	pending []byte
}

func (t *tapWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = emitLines(t.capture, t.dir, append(t.pending, p...))
	return t.w.Write(p)
}

func (t *tapWriter) Close() error {
	t.mu.Lock()
	if len(t.pending) > 0 {
		t.capture.Add(t.dir, t.pending)
		t.pending = nil
	}
	t.mu.Unlock()
	return t.w.Close()
}

// emitLines records each complete line of buf and returns the incomplete rest.
func emitLines(c *Capture, dir string, buf []byte) []byte {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return buf
		}
		c.Add(dir, buf[:i])
		buf = buf[i+1:]
	}
}

// Pipe is an in-memory, newline-delimited connection between a client and a
// server, recorded on the client's side: ClientReader/ClientWriter are the
// client's ends, ServerReader/ServerWriter the server's.
type Pipe struct {
	ClientReader io.ReadCloser
	ClientWriter io.WriteCloser
	ServerReader io.ReadCloser
	ServerWriter io.WriteCloser
}

// NewPipe connects two io.Pipes and taps the client's ends into c.
func NewPipe(c *Capture) *Pipe {
	s2cR, s2cW := io.Pipe()
	c2sR, c2sW := io.Pipe()
	tap := Tap{Capture: c, Side: ClientSide}
	return &Pipe{
		ClientReader: tap.Reader(s2cR),
		ClientWriter: tap.Writer(c2sW),
		ServerReader: c2sR,
		ServerWriter: s2cW,
	}
}

// Close closes both writing ends: every reader then sees EOF and every writer
// still blocked in Write returns io.ErrClosedPipe. The reading ends are left to
// their owners, so a reader goroutine ends with EOF rather than a read on a
// closed pipe.
func (p *Pipe) Close() error {
	return errors.Join(p.ClientWriter.Close(), p.ServerWriter.Close())
}

// Numbered renders the capture with line numbers, for test logs.
func Numbered(capture []byte) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimRight(string(capture), "\n"), "\n") {
		fmt.Fprintf(&b, "%3d  %s\n", i+1, line)
	}
	return b.String()
}
