// Package frame reads captured MCP traffic into frames: one JSON-RPC message (or batch)
// with where it came from, when, and in which direction it travelled.
//
// Reading is streaming: a Reader holds one line at a time, so memory is bounded by the
// longest line, never by the size of the input. The byte slices and strings of a Frame
// alias the Reader's buffer and stay valid only until the next call to Next; a consumer
// that keeps any of them must copy it (strings.Clone, bytes.Clone).
package frame

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Kind is the JSON-RPC shape of a frame.
type Kind uint8

const (
	// KindInvalid is a line or payload that is not a JSON-RPC 2.0 message; Problem says why.
	KindInvalid Kind = iota
	KindRequest
	KindNotification
	KindResult
	KindError
	KindBatch
)

func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindNotification:
		return "notification"
	case KindResult:
		return "result"
	case KindError:
		return "error"
	case KindBatch:
		return "batch"
	}
	return "invalid"
}

// IsResponse reports whether the frame answers a request.
func (k Kind) IsResponse() bool { return k == KindResult || k == KindError }

// Problem says why a frame is KindInvalid.
type Problem uint8

const (
	NoProblem Problem = iota
	// ProblemNotJSON: the record or its payload is not valid JSON (rule MCP0001).
	ProblemNotJSON
	// ProblemNotJSONRPC: valid JSON that is not a JSON-RPC 2.0 message (rule MCP0002).
	ProblemNotJSONRPC
)

// Frame is one message that crossed the wire, as the capture recorded it.
type Frame struct {
	Source string // input name as given by the user ("-" for stdin)
	// Line is the 1-based line of the source where the frame's text starts.
	Line int
	// Entry is the 1-based index of the document entry that carried the frame (a
	// HAR entry, an Inspector message entry, a JSON document of a pretty-printed
	// capture); 0 for line formats. Frames of one entry share it.
	Entry int
	Time  time.Time
	// Dir is the direction of travel; DirReason explains an inferred or unknown one.
	Dir       spec.Direction
	DirReason string
	// StreamKey groups frames of one connection when a file holds several
	// (server label, HTTP session id); empty for single-stream inputs.
	StreamKey string

	Raw  []byte // the JSON-RPC message (or batch) bytes exactly as captured
	Kind Kind
	// method is the spec's entry for Method, looked up as the frame was read (on
	// the parse stage): 0 not looked up, -1 a name the spec does not know, i+1
	// the spec's method index i (SpecMethod).
	method int32

	Method string // requests and notifications
	// ID is the raw JSON token of the id ("1", "\"1\"", "null"); empty when absent.
	ID     string
	Params []byte // raw params, nil when absent
	Result []byte // raw result, nil when absent
	// ErrorCode and ErrorMessage are set for KindError.
	ErrorCode    int64
	ErrorMessage string

	// Members are the messages of a batch (KindBatch), each with this frame's
	// source, line, time, direction, stream key and HTTP exchange.
	Members []Frame

	// Unordered is set by formats whose two directions are logged from concurrent
	// goroutines (the Go SDK LoggingTransport logs a write after it completed): the
	// order between a message and one going the other way is not causal.
	Unordered bool

	// HTTP is the Streamable HTTP exchange that carried the frame (HAR captures);
	// nil for every other input.
	HTTP *HTTP
	// EventID is the id field of the SSE event that carried the frame ("" when
	// the event had none, or the frame travelled in no event stream).
	EventID string

	// view is the validated text the message was read from and its index (shared
	// by a batch and its members); root is the message's entry in it (its first
	// token; -1 when the frame's bytes are not a value of the view). nil when the
	// frame was not decoded from JSON.
	view *textView
	root int32
	// paramsAt and resultAt are the entries of params and result in the view's
	// index (0 when the message has none: entry 0 is the whole text, never a
	// member).
	paramsAt, resultAt int32
	// handoff is set when the bytes the frame was read from belong to no one after
	// it (a huge line's buffer, which the Reader drops): Detach keeps them rather
	// than copying hundreds of megabytes.
	handoff bool

	// shape is the message's wire shape (see Shape). shaped is set once it is the
	// shaper's answer, or will be: shapeLater says it is still to be computed from
	// the tokens the scan recorded, for the value of entry shapeAt of the view.
	shape      uint64
	shapeAt    int32
	shaped     bool
	shapeLater bool

	// Problem and Detail describe a KindInvalid frame; Offset is the byte offset
	// inside the line where JSON parsing failed (ProblemNotJSON), or -1.
	Problem Problem
	Detail  string
	Offset  int64

	// Ahead is what a consumer of the frame computed of it ahead of the replay,
	// on the parse stage, while that stage waited (driver.RunOptions.Prepare): a
	// redaction's collection of the frame's values. nil when nothing was, and the
	// consumer computes it itself. A Reader never sets it.
	Ahead any
}

