package frame

const jsonrpcName = "jsonrpc-jsonl"

// jsonrpcDecoder reads bare JSON-RPC lines: one message or batch per line, no
// envelope, so no time and no direction (the session stage infers it).
type jsonrpcDecoder struct{}

func (jsonrpcDecoder) name() string { return jsonrpcName }

// resumable: a line of bare JSON-RPC is read alone.
func (jsonrpcDecoder) resumable() bool { return true }

func (jsonrpcDecoder) decode(line []byte, f *Frame, _ *lineExtras) (RecordKind, relative) {
	if !looksLikeJSON(line) {
		if validJSON(line) {
			decodeMessage(f, line) // a scalar: reported as not JSON-RPC
			return RecordFrame, relNone
		}
		return RecordContext, relNone
	}
	if !f.scan(line) {
		f.notJSON(line, "line")
		return RecordFrame, relNone
	}
	if !decodeIndexed(f, 0) {
		return RecordContext, relNone // a JSON log record or a recorder's header: not a frame
	}
	f.DirReason = "bare JSON-RPC line: direction inferred"
	return RecordFrame, relNone
}

func validJSON(b []byte) bool {
	p, _ := scanJSON(b, nil)
	return p == scanOK
}

// jsonrpcFormat is the jsonrpc format's entry in the table of input formats.
var jsonrpcFormat = format{
	name:    jsonrpcName,
	what:    "bare JSON-RPC: one message a line, directions inferred from the protocol",
	lossy:   false,
	newLine: func() lineDecoder { return jsonrpcDecoder{} },
}
