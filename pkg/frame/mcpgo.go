package frame

import (
	"bytes"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const mcpgoName = "mcpgo-slog"

// mcpgoDecoder reads the slog records of mark3labs/mcp-go's client-side
// transport.NewLogging. With slog's JSONHandler each record is one JSON object:
//
//	{"time":...,"level":"DEBUG","msg":"→ request","method":"initialize","id":1,"params":{...}}
//	{"time":...,"level":"DEBUG","msg":"← response","id":1,"method":"initialize","duration":12000000,"result":"{...}"}
//
// msg is "→ request", "← response", "← response error" (with code and error),
// "→ notification", "← notification" (params as a JSON string), "← request" (a
// server-initiated request), "→ response" and "→ response error" (the client's answer
// to it); "→" is client to server. The records are rebuilt into the JSON-RPC messages
// they describe. A "response error" without a code, and "→ notification error", are
// transport failures, not messages: context. So are the records of a logger set up
// without payloads (WithLoggingPayloads(false): a response without "result"), and
// every record of slog's TextHandler (level=DEBUG msg="→ request" method=...), which
// prints params with Go's %+v: those logs name methods but hold no frames.
type mcpgoDecoder struct {
	buf []byte // the rebuilt message, reused from line to line
}

func (*mcpgoDecoder) name() string { return mcpgoName }

func (*mcpgoDecoder) noFrames() string {
	return "an mcp-go LoggingTransport log without payloads (slog TextHandler, or WithLoggingPayloads(false)): it names methods but holds no messages"
}

// mcpgoRecord is the kind of message an mcp-go log record describes.
type mcpgoRecord struct {
	dir     spec.Direction
	kind    Kind
	isError bool // "response error"
	failure bool // "notification error": nothing was delivered
	valid   bool
}

func parseMCPGoMsg(msg string) mcpgoRecord {
	var r mcpgoRecord
	switch {
	case strings.HasPrefix(msg, "→ "):
		r.dir, msg = spec.C2S, msg[len("→ "):]
	case strings.HasPrefix(msg, "← "):
		r.dir, msg = spec.S2C, msg[len("← "):]
	default:
		return r
	}
	r.valid = true
	switch msg {
	case "request":
		r.kind = KindRequest
	case "notification":
		r.kind = KindNotification
	case "response":
		r.kind = KindResult
	case "response error":
		r.kind, r.isError = KindError, true
	case "notification error":
		r.kind, r.failure = KindNotification, true
	default:
		r.valid = false
	}
	return r
}

// isMCPGoRecord recognises a JSONHandler record of the LoggingTransport.
func isMCPGoRecord(v gjson.Result) bool {
	if !v.IsObject() {
		return false
	}
	return parseMCPGoMsg(v.Get("msg").Str).valid && v.Get("method").Exists()
}

// isMCPGoTextLine recognises a TextHandler record: level=DEBUG msg="→ request" ...
func isMCPGoTextLine(line []byte) bool {
	i := bytes.Index(line, []byte(`msg="`))
	if i < 0 || (!bytes.HasPrefix(line, []byte("time=")) && !bytes.HasPrefix(line, []byte("level="))) {
		return false
	}
	rest := line[i+len(`msg="`):]
	end := bytes.IndexByte(rest, '"')
	return end > 0 && parseMCPGoMsg(string(rest[:end])).valid
}

func (d *mcpgoDecoder) decode(line []byte, f *Frame, _ *lineExtras) (RecordKind, relative) {
	if !looksLikeJSON(line) || !validJSON(line) {
		return RecordContext, relNone
	}
	v := gjson.Parse(view(line))
	if !v.IsObject() {
		return RecordContext, relNone
	}
	var msg, ts, method, id, params, result, code, errText gjson.Result
	v.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "msg":
			msg = val
		case "time":
			ts = val
		case "method":
			method = val
		case "id":
			id = val
		case "params":
			params = val
		case "result":
			result = val
		case "code":
			code = val
		case "error":
			errText = val
		}
		return true
	})
	rec := parseMCPGoMsg(msg.Str)
	if !rec.valid || rec.failure || method.Type != gjson.String {
		return RecordContext, relNone
	}
	b := append(d.buf[:0], `{"jsonrpc":"2.0"`...)
	switch rec.kind {
	case KindRequest, KindNotification:
		if rec.kind == KindRequest {
			if !id.Exists() {
				return RecordContext, relNone
			}
			b = append(append(b, `,"id":`...), id.Raw...)
		}
		b = append(b, `,"method":`...)
		b = append(b, method.Raw...)
		if p, ok := jsonOrString(params); ok {
			b = append(append(b, `,"params":`...), p...)
		}
	case KindResult:
		res, ok := jsonOrString(result)
		if !ok || !id.Exists() {
			return RecordContext, relNone // logged without payloads: the result is not there
		}
		b = append(append(b, `,"id":`...), id.Raw...)
		b = append(append(b, `,"result":`...), res...)
	case KindError:
		if code.Type != gjson.Number || !id.Exists() {
			return RecordContext, relNone // a transport failure, not an error response
		}
		b = append(append(b, `,"id":`...), id.Raw...)
		b = append(append(b, `,"error":{"code":`...), code.Raw...)
		b = append(b, `,"message":`...)
		if errText.Type == gjson.String {
			b = append(b, errText.Raw...)
		} else {
			b = append(b, `""`...)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	d.buf = b
	f.Time = parseTime(ts, time.Time{})
	f.Dir = rec.dir
	decodeJSON(f, b, "rebuilt message")
	return RecordFrame, relNone
}

// jsonOrString returns the raw JSON of an attribute that is either JSON (slog.Any of
// a struct) or JSON held in a string (slog.String of marshalled params or a result).
func jsonOrString(v gjson.Result) ([]byte, bool) {
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return nil, false
	case v.Type == gjson.String:
		s := strings.TrimSpace(v.Str)
		if s == "" || !validJSON([]byte(s)) {
			return nil, false
		}
		return []byte(s), true
	}
	return bytesOf(v.Raw), true
}

// mcpgoFormat is the mcpgo format's entry in the table of input formats.
var mcpgoFormat = format{
	name:    mcpgoName,
	what:    "mcp-go's slog output with payloads (JSON handler)",
	lossy:   false,
	newLine: func() lineDecoder { return &mcpgoDecoder{} },
}