// HTTP describes the HTTP exchange a frame travelled in (one HAR entry, or the
// records of one exchange of a recording proxy): the request and response line and
// the request headers MCP defines. Header values are "" when the request did not
// carry the header.
type HTTP struct {
	Entry int // 1-based index of the HAR entry in the capture; 0 for a recording
	// Exchange is the 1-based number of the exchange in the capture: the HAR entry,
	// or the number a recording proxy gave it (mcpsleuth record --http).
	Exchange   int
	Method     string // request method: POST, GET, DELETE
	Path       string // request URL path
	Status     int    // response status; 0 when the capture has no response (yet)
	StatusText string
	// ContentType is the response's media type ("text/event-stream"), "" when unknown.
	ContentType string
	// StreamLastID is the id of the last event of the response's event stream
	// (its SSE id field; priming events, which carry no data, count): what a
	// client resumes the stream from with Last-Event-ID; "" when it had none.
	// A HAR gives it with the exchange; a recording on the record of the
	// stream's end, which StreamEnded marks.
	StreamLastID string
	StreamEnded  bool
	// BodyAs is set when the response's body is framed otherwise than its
	// Content-Type says, to the media type it was read as: "application/json"
	// for a body labelled text/event-stream (or text/plain) that holds one JSON
	// value and no event, "text/event-stream" for one labelled JSON (or
	// text/plain) that holds events. "" when they agree, or the body has no
	// Content-Type.
	BodyAs string

	// Live is set when the recorder wrote each message as it crossed (a recording
	// proxy): a response's frames are in the order they crossed, each at its own
	// time. A HAR records a whole response at its request's time. A recording
	// writes a request before its status is known: Status is 0 on the client's
	// message, and a later record of the same Exchange carries it.
	Live bool
	// InResponse is set for a frame that travelled in the response body (JSON or an
	// SSE event) rather than in the request body.
	InResponse bool

	SessionID       string // Mcp-Session-Id request header
	ProtocolVersion string // MCP-Protocol-Version request header
	McpMethod       string // Mcp-Method request header (2026-07-28)
	McpName         string // Mcp-Name request header (2026-07-28), as sent
	Accept          string // Accept request header
	LastEventID     string // Last-Event-ID request header: the GET resumes a stream

	// Endpoint is set on the exchanges of a session of the 2024-11-05 HTTP+SSE
	// transport: the URI (path and query) its stream's endpoint event named, which
	// the client POSTs its messages to. "" on Streamable HTTP.
	Endpoint string
}

// OpensStream reports whether the request is a GET for an event stream without a
// session: how a client of the HTTP+SSE transport opens its session, and how a
// Streamable HTTP client would open a stream it has no session for.
func (h *HTTP) OpensStream() bool {
	return strings.EqualFold(h.Method, "GET") && h.SessionID == "" && strings.Contains(strings.ToLower(h.Accept), "text/event-stream")
}

// Where names the exchange for a finding: "entry 4" in a HAR, "exchange 4" in a
// recording.
func (h *HTTP) Where() string {
	if h.Entry > 0 {
		return "entry " + strconv.Itoa(h.Entry)
	}
	return "exchange " + strconv.Itoa(h.Exchange)
}

// Size is the frame's size in bytes on the wire.
func (f *Frame) Size() int { return len(f.Raw) }

// HasID reports whether the message carried an id member (even null).
func (f *Frame) HasID() bool { return f.ID != "" }

