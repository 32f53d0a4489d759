package frame

import (
	"bytes"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const vscodeName = "vscode-mcp-log"

// vscodeDecoder reads the VS Code "MCP: <server>" output channel:
// "YYYY-MM-DD HH:MM:SS.mmm [level] text" in local time without a zone. Frames appear
// only at the Debug and Trace levels, as "[editor -> server] {json}" and
// "[server -> editor] {json}" (the first builds wrote "[Client Says]" and
// "[Server Says]" at Info). The editor is always the client. Lifecycle lines
// ("Connection state: Running") and "[server stderr]" lines are context. A frame line
// that a copy from the Output panel cut short ("...") is not valid JSON, and says so.
//
// Times carry no zone: they are read as UTC wall-clock time, which keeps their order
// and the durations between them but not their offset from UTC.
type vscodeDecoder struct{}

func (*vscodeDecoder) name() string { return vscodeName }

// copiesStderr: the server's stderr is copied in ("[server stderr] ..."; see
// stderrCopier).
func (*vscodeDecoder) copiesStderr() {}

func (*vscodeDecoder) noFrames() string {
	return "a VS Code MCP output channel without \"[editor -> server]\" or \"[server -> editor]\" lines: it was logged at Info level (set the channel's log level to Debug or Trace to record frames)"
}

var vscodeTags = []struct {
	tag []byte
	dir spec.Direction
}{
	{[]byte("[editor -> server] "), spec.C2S},
	{[]byte("[server -> editor] "), spec.S2C},
	{[]byte("[Client Says] "), spec.C2S},
	{[]byte("[Server Says] "), spec.S2C},
}

// vscodeMarkers identify the channel's lifecycle lines.
var vscodeMarkers = [][]byte{[]byte("Connection state: "), []byte("[server stderr] ")}

// splitVSCode splits "YYYY-MM-DD HH:MM:SS.mmm [level] text".
func splitVSCode(line []byte) (ts, text []byte, ok bool) {
	const tsLen = len("2006-01-02 15:04:05.000")
	if len(line) < tsLen+4 || line[10] != ' ' || line[19] != '.' || !isDate(line[:10]) || !isClock(line[11:19]) || !digits(line[20:23]) || line[23] != ' ' {
		return nil, nil, false
	}
	level, rest, ok := bracketed(line[tsLen+1:])
	if !ok || !isLogLevel(level) {
		return nil, nil, false
	}
	return line[:tsLen], rest, true
}

// isVSCodeLine recognises a frame or lifecycle line of the channel.
func isVSCodeLine(line []byte) bool {
	_, text, ok := splitVSCode(line)
	if !ok {
		return false
	}
	for _, t := range vscodeTags {
		if bytes.HasPrefix(text, t.tag) {
			return true
		}
	}
	for _, m := range vscodeMarkers {
		if bytes.HasPrefix(text, m) {
			return true
		}
	}
	return false
}

func (*vscodeDecoder) decode(line []byte, f *Frame, _ *lineExtras) (RecordKind, relative) {
	ts, text, ok := splitVSCode(line)
	if !ok {
		return RecordContext, relNone
	}
	for _, t := range vscodeTags {
		if !bytes.HasPrefix(text, t.tag) {
			continue
		}
		payload := text[len(t.tag):]
		f.Dir = t.dir
		f.Time, _ = time.Parse("2006-01-02 15:04:05.000", string(ts))
		decodeJSON(f, payload, "logged message")
		return RecordFrame, relNone
	}
	return RecordContext, relNone
}

// vscodeFormat is the vscode format's entry in the table of input formats.
var vscodeFormat = format{
	name:    vscodeName,
	what:    "the VS Code MCP output channel at Debug or Trace level",
	lossy:   false,
	newLine: func() lineDecoder { return &vscodeDecoder{} },
}
