package frame

import "bytes"

const gosdkName = "gosdk-log"

// gosdkDecoder reads the Go SDK LoggingTransport output: "read: <json>" and
// "write: <json>", relative to the process that logged, optionally behind a log
// prefix such as "2026/05/01 12:00:00 ". Other lines ("read error: EOF") are context.
type gosdkDecoder struct{}

func (gosdkDecoder) name() string { return gosdkName }

// resumable: a line is read alone (the side that wrote the log is the Reader's
// to carry: Resume.Perspective).
func (gosdkDecoder) resumable() bool { return true }

func (gosdkDecoder) decode(line []byte, f *Frame, _ *lineExtras) (RecordKind, relative) {
	payload, rel, ok := splitGoSDK(line)
	if !ok {
		return RecordContext, relNone
	}
	f.Unordered = true
	if _, ok := decodeJSON(f, payload, "logged message"); !ok {
		return RecordFrame, relNone
	}
	return RecordFrame, rel
}

// splitGoSDK finds "read: " or "write: " followed by JSON, after at most a short prefix.
func splitGoSDK(line []byte) (payload []byte, rel relative, ok bool) {
	const maxPrefix = 64
	for _, m := range []struct {
		marker string
		rel    relative
	}{{"read: ", relIncoming}, {"write: ", relOutgoing}} {
		i := bytes.Index(line, []byte(m.marker))
		if i < 0 || i > maxPrefix || bytes.ContainsAny(line[:i], "{[\"") {
			continue
		}
		if i > 0 && line[i-1] != ' ' {
			continue
		}
		rest := line[i+len(m.marker):]
		if !looksLikeJSON(rest) {
			continue
		}
		return rest, m.rel, true
	}
	return nil, relNone, false
}

// gosdkFormat is the gosdk format's entry in the table of input formats.
var gosdkFormat = format{
	name:    gosdkName,
	what:    "the Go SDK's LoggingTransport: read: / write: lines",
	lossy:   false,
	newLine: func() lineDecoder { return gosdkDecoder{} },
}