// view returns a string sharing memory with b (no copy). It must not outlive b's contents.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// bytesOf returns the bytes of a gjson raw value that was taken from a view of buf.
func bytesOf(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// textView is the lazily decoded view of one JSON text: the text and the index one
// validating scan made of it (see scan.go).
type textView struct {
	text []byte
	ix   index
	// pre is the text a Reader's worker scanned into ix ahead of the decoder (see
	// scanAhead), and preOK its verdict; nil when the view was not scanned ahead.
	pre   []byte
	preOK bool
	// spare marks a view a Reader made for a frame it builds and queues
	// (Reader.newView): the Reader takes it back once the frame is detached.
	spare bool
}

// scan validates text and indexes it as the frame's view (reusing the frame's index
// memory); false when text is not valid JSON.
func (f *Frame) scan(text []byte) bool {
	if f.view == nil {
		f.view = &textView{}
	}
	if pre := f.view.pre; pre != nil {
		// Scanned ahead (Reader.ScanAhead): exactly these bytes, or else scanned now.
		f.view.pre = nil
		if len(pre) == len(text) && unsafe.SliceData(pre) == unsafe.SliceData(text) {
			f.view.text = text
			return f.view.preOK
		}
	}
	f.view.text = text
	p, _ := scanJSON(text, &f.view.ix)
	return p == scanOK
}

// Get reads a value of the message by gjson path ("params._meta.progressToken",
// `params._meta.io\.modelcontextprotocol/protocolVersion`) through the frame's
// index, reading bytes only past a step into an array (a path's element number).
// The result aliases the frame's bytes.
func (f *Frame) Get(path string) gjson.Result {
	if f.view == nil || f.root < 0 || int(f.root) >= len(f.view.ix.tokens) {
		return gjson.GetBytes(f.Raw, path)
	}
	return lookup(f.view.text, &f.view.ix, f.root, path)
}

// decodeMessage fills f from one JSON payload: a JSON-RPC message or a batch of them.
// Fields alias raw. candidate is false for an object that cannot have been meant as
// a JSON-RPC message (see decodeMembers).
func decodeMessage(f *Frame, raw []byte) (candidate bool) {
	candidate, _ = decodeJSON(f, raw, "payload")
	return candidate
}

// decodeJSON scans raw once: valid JSON is decoded into f; anything else makes f an
// invalid frame whose detail names what it was (a line, a request body, a logged
// message). ok is false then.
func decodeJSON(f *Frame, raw []byte, what string) (candidate, ok bool) {
	if !f.scan(raw) {
		f.notJSON(raw, what)
		return true, false
	}
	return decodeIndexed(f, 0), true
}

// decodeIndexed fills f from the value of entry at of the frame's view.
func decodeIndexed(f *Frame, at int32) (candidate bool) {
	// A shape from an earlier decode of the frame (a copy re-decoded from other
	// bytes) is no longer its shape: unshaped, the Reader shapes it from its bytes.
	f.shape, f.shaped, f.shapeLater = 0, false, false
	candidate = decodeEntry(f, at)
	if f.view != nil && f.root >= 0 && f.view.ix.shaper != nil {
		f.shaped = true
		if f.Kind != KindInvalid && f.Kind != KindBatch {
			f.shapeAt, f.shapeLater = at, true
		}
	}
	return candidate
}

// Shape is the message's wire shape (schema.Shaper), given by a Reader with
// Options.Shaper set so that the schema rules share one per frame; 0 when it was
// not computed or the message has no usable shape. A batch's members have one
// each; the batch itself has none. A shape from the tokens the scan recorded is
// computed when it is first asked for (ShapeNow).
func (f *Frame) Shape() uint64 {
	f.ShapeNow()
	return f.shape
}

// ShapeNow computes the frame's wire shape, and its members', if they are still to
// be computed from the scan's tokens: the parse stage of an analysis does it while
// the replay is behind (Reader.Detach), and the replay does it for what is left.
// Who computes a shape changes nothing: it is a function of the tokens alone. The
// frame must not be in use by another goroutine.
func (f *Frame) ShapeNow() {
	if f.shapeLater {
		f.shapeLater = false
		f.shape = f.view.ix.shapeOf(f.view.text, f.shapeAt)
	}
	for i := range f.Members {
		f.Members[i].ShapeNow()
	}
}

// decodeEntry is decodeIndexed without the shape.
func decodeEntry(f *Frame, at int32) (candidate bool) {
	text, ix := f.view.text, &f.view.ix
	f.root = at
	f.Raw = ix.raw(text, at)
	switch ix.tokens[at].Kind {
	case '[':
		f.Kind = KindBatch
		f.Members = f.Members[:0]
		for c := ix.child(at); c >= 0; c = ix.sibling(c) {
			member := Frame{Source: f.Source, Line: f.Line, Entry: f.Entry, Time: f.Time, Dir: f.Dir, DirReason: f.DirReason, StreamKey: f.StreamKey, HTTP: f.HTTP, Unordered: f.Unordered, Offset: -1, view: f.view, root: -1}
			if ix.tokens[c].Kind == '{' {
				decodeIndexed(&member, c)
			} else {
				member.Raw = ix.raw(text, c)
				member.invalid(ProblemNotJSONRPC, "batch member is not an object")
			}
			f.Members = append(f.Members, member)
		}
		if len(f.Members) == 0 {
			f.invalid(ProblemNotJSONRPC, "empty batch: JSON-RPC requires at least one message in an array")
		}
	case '{':
		var d memberDecoder
		f.paramsAt, f.resultAt = 0, 0
		version, method, id := int32(-1), int32(-1), int32(-1)
		for c := ix.child(at); c >= 0; c = ix.sibling(c) {
			switch ix.key(text, c) {
			case "jsonrpc":
				version = c
			case "method":
				method = c
			case "id":
				id = c
			case "params":
				f.paramsAt, f.Params = c, ix.raw(text, c)
			case "result":
				f.resultAt, f.Result, d.hasResult = c, ix.raw(text, c), true
			case "error":
				d.hasError = true
			default:
				d.foreign = true
			}
		}
		// The common message, told from the index alone: "jsonrpc":"2.0", a
		// method that is a plain string, or a result; anything else is decided
		// by finish, from the members' values.
		if version >= 0 && ix.isPlainString(text, version, "2.0") && !d.hasError && (method < 0 || ix.tokens[method].Kind == '"') {
			if id >= 0 {
				f.ID = view(ix.raw(text, id))
			}
			switch {
			case method >= 0 && !d.hasResult:
				m := ix.tokens[method]
				f.Method = view(text[m.Start+1 : m.End-1])
				f.method = resolveMethod(f.Method)
				f.Kind = KindNotification
				if id >= 0 {
					f.Kind = KindRequest
				}
				return true
			case method < 0 && d.hasResult:
				f.Kind = KindResult
				return true
			}
		}
		d.version, d.method, d.id = ix.value(text, version), ix.value(text, method), ix.value(text, id)
		return d.finish(f)
	default:
		f.invalid(ProblemNotJSONRPC, fmt.Sprintf("a JSON %s, not a JSON-RPC object", jsonType(ix.result(text, at))))
	}
	return true
}

func jsonType(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return "string"
	case gjson.Number:
		return "number"
	case gjson.True, gjson.False:
		return "boolean"
	case gjson.Null:
		return "null"
	}
	if v.IsArray() {
		return "array"
	}
	return "object"
}

