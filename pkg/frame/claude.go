package frame

import (
	"bytes"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const claudeName = "claude-desktop-log"

// claudeDecoder reads Claude Desktop's MCP logs: the per-server mcp-server-NAME.log
// ("<ts> [NAME] [level] text") and the combined mcp.log, where the level comes first
// ("<ts> [level] [NAME] text") and the servers are interleaved. Frames are the lines
// "Message from client: {json}" (client to server) and "Message from server: {json}",
// with or without Node's " { metadata: ... }" suffix after the JSON. The server name
// becomes the frame's stream key: request ids repeat across servers, and each
// initialize starts a new session of its server. Lifecycle lines, the server's stderr
// (copied in raw, without a timestamp), tracebacks and multi-line %o blocks are context.
type claudeDecoder struct {
	server string // the last server name, reused while it repeats
}

func (*claudeDecoder) name() string { return claudeName }

// copiesStderr: the server's stderr is copied in raw (see stderrCopier).
func (*claudeDecoder) copiesStderr() {}

func (*claudeDecoder) noFrames() string {
	return "a Claude Desktop MCP log without any \"Message from client\" or \"Message from server\" line (lifecycle and stderr lines only)"
}

var (
	claudeFromClient = []byte("Message from client: ")
	claudeFromServer = []byte("Message from server: ")
)

// claudeLine is one timestamped line of a Claude Desktop log.
type claudeLine struct {
	ts, server, level, text []byte
}

func (d *claudeDecoder) decode(line []byte, f *Frame, _ *lineExtras) (RecordKind, relative) {
	l, ok := parseClaudeLine(line)
	if !ok {
		return RecordContext, relNone
	}
	var payload []byte
	switch {
	case bytes.HasPrefix(l.text, claudeFromClient):
		f.Dir, payload = spec.C2S, l.text[len(claudeFromClient):]
	case bytes.HasPrefix(l.text, claudeFromServer):
		f.Dir, payload = spec.S2C, l.text[len(claudeFromServer):]
	default:
		return RecordContext, relNone
	}
	if string(l.server) != d.server {
		d.server = string(l.server)
	}
	f.StreamKey = d.server
	f.Time, _ = time.Parse(time.RFC3339Nano, string(l.ts))
	if end := jsonValueEnd(payload); end > 0 && f.scan(payload[:end]) {
		decodeIndexed(f, 0)
		return RecordFrame, relNone
	}
	f.notJSON(trimMetadata(payload), "logged message")
	return RecordFrame, relNone
}

// trimMetadata drops Node's " { metadata: ... }" suffix from a payload that is not JSON.
func trimMetadata(b []byte) []byte {
	if i := bytes.LastIndex(b, []byte(" { metadata: ")); i >= 0 {
		return b[:i]
	}
	return b
}

// parseClaudeLine splits "<ISO ts>Z [a] [b] text" where one of a, b is a level.
func parseClaudeLine(line []byte) (claudeLine, bool) {
	var l claudeLine
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 || !isISOTimestampZ(line[:sp]) {
		return l, false
	}
	l.ts = line[:sp]
	a, rest, ok := bracketed(line[sp+1:])
	if !ok {
		return l, false
	}
	b, rest, ok := bracketed(rest)
	if !ok {
		return l, false
	}
	switch {
	case isLogLevel(a) && !isLogLevel(b):
		l.level, l.server = a, b // mcp.log
	case isLogLevel(b):
		l.server, l.level = a, b // mcp-server-NAME.log
	default:
		return l, false
	}
	l.text = rest
	return l, true
}

// bracketed reads "[x] " (or "[x]" at the end) from the start of b.
func bracketed(b []byte) (inner, rest []byte, ok bool) {
	if len(b) < 2 || b[0] != '[' {
		return nil, nil, false
	}
	j := bytes.IndexByte(b, ']')
	if j < 1 {
		return nil, nil, false
	}
	rest = b[j+1:]
	if len(rest) > 0 {
		if rest[0] != ' ' {
			return nil, nil, false
		}
		rest = rest[1:]
	}
	return b[1:j], rest, true
}

func isLogLevel(b []byte) bool {
	switch string(b) {
	case "trace", "debug", "info", "warn", "warning", "error", "fatal":
		return true
	}
	return false
}

// isISOTimestampZ matches 2025-03-10T17:03:18.749Z (fraction optional).
func isISOTimestampZ(b []byte) bool {
	if len(b) < 20 || b[len(b)-1] != 'Z' || b[10] != 'T' {
		return false
	}
	return isDate(b[:10]) && isClock(b[11:19])
}

// isDate matches 2025-03-10.
func isDate(b []byte) bool {
	return len(b) == 10 && digits(b[0:4]) && b[4] == '-' && digits(b[5:7]) && b[7] == '-' && digits(b[8:10])
}

// isClock matches 17:03:18.
func isClock(b []byte) bool {
	return len(b) == 8 && digits(b[0:2]) && b[2] == ':' && digits(b[3:5]) && b[5] == ':' && digits(b[6:8])
}

func digits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}

// jsonValueEnd returns the length of the JSON object or array at the start of b, or
// -1 when b does not start with one or it is not closed (a truncated line). It only
// balances brackets outside strings; validity is checked separately.
func jsonValueEnd(b []byte) int {
	if len(b) == 0 || (b[0] != '{' && b[0] != '[') {
		return -1
	}
	depth := 0
	inString, escaped := false, false
	for i, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}

// claudeFormat is the claude format's entry in the table of input formats.
var claudeFormat = format{
	name:    claudeName,
	what:    "Claude Desktop's mcp-server-NAME.log and the combined mcp.log (split by server)",
	lossy:   false,
	newLine: func() lineDecoder { return &claudeDecoder{} },
}
