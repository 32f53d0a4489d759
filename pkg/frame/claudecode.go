package frame

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/quote"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const claudeCodeName = "claude-code-mcp-log"

// claudeCodeFormat is Claude Code's entry in the table of input formats.
var claudeCodeFormat = format{
	name:    claudeCodeName,
	what:    "Claude Code's MCP log (~/.cache/claude-cli-nodejs/<project>/mcp-logs-<server>/<time>.jsonl): a connection's story, no messages",
	lossy:   true,
	newLine: func() lineDecoder { return &claudeCodeDecoder{} },
}

// claudeCodeDecoder reads the log Claude Code writes per MCP server and run: one
// JSON object a line, {"debug"|"error": TEXT, "timestamp", "sessionId", "cwd"}.
// It holds no JSON-RPC messages, but it tells the connection's story: the
// transport and URL, "Connection established with capabilities: {...}" (the
// server's name and version, the era and negotiated revision, which features it
// has), the server's stderr, failures with their HTTP status, closes. Every line
// is context; the decoder keeps that story for the verdict of an input without
// frames (noFrames). One failure is an HTTP exchange the log describes exactly:
// the SSE transport's GET (the TypeScript SDK's SSEClientTransport asks for an
// event stream, Accept: text/event-stream, without a session) refused with a
// status ("SSE error: Non-200 status code (400)"), which becomes an exchange
// record: the rules judge it as they judge the same GET in a HAR (a client
// configured for HTTP+SSE against a Streamable HTTP server, MCP0006).
type claudeCodeDecoder struct {
	conns  []claudeCodeConn
	stderr int // server stderr lines logged
	errors int // "error" records
	first  string
}

// claudeCodeConn is one connection attempt of the log ("Starting connection").
type claudeCodeConn struct {
	transport, url string
	connected      bool
	connectTime    string // "707ms"
	server         string // name and version
	era, revision  string
	features       []string
	failure        string // why it failed, as logged
	status         int    // the HTTP status of the failure, 0 when none was logged
	closed         string // "closed after 0s (cleanly)"
}

func (*claudeCodeDecoder) name() string { return claudeCodeName }

// isClaudeCodeRecord recognises a line of Claude Code's MCP log.
func isClaudeCodeRecord(v gjson.Result) bool {
	if !v.IsObject() || v.Get("sessionId").Type != gjson.String || v.Get("timestamp").Type != gjson.String || !v.Get("cwd").Exists() {
		return false
	}
	return v.Get("debug").Type == gjson.String || v.Get("error").Type == gjson.String
}