// memberDecoder is what decodeEntry read of one JSON-RPC object's members (f.Raw).
type memberDecoder struct {
	version, method, id          gjson.Result
	hasResult, hasError, foreign bool
}

// finish decides what the object is. candidate is false for an object with no
// "jsonrpc" that has no member of a message (method, id, result, error) or has
// members no message has (a JSON log record, a recorder's header or envelope):
// that is not a broken message.
func (d *memberDecoder) finish(f *Frame) (candidate bool) {
	version, method, id := d.version, d.method, d.id
	hasResult, hasError := d.hasResult, d.hasError
	if id.Exists() {
		f.ID = id.Raw
	}
	candidate = version.Exists() || ((method.Exists() || id.Exists() || hasResult || hasError) && !d.foreign)
	switch {
	case !version.Exists():
		f.invalid(ProblemNotJSONRPC, `no "jsonrpc" member: not a JSON-RPC 2.0 message`)
		return candidate
	case version.Type != gjson.String || version.Str != "2.0":
		f.invalid(ProblemNotJSONRPC, fmt.Sprintf(`"jsonrpc" is %s, not "2.0"`, version.Raw))
		return candidate
	case method.Exists() && method.Type != gjson.String:
		f.invalid(ProblemNotJSONRPC, fmt.Sprintf(`"method" is %s, not a string`, method.Raw))
		return candidate
	case method.Exists() && (hasResult || hasError):
		f.invalid(ProblemNotJSONRPC, `both "method" and a result/error: neither a request nor a response`)
		return candidate
	case hasResult && hasError:
		f.invalid(ProblemNotJSONRPC, `both "result" and "error": a response carries exactly one`)
		return candidate
	case method.Exists():
		f.Method = method.Str
		f.method = resolveMethod(f.Method)
		if id.Exists() {
			f.Kind = KindRequest
		} else {
			f.Kind = KindNotification
		}
	case hasResult:
		f.Kind = KindResult
	case hasError:
		f.Kind = KindError
		code := f.Get("error.code")
		if code.Type == gjson.Number {
			f.ErrorCode = code.Int()
		}
		f.ErrorMessage = f.Get("error.message").Str
	default:
		f.invalid(ProblemNotJSONRPC, `no "method", "result" or "error": neither a request, a notification nor a response`)
	}
	return candidate
}

