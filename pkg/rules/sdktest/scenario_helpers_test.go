package sdktest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"strings"
	"testing"

	mgserver "github.com/mark3labs/mcp-go/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// This file holds what the scenario tests (subscriptions, logging, cancellation,
// progress, the 2026-07-28 era) share: a recorded Go SDK client/server pair, an
// mcp-go stdio server on recorded pipes, frame matchers and finding assertions.

// modernRevision is what the Go SDK v1.8.0 speaks when neither side is pinned.
const modernRevision = "2026-07-28"

// goPair is a Go SDK client and server connected over the SDK's in-memory
// transports, the client's side recorded into capture.
type goPair struct {
	t       *testing.T
	ctx     context.Context
	capture *Capture
	server  *mcp.Server
	ss      *mcp.ServerSession
	cs      *mcp.ClientSession
	res     *driver.InputResult // set by analyse
	closed  bool
}

// connectGoPair connects a client built with clientOpts to server; pin is the
// client's ClientSessionOptions.ProtocolVersion ("" = the SDK's default, which
// is 2026-07-28). On failure the numbered capture and mcpsleuth's findings are
// logged.
func connectGoPair(t *testing.T, server *mcp.Server, clientOpts *mcp.ClientOptions, pin string) *goPair {
	t.Helper()
	p := &goPair{t: t, ctx: testContext(t), capture: &Capture{}, server: server}
	logOnFailure(t, "capture", p.capture.Bytes, func() *driver.InputResult { return p.res })
	st, ct := mcp.NewInMemoryTransports()
	var err error
	if p.ss, err = server.Connect(p.ctx, st, nil); err != nil {
		t.Fatalf("server connect: %v", err)
	}
	client := mcp.NewClient(goClientImpl, clientOpts)
	if p.cs, err = client.Connect(p.ctx, &Transport{Transport: ct, Capture: p.capture, Side: ClientSide},
		&mcp.ClientSessionOptions{ProtocolVersion: pin}); err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(p.close)
	return p
}

// close ends the session from the client's side and waits for the server's.
func (p *goPair) close() {
	if p.closed {
		return
	}
	p.closed = true
	if err := p.cs.Close(); err != nil {
		p.t.Logf("client close: %v", err)
	}
	if err := p.ss.Wait(); err != nil && !strings.Contains(err.Error(), "closed") {
		p.t.Logf("server session ended: %v", err)
	}
}

// await waits for a frame the peers exchange asynchronously.
func (p *goPair) await(what string, match func(Line) bool) Line {
	p.t.Helper()
	l, err := p.capture.Await(p.ctx, match)
	if err != nil {
		p.t.Fatalf("waiting for %s: %v", what, err)
	}
	return l
}

// analyse closes the session and runs the whole catalogue over the capture.
func (p *goPair) analyse(name string) *rule.SessionResult {
	p.t.Helper()
	p.close()
	p.res = analyse(p.t, name, p.capture.Bytes())
	return onlySession(p.t, p.res)
}

// mcpgoStdio serves an mcp-go server as a stdio server on the server's ends of
// a recorded pipe until the client closes its end.
type mcpgoStdio struct {
	t       *testing.T
	pipe    *Pipe
	served  chan error
	stop    context.CancelFunc
	stopped bool
}

func serveMCPGo(t *testing.T, ctx context.Context, srv *mgserver.MCPServer, capture *Capture) *mcpgoStdio {
	t.Helper()
	m := &mcpgoStdio{t: t, pipe: NewPipe(capture), served: make(chan error, 1)}
	stdio := mgserver.NewStdioServer(srv)
	stdio.SetErrorLogger(log.New(io.Discard, "", 0))
	var serveCtx context.Context
	serveCtx, m.stop = context.WithCancel(ctx)
	go func() {
		err := stdio.Listen(serveCtx, m.pipe.ServerReader, m.pipe.ServerWriter)
		_ = m.pipe.ServerWriter.Close() // the client's reader sees EOF
		m.served <- err
	}()
	t.Cleanup(func() {
		if !m.stopped { // the test ended early: hang up on the server
			_ = m.pipe.Close()
			m.wait(ctx)
		}
	})
	return m
}

// wait waits for the stdio server to stop once the client closed its end.
func (m *mcpgoStdio) wait(ctx context.Context) {
	if m.stopped {
		return
	}
	m.stopped = true
	defer m.stop()
	defer m.pipe.Close()
	select {
	case err := <-m.served:
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			m.t.Logf("mcp-go server stopped: %v", err)
		}
	case <-ctx.Done():
		m.t.Errorf("mcp-go stdio server did not stop after the client closed")
	}
}

// connectGoClient connects a Go SDK client over the client's ends of the pipe.
func (m *mcpgoStdio) connectGoClient(t *testing.T, ctx context.Context, opts *mcp.ClientOptions, pin string) *mcp.ClientSession {
	t.Helper()
	cs, err := mcp.NewClient(goClientImpl, opts).Connect(ctx, &mcp.IOTransport{Reader: m.pipe.ClientReader, Writer: m.pipe.ClientWriter},
		&mcp.ClientSessionOptions{ProtocolVersion: pin})
	if err != nil {
		t.Fatalf("Go SDK client connect: %v", err)
	}
	return cs
}

// Frame matchers.

func sent(dir, method string) func(Line) bool {
	return func(l Line) bool { return l.Dir == dir && l.Method() == method }
}