var (
	claudeCodeConnected = regexp.MustCompile(`^Successfully connected \(transport: ([a-z-]+)\) in (\d+ms)`)
	claudeCodeStatus    = regexp.MustCompile(`\((\d{3})\)`)
	claudeCodeClosed    = regexp.MustCompile(`^[A-Za-z]+ connection closed (after [0-9.]+m?s \([a-z ]+\))`)
	claudeCodeRevision  = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

func (d *claudeCodeDecoder) decode(line []byte, _ *Frame, x *lineExtras) (RecordKind, relative) {
	v := gjson.ParseBytes(line)
	if !isClaudeCodeRecord(v) {
		return RecordContext, relNone
	}
	text, isErr := v.Get("debug").Str, false
	if e := v.Get("error"); e.Type == gjson.String {
		text, isErr = e.Str, true
	}
	if isErr {
		d.errors++
		if strings.HasPrefix(text, "Server stderr: ") {
			d.stderr += strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
		} else if d.first == "" {
			d.first = strings.Clone(shorten(firstLine(text), 100))
		}
	}
	c := d.conn()
	switch {
	case strings.HasPrefix(text, "Starting connection"):
		if c.connected || c.failure != "" || c.closed != "" {
			d.conns = append(d.conns, claudeCodeConn{transport: c.transport, url: c.url})
		}
	case strings.HasPrefix(text, "Initializing HTTP transport to "):
		c.transport, c.url = "http", strings.Clone(strings.TrimPrefix(text, "Initializing HTTP transport to "))
	case strings.HasPrefix(text, "SSE transport initialized"):
		c.transport = "sse"
	case strings.HasPrefix(text, "Connection established with capabilities: "):
		d.established(c, strings.TrimPrefix(text, "Connection established with capabilities: "))
	case strings.HasPrefix(text, "SSE Connection failed"):
		if _, details, ok := strings.Cut(text, ": "); ok && gjson.Valid(details) {
			if u := gjson.Get(details, "url").Str; u != "" {
				c.url = strings.Clone(u)
			}
			c.failure = strings.Clone(shorten(gjson.Get(details, "error").Str, 120))
		}
		c.transport = "sse"
		if m := claudeCodeStatus.FindStringSubmatch(text); m != nil {
			c.status, _ = strconv.Atoi(m[1])
			x.exchange = d.refusedStream(c, v.Get("timestamp").Str)
		}
	case strings.HasPrefix(text, "Connection failed"):
		if m := claudeCodeStatus.FindStringSubmatch(text); m != nil && c.status == 0 {
			c.status, _ = strconv.Atoi(m[1])
		}
		if _, why, ok := strings.Cut(text, ": "); ok && c.failure == "" {
			c.failure = strings.Clone(shorten(why, 120))
		}
		if c.failure == "" {
			c.failure = strings.Clone(shorten(text, 120))
		}
	default:
		if m := claudeCodeConnected.FindStringSubmatch(text); m != nil {
			c.transport, c.connectTime, c.connected = strings.Clone(m[1]), strings.Clone(m[2]), true
		} else if m := claudeCodeClosed.FindStringSubmatch(text); m != nil {
			c.closed = strings.Clone(m[1]) // letters, digits and spaces only: safe to print
		} else if isErr && c.failure == "" && !c.connected && strings.Contains(strings.ToLower(text), "timed out") {
			c.failure = strings.Clone(shorten(firstLine(text), 120))
		}
	}
	return RecordContext, relNone
}

// conn is the connection the log is telling about now.
func (d *claudeCodeDecoder) conn() *claudeCodeConn {
	if len(d.conns) == 0 {
		d.conns = append(d.conns, claudeCodeConn{})
	}
	return &d.conns[len(d.conns)-1]
}

// established reads the summary Claude Code logs once the handshake is done.
func (d *claudeCodeDecoder) established(c *claudeCodeConn, summary string) {
	if !gjson.Valid(summary) {
		return
	}
	s := gjson.Parse(summary)
	c.connected = true
	if name := s.Get("serverVersion.name").Str; name != "" {
		c.server = strings.Clone(strings.TrimSpace(name + " " + s.Get("serverVersion.version").Str))
	}
	c.era, c.revision = strings.Clone(s.Get("protocolEra").Str), strings.Clone(s.Get("negotiatedProtocolVersion").Str)
	c.features = c.features[:0]
	for _, f := range []struct{ key, name string }{
		{"hasTools", "tools"}, {"hasPrompts", "prompts"}, {"hasResources", "resources"}, {"hasResourceSubscribe", "resource subscriptions"},
	} {
		if s.Get(f.key).Bool() {
			c.features = append(c.features, f.name)
		} else if s.Get(f.key).Exists() {
			c.features = append(c.features, "no "+f.name)
		}
	}
}

// refusedStream is the GET of the SSE transport the log says was refused with
// c.status.
func (d *claudeCodeDecoder) refusedStream(c *claudeCodeConn, at string) *Exchange {
	path := "/"
	if u, err := url.Parse(c.url); err == nil && u.Path != "" {
		path = u.Path
	}
	ts, _ := time.Parse(time.RFC3339Nano, at)
	return &Exchange{Time: ts, HTTP: &HTTP{Exchange: len(d.conns), Method: "GET", Path: strings.Clone(path), Status: c.status,
		Accept: "text/event-stream"}}
}

// noFrames says what the log shows: each connection, its outcome and the contract
// as far as the summary tells, the likely cause of a failure.
func (d *claudeCodeDecoder) noFrames() string {
	var b strings.Builder
	b.WriteString("a Claude Code MCP log: it tells each connection's story (transport, outcome, the server and revision agreed), not the JSON-RPC messages, so no rule that judges messages could run")
	for i, c := range d.conns {
		fmt.Fprintf(&b, "; connection %d", i+1)
		if c.transport != "" {
			fmt.Fprintf(&b, " over %s", c.transport)
		}
		if c.url != "" {
			fmt.Fprintf(&b, " to %s", quote.String(c.url, quote.MaxString))
		}
		switch {
		case c.connected:
			b.WriteString(": connected")
			if c.connectTime != "" {
				b.WriteString(" in " + c.connectTime)
			}
			if c.server != "" {
				b.WriteString(" to " + quote.String(c.server, quote.MaxString))
			}
			switch {
			case claudeCodeRevision.MatchString(c.revision):
				fmt.Fprintf(&b, ", revision %s", c.revision)
			case c.revision != "":
				fmt.Fprintf(&b, ", revision %s", quote.String(c.revision, quote.MaxString))
			}
			if c.era == "legacy" || c.era == "modern" {
				fmt.Fprintf(&b, " (%s era)", c.era)
			}
			if len(c.features) > 0 {
				b.WriteString(", the server offers " + strings.Join(c.features, ", "))
			}
		case c.failure != "":
			b.WriteString(": failed")
			if c.status != 0 {
				fmt.Fprintf(&b, " with HTTP %d", c.status)
			}
			b.WriteString(" (" + quote.String(c.failure, quote.MaxString) + ")")
			if _, advice := claudeCodeCause(c); advice != "" {
				b.WriteString(": " + advice)
			}
		default:
			b.WriteString(": no outcome logged")
		}
		if c.closed != "" {
			b.WriteString(", closed " + c.closed)
		}
	}
	if d.stderr > 0 {
		fmt.Fprintf(&b, "; %s of server stderr", quote.Count(d.stderr, "line"))
	}
	if d.first != "" {
		fmt.Fprintf(&b, "; first error: %s", quote.String(d.first, quote.MaxString))
	}
	return b.String()
}

// claudeCodeCause names the likely cause of a failed connection from its status
// and transport: a few words, and what to do.
func claudeCodeCause(c claudeCodeConn) (cause, advice string) {
	failure := strings.ToLower(c.failure)
	switch {
	case c.status == 401 || c.status == 403:
		return "authorization", "the server refused the client's credentials: check its token or OAuth login (claude mcp, /mcp)"
	case c.transport == "sse" && spec.FallbackStatus(c.status):
		return "client configured for sse", "the client is configured for the HTTP+SSE transport and the server speaks Streamable HTTP: configure it with type \"http\""
	case c.transport == "http" && spec.FallbackStatus(c.status):
		return "client configured for http", "the server may speak only the old HTTP+SSE transport: configure the client with type \"sse\", or check the URL"
	case strings.Contains(failure, "timed out") || strings.Contains(failure, "timeout"):
		return "timeout", "no handshake within the timeout: the server did not start or did not answer initialize (its stderr says why; MCP_TIMEOUT raises the limit)"
	case c.status >= 500:
		return "server error", "the server failed: its own log says why"
	}
	return "", ""
}

// maxConnections bounds the connections a log's Stats lists.
const maxConnections = 64

// connections lists the log's connections for Stats.
func (d *claudeCodeDecoder) connections() []Connection {
	out := make([]Connection, 0, min(len(d.conns), maxConnections))
	for _, c := range d.conns[:min(len(d.conns), maxConnections)] {
		cause, _ := claudeCodeCause(c)
		if c.connected {
			cause = ""
		}
		out = append(out, Connection{Transport: c.transport, URL: c.url, Server: c.server, Revision: c.revision, Connected: c.connected,
			Status: c.status, Cause: cause})
	}
	return out
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