func (f *Frame) invalid(p Problem, detail string) {
	f.Kind = KindInvalid
	f.Problem = p
	f.Detail = detail
	f.Offset = -1
}

// notJSON marks f as invalid JSON, with the parser's cause and byte offset.
// It runs only on the rare failing path, so it can afford encoding/json.
func (f *Frame) notJSON(raw []byte, what string) {
	f.Raw = raw
	if len(raw) > maxIndexedText {
		f.invalid(ProblemNotJSON, fmt.Sprintf("%s is longer than %s: not judged", what, Size(maxIndexedText)))
		return
	}
	if p, at := scanJSON(raw, nil); p == scanTooDeep {
		f.invalid(ProblemNotJSON, fmt.Sprintf("%s is nested deeper than %d levels of arrays and objects (byte %d): not judged", what, MaxNesting, at))
		f.Offset = int64(at)
		return
	}
	var v any
	err := json.Unmarshal(raw, &v)
	var syn *json.SyntaxError
	f.invalid(ProblemNotJSON, "")
	switch {
	case errors.As(err, &syn):
		f.Offset = syn.Offset
		f.Detail = fmt.Sprintf("%s is not valid JSON: %v (byte %d)", what, syn, syn.Offset)
	case err != nil:
		f.Detail = fmt.Sprintf("%s is not valid JSON: %v", what, err)
	default:
		f.Detail = what + " is not valid JSON"
	}
}

// Param reads a value of the message's params by gjson path, through the index;
// the empty path is params itself.
func (f *Frame) Param(path string) gjson.Result { return f.under(f.paramsAt, f.Params, path) }

// ResultGet reads a value of the message's result by gjson path, through the index.
func (f *Frame) ResultGet(path string) gjson.Result { return f.under(f.resultAt, f.Result, path) }

// ParamBytes is the JSON text of the value at path below params (nil when there
// is none), aliasing the frame: for reading only, as long as the frame lives.
func (f *Frame) ParamBytes(path string) []byte { return bytesOf(f.Param(path).Raw) }

// ResultBytes is the JSON text of the value at path below result, as ParamBytes.
func (f *Frame) ResultBytes(path string) []byte { return bytesOf(f.ResultGet(path).Raw) }

// under reads path below the member at entry at (0: not indexed), whose bytes are raw.
func (f *Frame) under(at int32, raw []byte, path string) gjson.Result {
	if raw == nil {
		return gjson.Result{}
	}
	if at > 0 && f.view != nil && f.root >= 0 && int(at) < len(f.view.ix.tokens) {
		return lookup(f.view.text, &f.view.ix, at, path)
	}
	return gjson.GetBytes(raw, path)
}

// SpecMethod is the spec's entry for the frame's method (spec.Resolve of
// Method): looked up once, by the Reader that decoded the frame, so that the
// replay does not hash the name again.
func (f *Frame) SpecMethod() spec.MethodRef {
	switch {
	case f.method > 0:
		return spec.MethodAt(int(f.method - 1))
	case f.method < 0:
		return spec.MethodRef{}
	}
	return spec.Resolve(f.Method)
}

// resolveMethod is Frame.method for a method name.
func resolveMethod(name string) int32 {
	if i := spec.Resolve(name).Index(); i >= 0 {
		return int32(i + 1)
	}
	return -1
}