func and(preds ...func(Line) bool) func(Line) bool {
	return func(l Line) bool {
		for _, p := range preds {
			if !p(l) {
				return false
			}
		}
		return true
	}
}

func after(n int) func(Line) bool { return func(l Line) bool { return l.N > n } }

func paramIs(key, want string) func(Line) bool {
	return func(l Line) bool {
		var v struct {
			Params map[string]json.RawMessage `json:"params"`
		}
		if json.Unmarshal(l.Msg, &v) != nil {
			return false
		}
		var got string
		return json.Unmarshal(v.Params[key], &got) == nil && got == want
	}
}

// answers matches the response to req (the opposite direction, req's id).
func answers(req Line) func(Line) bool {
	id := req.ID()
	return func(l Line) bool { return l.N > req.N && l.Dir != req.Dir && l.IsResponse() && l.ID() == id }
}

// cancels matches a notifications/cancelled from req's sender naming req's id.
func cancels(req Line) func(Line) bool {
	id := req.ID()
	return func(l Line) bool {
		if l.Dir != req.Dir || l.Method() != "notifications/cancelled" {
			return false
		}
		var v struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		return json.Unmarshal(l.Msg, &v) == nil && string(v.Params.RequestID) == id
	}
}

// subscriptionID is the _meta io.modelcontextprotocol/subscriptionId token of a
// notification ("" when it has none).
func subscriptionID(l Line) string {
	var v struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(l.Msg, &v)
	return string(v.Params.Meta["io.modelcontextprotocol/subscriptionId"])
}

// only returns the single frame matching, failing otherwise.
func only(t *testing.T, c *Capture, what string, match func(Line) bool) Line {
	t.Helper()
	got := c.Find(match)
	if len(got) != 1 {
		var lines []int
		for _, l := range got {
			lines = append(lines, l.N)
		}
		t.Fatalf("want exactly one %s in the capture, found %d (lines %v)", what, len(got), lines)
	}
	return got[0]
}

// prefixLines returns the first n lines of an envelope capture: the capture as
// it would look had the recording stopped there.
func prefixLines(capture []byte, n int) []byte {
	lines := bytes.SplitAfter(capture, []byte("\n"))
	if n > len(lines) {
		n = len(lines)
	}
	return bytes.Join(lines[:n], nil)
}

// Finding assertions.

// expectFinding requires exactly one finding of rule id at line, with the given
// severity and a message containing every part; it returns it.
func expectFinding(t *testing.T, s *rule.SessionResult, id string, line int, sev rule.Severity, parts ...string) rule.Finding {
	t.Helper()
	var hits []rule.Finding
	for _, f := range s.Findings {
		if f.Rule == id && f.Line == line {
			hits = append(hits, f)
		}
	}
	if len(hits) != 1 {
		t.Errorf("want one %s finding at line %d, got %d; all %s findings:\n%s", id, line, len(hits), id, describeFindings(findingsOf(s, id)))
		return rule.Finding{}
	}
	f := hits[0]
	if f.Severity != sev {
		t.Errorf("%s at line %d: severity %s, want %s", id, line, f.Severity, sev)
	}
	for _, part := range parts {
		if !strings.Contains(f.Message, part) {
			t.Errorf("%s at line %d: message lacks %q: %s", id, line, part, f.Message)
		}
	}
	return f
}

// forbid fails on any finding (whatever its severity) of the given rules.
func forbid(t *testing.T, s *rule.SessionResult, why string, ids ...string) {
	t.Helper()
	for _, id := range ids {
		for _, f := range findingsOf(s, id) {
			t.Errorf("%s: line %d %s %s [%s]: %s", why, f.Line, f.Rule, f.Name, f.Severity, f.Message)
		}
	}
}

// at accepts exactly the findings of rule id at the given line.
func at(id string, line int) func(rule.Finding) bool {
	return func(f rule.Finding) bool { return f.Rule == id && f.Line == line }
}

func anyOf(keep ...func(rule.Finding) bool) func(rule.Finding) bool {
	return func(f rule.Finding) bool {
		for _, k := range keep {
			if k(f) {
				return true
			}
		}
		return false
	}
}

// requireLegacy checks the session was judged as the handshake revision wanted.
func requireLegacy(t *testing.T, s *rule.SessionResult, want string) {
	t.Helper()
	if s.Session.Era != session.EraLegacy || s.Session.Legacy == nil {
		t.Fatalf("era = %s, want legacy with a contract", s.Session.Era)
	}
	if got := s.Session.Legacy.Answered; got != want {
		t.Fatalf("negotiated %q, want %q", got, want)
	}
}

// requireModern checks the session was judged as a 2026-07-28 session.
func requireModern(t *testing.T, s *rule.SessionResult) {
	t.Helper()
	if s.Session.Era != session.EraModern {
		t.Fatalf("era = %s, want modern", s.Session.Era)
	}
	if s.Session.ModernRevision != spec.Rev20260728 {
		t.Fatalf("ModernRevision = %q, want %s", s.Session.ModernRevision, modernRevision)
	}
}

// capabilityScaled is the severity of a capability rule under a revision:
// warning under 2024-11-05 and 2025-03-26 (SHOULD), error from 2025-06-18 (MUST).
func capabilityScaled(revision string) rule.Severity {
	if revision == "2024-11-05" || revision == "2025-03-26" {
		return rule.SeverityWarning
	}
	return rule.SeverityError
}
