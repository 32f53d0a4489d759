package frame

import (
	"bytes"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// format is one input format's entry, declared in its decoder's file: its name
// (--input-format), what writes it, and its decoder.
type format struct {
	name string
	// what says what writes it and what it looks like ("" for a document
	// format, whose decoder describes itself).
	what string
	// lossy formats log that messages passed without the messages themselves.
	lossy bool
	// document formats are one JSON document whose locations are entries.
	document bool
	// newLine or newDoc makes a fresh decoder.
	newLine func() lineDecoder
	newDoc  func() docDecoder
}

// formats is the table of input formats: every list of formats, their
// decoders, and which are documents are read from it (detection has an order
// of its own, detectFormat).
var formats = [...]*format{
	&envelopeFormat, &jsonrpcFormat, &gosdkFormat, &claudeFormat, &vscodeFormat, &mcpgoFormat,
	&cursorFormat, &mcpRemoteFormat, &pythonFormat, &claudeCodeFormat, &mcporterFormat,
	&harFormat, &inspectorFormat, &prettyFormat,
}

// formatNamed returns a format's entry.
func formatNamed(name string) (*format, bool) {
	for _, f := range formats {
		if f.name == name {
			return f, true
		}
	}
	return nil, false
}

// decoderNamed returns a fresh decoder for a format name: a line decoder or a
// document decoder.
func decoderNamed(name string) (lineDecoder, docDecoder, bool) {
	f, ok := formatNamed(name)
	switch {
	case !ok:
		return nil, nil, false
	case f.newLine != nil:
		return f.newLine(), nil, true
	}
	return nil, f.newDoc(), true
}

// docNamed returns a fresh document decoder for a format name.
func docNamed(name string) (docDecoder, bool) {
	if f, ok := formatNamed(name); ok && f.newDoc != nil {
		return f.newDoc(), true
	}
	return nil, false
}

// Formats returns the names accepted by Options.Format, sorted.
func Formats() []string {
	names := make([]string, 0, len(formats))
	for _, f := range formats {
		names = append(names, f.name)
	}
	sort.Strings(names)
	return names
}

func formatList() string { return strings.Join(Formats(), ", ") }

// detect picks the decoder for a line, or nil when the line does not tell. weak is
// set for the formats that hold no frames (a later line of a format with frames
// still takes over).
func detect(line []byte) (dec lineDecoder, weak bool) {
	name, weak := detectFormat(line)
	if name == "" {
		return nil, false
	}
	dec, _, _ = decoderNamed(name)
	return dec, weak
}

// detectFormat names the line format a line is written in, or "" when the line does
// not tell; weak as for detect.
func detectFormat(line []byte) (name string, weak bool) {
	if len(line) > 0 && line[0] >= '0' && line[0] <= '9' {
		if _, ok := parseClaudeLine(line); ok {
			return claudeName, false
		}
		if isVSCodeLine(line) {
			return vscodeName, false
		}
	}
	if _, _, ok := splitGoSDK(line); ok {
		return gosdkName, false
	}
	if looksLikeJSON(line) && validJSON(line) {
		v := gjson.Parse(view(line))
		switch {
		case isMCPGoRecord(v):
			return mcpgoName, false
		case isMcporterRecord(v):
			return mcporterName, false
		case isEnvelope(v), isCassetteHeader(v):
			return envelopeName, false
		case isFrameCandidate(v):
			return jsonrpcName, false
		case isClaudeCodeRecord(v):
			return claudeCodeName, true // holds no frames: a later line of a format with frames takes over
		}
		return "", false // a header, stderr or log record: not a frame, so it does not tell
	}
	if isMCPGoTextLine(line) {
		return mcpgoName, true
	}
	if fam := lossyFamilyOf(line); fam != familyNone {
		return lossyName(fam), true
	}
	return "", false
}

// stderrCopier is implemented by the decoders of client logs that copy the server's
// stderr in raw between their own lines (Claude Desktop, VS Code): a line there in a
// format a server logs its own traffic in (see serverLogFormat) repeats what this log
// already shows (a Go SDK server's "write: {...}"), so it is not read as a frame of
// its own (it would be read twice); it is counted in Stats.FrameLike. Lines of a
// recorder's or another client's log (files joined with cat) are read.
type stderrCopier interface {
	copiesStderr()
}

// serverLogFormat reports whether a server may write lines of this format about its
// own traffic to its stderr: the Go SDK's LoggingTransport, mcp-go's slog records,
// bare JSON-RPC (a server that prints its messages).
func serverLogFormat(name string) bool {
	return name == gosdkName || name == mcpgoName || name == jsonrpcName
}

// looksLikeFrame reports whether a line that no decoder read as a frame still looks
// like one: it holds a JSON object with a "jsonrpc" member.
func looksLikeFrame(line []byte) bool {
	i := bytes.Index(line, []byte(`"jsonrpc"`))
	return i > 0 && bytes.IndexByte(line[:i], '{') >= 0
}

// isCassetteHeader recognises mcp-cassette's first line: the envelope decoder must
// see it, for the recording's start that the "t" offsets count from.
func isCassetteHeader(v gjson.Result) bool {
	return v.IsObject() && v.Get("type").Str == "header" && v.Get("cassetteVersion").Exists()
}

// isFrameCandidate reports whether a valid JSON value could be a JSON-RPC message:
// an array (a batch), or an object with "jsonrpc", or with a member of a message
// (method, id, result, error) and no member a message never has (see decodeObject).
func isFrameCandidate(v gjson.Result) bool {
	if !v.IsObject() {
		return true
	}
	member, foreign, version := false, false, false
	v.ForEach(func(k, _ gjson.Result) bool {
		switch k.Str {
		case "jsonrpc":
			version = true
			return false
		case "method", "id", "result", "error":
			member = true
		case "params":
		default:
			foreign = true
		}
		return true
	})
	return version || (member && !foreign)
}

// KnownFormat reports whether name is "auto" or a decoder name.
func KnownFormat(name string) bool {
	if name == "" || name == "auto" {
		return true
	}
	_, _, ok := decoderNamed(name)
	return ok
}
