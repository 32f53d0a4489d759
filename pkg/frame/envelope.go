package frame

import (
	"encoding/base64"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const envelopeName = "envelope-jsonl"

// envelopeDecoder reads recorder JSONL: one object per line wrapping the frame, such as
// {"ts":..., "dir":"c->s", "msg":{...}}, with the aliases recorders use for each field
// (DESIGN.md section 7), all named by the field map (fieldOf). Lines without a payload
// (headers, summaries, stderr) are context.
//
// The recorders of formats.md section 8 are read with their exact shapes:
//   - mcpsnoop: {"session_id","server_label","seq","ts","direction":"c2s"|"s2c"|"stderr"|"meta",
//     "transport","raw":{...}} (stderr and meta records are context; a protocol line that
//     was not JSON is kept as "text" and is a frame that is not JSON; an HTTP batch is
//     split into one record per message with "batch":true and is put back together);
//   - mcp-trace-validator: {"seq","direction":"client-to-server","transport","kind":"message",
//     "payload":{...}} (kind "http" and "lifecycle" records are context);
//   - mcp-cassette: a {"type":"header","startedAt":...} line, then {"type":"frame","t":ms,
//     "dir","frame":{...}}, {"type":"raw","dir","data":"line"} for protocol lines that are
//     not a JSON-RPC object (a batch array lands there), and {"type":"chunks","chunks":
//     [{"t","frame"}]} for an SSE answer; "t" counts milliseconds from startedAt.
//
// mcpsleuth's own HTTP recorder (record --http) adds an "http" member to each record:
// {"exchange":N,"method","url","headers"} on the client's message (or on a "dir":"http"
// record for a request without one: a GET, a DELETE), {"exchange":N,"status","headers"}
// on the server's messages and on a "dir":"http" record for a response without one
// (a 202, an error status with a text body, the end of an event stream). A frame's
// Frame.HTTP is filled from it, a server's record paired with its client's request of
// the same exchange; a "dir":"http" record is context that carries the exchange
// (Record.Exchange).
type envelopeDecoder struct {
	// start is mcp-cassette's header startedAt: "t" offsets count from it.
	start time.Time
	// exchanges holds the request side of the recent HTTP exchanges of a recording
	// (by exchange number), to pair the server's records with; order is the
	// numbers in the order they were seen, for dropping the oldest.
	exchanges map[int]*HTTP
	order     []int // a ring of maxRecordedExchanges numbers
	oldest    int   // the ring's oldest slot once it is full
}

// maxRecordedExchanges bounds the exchanges whose request a decoder remembers: a
// server's record comes soon after its request's, except on long event streams.
const maxRecordedExchanges = 4096

// httpExchange reads a record's "http" member: the request side is remembered, the
// response side paired with it. The result shares no memory with the line.
func (d *envelopeDecoder) httpExchange(v gjson.Result) *HTTP {
	n := int(v.Get("exchange").Int())
	if n <= 0 {
		return nil
	}
	headers := v.Get("headers")
	header := func(name string) string {
		found := ""
		headers.ForEach(func(k, val gjson.Result) bool {
			if strings.EqualFold(k.Str, name) {
				found = strings.Clone(val.Str)
				return false
			}
			return true
		})
		return found
	}
	if method := v.Get("method"); method.Type == gjson.String && method.Str != "" {
		h := &HTTP{Exchange: n, Method: strings.Clone(method.Str), Path: urlPath(v.Get("url").Str), Live: true,
			SessionID:       header("Mcp-Session-Id"),
			ProtocolVersion: header("MCP-Protocol-Version"),
			McpMethod:       header("Mcp-Method"),
			McpName:         header("Mcp-Name"),
			Accept:          header("Accept"),
			LastEventID:     header("Last-Event-ID"),
			Endpoint:        strings.Clone(v.Get("endpoint").Str),
		}
		d.remember(h)
		c := *h
		return &c
	}
	status := int(v.Get("status").Int())
	if status == 0 {
		return nil
	}
	h := HTTP{Exchange: n, Live: true}
	if req := d.exchanges[n]; req != nil {
		h = *req
		if t := header("Content-Type"); t != "" {
			req.ContentType = mediaType(t)
		}
		h.ContentType = req.ContentType
	} else if t := header("Content-Type"); t != "" {
		h.ContentType = mediaType(t)
	}
	h.Status, h.StatusText, h.InResponse = status, http.StatusText(status), true
	h.BodyAs = strings.Clone(v.Get("bodyAs").Str)
	h.StreamEnded, h.StreamLastID = v.Get("streamEnded").Bool(), strings.Clone(v.Get("streamLastId").Str)
	if e := v.Get("endpoint").Str; e != "" {
		h.Endpoint = strings.Clone(e)
		if req := d.exchanges[n]; req != nil {
			req.Endpoint = h.Endpoint // the stream's later records name it no more
		}
	}
	return &h
}

// remember keeps the request side of an exchange, dropping the oldest past the bound.
func (d *envelopeDecoder) remember(h *HTTP) {
	if d.exchanges == nil {
		d.exchanges = map[int]*HTTP{}
	}
	if _, ok := d.exchanges[h.Exchange]; !ok {
		if len(d.order) < maxRecordedExchanges {
			d.order = append(d.order, h.Exchange)
		} else {
			delete(d.exchanges, d.order[d.oldest])
			d.order[d.oldest] = h.Exchange
			d.oldest = (d.oldest + 1) % maxRecordedExchanges
		}
	}
	d.exchanges[h.Exchange] = h
}

// urlPath is the path of a request URI ("/mcp?x=1" -> "/mcp"), copied.
func urlPath(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Path != "" {
		return strings.Clone(u.Path) // url.Parse may hand back a piece of uri, which aliases the line
	}
	return strings.Clone(uri)
}

// mediaType is a Content-Type without its parameters, lower case.
func mediaType(t string) string {
	t, _, _ = strings.Cut(t, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

func (*envelopeDecoder) name() string { return envelopeName }

// resumable: lines to come read no cassette start and no HTTP exchange of the
// lines before.
func (d *envelopeDecoder) resumable() bool { return d.start.IsZero() && len(d.exchanges) == 0 }

// field is what a member of a record is to the envelope decoder: the field map
// (fieldOf) names the members of every recorder for each field.
type field uint8

// The fields from fieldPayload to fieldHTTP are read through their member's entry
// in the line's index (envelopeRecord.at); the others as the members are collected.
const (
	fieldPayload   field = iota // the message: an object, an array or JSON in a string
	fieldDir                    // the direction
	fieldTime                   // the time: a stamp, an epoch number or an offset in ms
	fieldType                   // mcp-cassette's record type
	fieldText                   // mcpsnoop's text: stderr, or a protocol line that was not JSON
	fieldData                   // mcp-cassette's "raw" record's line
	fieldChunks                 // mcp-cassette's frames of one SSE answer
	fieldStarted                // mcp-cassette's header's start of the recording
	fieldSeq                    // a record's sequence number
	fieldEvent                  // record's event of the server process: "client-closed", "signal", "exit"
	fieldSignal                 // record's signal of a "signal" event
	fieldBy                     // record's sender of a signal: "client" or "recorder"
	fieldHTTP                   // record --http's HTTP exchange
	fieldStream                 // the stream key: the session or server of the record
	fieldBatch                  // mcpsnoop's mark on one message of a split batch
	fieldTruncated              // mcpsnoop's mark on a text cut short
	fieldEncoding               // record's "base64": the text is the base64 of bytes that are not UTF-8
	fieldJSONRPC                // a bare message's "jsonrpc": the line is no envelope
	fieldNone                   // a member the decoder does not read
)

// entryFields is the number of fields read through their member's entry.
const entryFields = int(fieldHTTP) + 1

// fieldOf is the field map of recorder JSONL: the field that a member named key is,
// for every name a record may carry, and fieldNone for any other name. The
// recorders write these members:
//   - generic envelopes ({"ts","dir","msg"}, DESIGN.md section 7 and the alias table
//     of formats.md section 8): the time as "ts", "time", "timestamp", "t",
//     "elapsed_ms" or "startedDateTime"; the direction as "dir", "direction" or
//     "origin"; the message as "msg", "message", "payload", "raw", "frame", "body" or
//     "json"; the stream as "session_id", "session", "server_label", "server_name",
//     "serverName" or "conn_id";
//   - mcpsnoop: "session_id", "server_label" and "conn_id" (stream), "seq", "ts",
//     "direction", "raw" (message), "text", "batch" and "truncated" (a "text" with
//     a "seq" and no direction is a line that is not JSON, as redact --format
//     envelope writes one whose direction the capture did not tell);
//   - mcp-trace-validator: "seq", "direction", "ts" and "payload" (message); its
//     "kind" is not read, as a record without a message is context;
//   - mcp-cassette: "type", "startedAt" (header), "t", "dir", "frame" (message),
//     "data" (a "raw" record's line) and "chunks";
//   - mcpsleuth's record --http: "ts", "dir", "session_id" (stream), "seq", "text",
//     "http" and "msg" (message); and record's "encoding": "base64" on a text
//     record whose bytes are not UTF-8 (the text is their base64: lossless).
//
// A top-level "jsonrpc" makes the line a bare message rather than an envelope.
// The map is a switch: Go compiles it to a search on the key's length and bytes,
// faster on every member of every line than a map[string]field's hash (3.7 ns a
// key against 10.7 ns, and 4.4 ns for the alias functions it replaced).
func fieldOf(key string) field {
	switch key {
	case "msg", "message", "payload", "raw", "frame", "body", "json":
		return fieldPayload
	case "dir", "direction", "origin":
		return fieldDir
	case "ts", "time", "timestamp", "t", "elapsed_ms", "startedDateTime":
		return fieldTime
	case "session_id", "session", "server_label", "server_name", "serverName", "conn_id":
		return fieldStream
	case "type":
		return fieldType
	case "text":
		return fieldText
	case "data":
		return fieldData
	case "chunks":
		return fieldChunks
	case "startedAt":
		return fieldStarted
	case "seq":
		return fieldSeq
	case "event":
		return fieldEvent
	case "signal":
		return fieldSignal
	case "by":
		return fieldBy
	case "http":
		return fieldHTTP
	case "batch":
		return fieldBatch
	case "truncated":
		return fieldTruncated
	case "encoding":
		return fieldEncoding
	case "jsonrpc":
		return fieldJSONRPC
	}
	return fieldNone
}

// isEnvelope reports whether a JSON value is an envelope rather than a bare message:
// an object with a payload field holding an object, an array or a JSON string, and no
// top-level "jsonrpc".
func isEnvelope(v gjson.Result) bool {
	if !v.IsObject() {
		return false
	}
	envelope := false
	v.ForEach(func(k, val gjson.Result) bool {
		switch fieldOf(k.Str) {
		case fieldJSONRPC:
			envelope = false
			return false
		case fieldPayload:
			if val.IsObject() || val.IsArray() || (val.Type == gjson.String && looksLikeJSON([]byte(val.Str))) {
				envelope = true
			}
		case fieldHTTP:
			// A recording's record of an HTTP exchange that carried no message
			// (mcpsleuth record --http): a capture of a connection refused before
			// any message may hold nothing else.
			if val.IsObject() && val.Get("exchange").Type == gjson.Number {
				envelope = true
			}
		}
		return true
	})
	return envelope
}

// envelopeRecord is one record's members sorted by the field map: the entries of
// those read through their entry, read as values only where they are used (most
// records are a time, a direction and a message).
type envelopeRecord struct {
	line []byte
	ix   *index
	// at holds, for each field read through its entry, 1 + the entry of the
	// record's member of that field; 0 when the record has none (the zero value).
	at [entryFields]int32
	// batch and truncated are mcpsnoop's marks; bare says the line has a top-level
	// "jsonrpc"; base64 says the text is base64 (record's "encoding").
	batch, truncated, bare, base64 bool
	// dir is the direction as a string ("" when absent or not a string); dirPlain
	// says it is a string without escapes, read where it lies in the line without a
	// value made of it.
	dir      string
	dirPlain bool
}

// collect sorts the members of the record at the root of the line's index by the
// field map. The first message that is not null, the first direction and the first
// time are the record's; the first stream member that is neither null nor "" sets
// the frame's StreamKey; of any other field, the last member is the record's.
func (r *envelopeRecord) collect(f *Frame, line []byte) {
	ix := &f.view.ix
	r.line, r.ix = line, ix
	for c := ix.child(0); c >= 0; c = ix.sibling(c) {
		name, kind := ix.keyToken(c), ix.tokens[c].Kind
		key := view(line[name.Start:name.End]) // index.key without a call: no escapes
		if name.Kind == 'K' {
			key = ix.key(line, c)
		}
		switch k := fieldOf(key); k {
		case fieldNone:
		case fieldPayload:
			if r.at[k] == 0 && kind != 'n' {
				r.at[k] = c + 1
			}
		case fieldDir, fieldTime:
			if r.at[k] == 0 {
				r.at[k] = c + 1
			}
		case fieldStream:
			if f.StreamKey == "" {
				f.StreamKey = streamKey(ix.result(line, c))
			}
		case fieldBatch:
			r.batch = kind == 't'
		case fieldTruncated:
			r.truncated = kind == 't'
		case fieldEncoding:
			r.base64 = ix.kind(c) == '"' && ix.result(line, c).Str == "base64"
		case fieldJSONRPC:
			r.bare = true
		default:
			r.at[k] = c + 1
		}
	}
}

// readDir reads the direction as the string it almost always is (no escapes):
// compared as it lies in the line, without a value made of it.
func (r *envelopeRecord) readDir() {
	c := r.at[fieldDir] - 1
	if c < 0 {
		return
	}
	if t := r.ix.tokens[c]; t.Kind == '"' {
		r.dir, r.dirPlain = view(r.line[t.Start+1:t.End-1]), true
	} else {
		r.dir = r.ix.result(r.line, c).Str
	}
}

// streamKey is a stream member's value as a stream key: a string's text, any other
// value's JSON text, "" for null. The result shares no memory with the line.
func streamKey(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return strings.Clone(v.Str)
	case gjson.Null:
		return ""
	}
	return strings.Clone(v.Raw)
}

// has reports whether the record has a member of the field k.
func (r *envelopeRecord) has(k field) bool { return r.at[k] != 0 }

// value is the record's member of the field k as a gjson.Result (the zero Result
// when absent).
func (r *envelopeRecord) value(k field) gjson.Result { return r.ix.value(r.line, r.at[k]-1) }

// recorderSpecific reports whether the record may be one that is not a plain
// message in an envelope (see decodeRecorder).
func (r *envelopeRecord) recorderSpecific() bool {
	return r.has(fieldType) || !r.has(fieldPayload) || r.has(fieldHTTP) || r.dir == "meta"
}

// decode reads one line: a record's members are collected by the field map
// (collect) and its direction read (readDir), then the record is read as one of a
// recorder's own records (decodeRecorder) or as a plain message in an envelope
// (decodeEnvelope). A line that is not an object, or is a bare message, is read as
// a message.
func (d *envelopeDecoder) decode(line []byte, f *Frame, x *lineExtras) (RecordKind, relative) {
	if !looksLikeJSON(line) {
		return RecordContext, relNone
	}
	if !f.scan(line) {
		f.notJSON(line, "record")
		return RecordFrame, relNone
	}
	if f.view.ix.tokens[0].Kind == '[' {
		decodeIndexed(f, 0) // a bare batch among envelopes
		return RecordFrame, relNone
	}
	var r envelopeRecord
	r.collect(f, line)
	if r.bare {
		f.StreamKey = ""
		decodeIndexed(f, 0)
		return RecordFrame, relNone
	}
	r.readDir()
	if r.recorderSpecific() {
		if kind, rel, done := d.decodeRecorder(f, x, &r); done {
			return kind, rel
		}
	}
	return d.decodeEnvelope(f, x, &r)
}

// decodeRecorder decodes the records that are not a plain message in an envelope: a
// recorder's header, raw line or chunks, a session description, an HTTP exchange
// with no message, a line that was not JSON. done is false for a record that is a
// message after all, which decode reads on.
func (d *envelopeDecoder) decodeRecorder(f *Frame, x *lineExtras, r *envelopeRecord) (kind RecordKind, rel relative, done bool) {
	if r.has(fieldType) {
		switch r.value(fieldType).Str {
		case "header":
			d.cassetteHeader(r)
			return RecordContext, relNone, true
		case "raw":
			kind, rel = d.cassetteRaw(f, r)
			return kind, rel, true
		case "chunks":
			kind, rel = d.cassetteChunks(f, x, r)
			return kind, rel, true
		}
	}
	switch {
	case r.dir == "meta":
		return RecordContext, relNone, true // mcpsnoop's session description
	case r.has(fieldPayload):
		return 0, relNone, false
	case r.value(fieldHTTP).IsObject():
		d.exchangeRecord(f, x, r)
		return RecordContext, relNone, true
	case r.has(fieldEvent):
		x.lifecycle = d.lifecycle(r)
		return RecordContext, relNone, true
	}
	return d.withoutMessage(f, r), relNone, true
}

// exchangeRecord reads a record --http record of an HTTP exchange without a message
// ("dir":"http"): context that carries the exchange (lineExtras.exchange).
func (d *envelopeDecoder) exchangeRecord(f *Frame, x *lineExtras, r *envelopeRecord) {
	if h := d.httpExchange(r.value(fieldHTTP)); h != nil {
		x.exchange = &Exchange{HTTP: h, StreamKey: f.StreamKey, Time: parseTime(r.value(fieldTime), d.start)}
	}
}

// lifecycle reads a recording's event of the server process (nil for an event
// that is none: the proxy's start, a line too long): context that carries it
// (lineExtras.lifecycle).
func (d *envelopeDecoder) lifecycle(r *envelopeRecord) *Lifecycle {
	at := parseTime(r.value(fieldTime), d.start)
	switch r.value(fieldEvent).Str { // a view of the line: the record keeps constants and clones
	case "client-closed":
		return &Lifecycle{Event: "client-closed", Time: at}
	case "exit":
		return &Lifecycle{Event: "exit", Time: at}
	case "signal":
		return &Lifecycle{Event: "signal", Signal: strings.Clone(r.value(fieldSignal).Str), By: strings.Clone(r.value(fieldBy).Str), Time: at}
	}
	return nil
}

// withoutMessage reads a record without a message: mcpsnoop's line on the protocol
// channel that was not JSON is a frame that is not JSON; any other (a header,
// summary, lifecycle or stderr record) is context.
func (d *envelopeDecoder) withoutMessage(f *Frame, r *envelopeRecord) RecordKind {
	text := r.value(fieldText)
	// A direction the record has not (mcpsleuth redact --format envelope of a
	// line whose capture did not tell it) leaves the line a frame all the same;
	// any other than c2s and s2c (stderr, meta) makes it context.
	if text.Type != gjson.String || !r.has(fieldSeq) || r.truncated || (r.has(fieldDir) && r.dir != "c2s" && r.dir != "s2c") {
		return RecordContext
	}
	f.Time = parseTime(r.value(fieldTime), d.start)
	f.Dir, _, f.DirReason = parseDirection(r.value(fieldDir))
	line := []byte(text.Str)
	if r.base64 {
		if b, err := base64.StdEncoding.DecodeString(text.Str); err == nil {
			line = b // the bytes as they crossed
		}
	}
	f.notJSON(line, "protocol line")
	return RecordFrame
}

// decodeEnvelope decodes a plain message in an envelope: the record's time (an
// RFC 3339 UTC stamp read where it lies, any other value as parseTime reads it),
// direction (a common spelling as it lies in the line, any other value as
// parseDirection reads it) and HTTP exchange, then its message.
func (d *envelopeDecoder) decodeEnvelope(f *Frame, x *lineExtras, r *envelopeRecord) (RecordKind, relative) {
	timed := false
	if c := r.at[fieldTime] - 1; c >= 0 {
		if t := r.ix.tokens[c]; t.Kind == '"' {
			f.Time, timed = parseUTCStamp(view(r.line[t.Start+1 : t.End-1]))
		}
	}
	if !timed {
		f.Time = parseTime(r.value(fieldTime), d.start)
	}
	var rel relative
	if dir, common := commonDirection(r.dir); r.dirPlain && common {
		f.Dir, f.DirReason = dir, ""
	} else {
		f.Dir, rel, f.DirReason = parseDirection(r.value(fieldDir))
	}
	if r.has(fieldHTTP) {
		if h := r.value(fieldHTTP); h.IsObject() {
			f.HTTP = d.httpExchange(h)
			f.EventID = strings.Clone(h.Get("sseId").Str)
		}
	}
	return r.decodePayload(f, x, rel)
}

// decodePayload decodes the record's message into f: rel is the record's relative
// direction, returned for a message that is a frame. A message carried as a string
// that is not JSON (a text message, such as stderr) makes the record context.
func (r *envelopeRecord) decodePayload(f *Frame, x *lineExtras, rel relative) (RecordKind, relative) {
	at := r.at[fieldPayload] - 1
	switch kind := r.ix.kind(at); kind {
	case '{', '[':
		object := kind == '{'
		decodeIndexed(f, at)
		if r.batch && object {
			x.batchKey = "batch\x00" + r.dir + "\x00" + f.StreamKey
		}
	case '"':
		body := []byte(r.ix.result(r.line, at).Str) // JSON carried as a string: unescaped copy
		if !looksLikeJSON(body) {
			return RecordContext, relNone
		}
		if _, ok := decodeJSON(f, body, "payload"); !ok {
			return RecordFrame, relNone
		}
	default:
		decodeMessage(f, r.ix.raw(r.line, at))
	}
	return RecordFrame, rel
}

// cassetteHeader reads mcp-cassette's header: the start of the recording, which
// the "t" offsets count from.
func (d *envelopeDecoder) cassetteHeader(r *envelopeRecord) {
	if t := parseTime(r.value(fieldStarted), time.Time{}); !t.IsZero() {
		d.start = t
	}
}

// cassetteRaw reads an mcp-cassette "raw" record: a line on the protocol channel that
// was not a JSON-RPC object, such as a batch array or stray output.
func (d *envelopeDecoder) cassetteRaw(f *Frame, r *envelopeRecord) (RecordKind, relative) {
	dir, rel, reason := parseDirection(r.value(fieldDir))
	data := r.value(fieldData)
	if data.Type != gjson.String || (dir == spec.DirUnknown && rel == relNone) {
		return RecordContext, relNone
	}
	f.Time = parseTime(r.value(fieldTime), d.start)
	f.Dir, f.DirReason = dir, reason
	body := []byte(data.Str)
	decodeJSON(f, body, "protocol line")
	return RecordFrame, rel
}

// cassetteChunks reads an mcp-cassette "chunks" record: the frames of one SSE answer,
// each with its own "t".
func (d *envelopeDecoder) cassetteChunks(f *Frame, x *lineExtras, r *envelopeRecord) (RecordKind, relative) {
	dir, rel, reason := parseDirection(r.value(fieldDir))
	first := true
	r.value(fieldChunks).ForEach(func(_, c gjson.Result) bool {
		payload := c.Get("frame")
		if !payload.IsObject() && !payload.IsArray() {
			return true
		}
		target := f
		if !first {
			x.more = append(x.more, Frame{Source: f.Source, Line: f.Line, StreamKey: f.StreamKey, Offset: -1})
			target = &x.more[len(x.more)-1]
		}
		first = false
		target.Time = parseTime(c.Get("t"), d.start)
		target.Dir, target.DirReason = dir, reason
		decodeMessage(target, bytesOf(payload.Raw))
		return true
	})
	if first {
		return RecordContext, relNone
	}
	return RecordFrame, rel
}

// parseDirection maps the direction values recorders write. Relative values
// (send/receive, in/out, read/write) depend on which side logged.
func parseDirection(v gjson.Result) (spec.Direction, relative, string) {
	if !v.Exists() {
		return spec.DirUnknown, relNone, "the record has no direction field"
	}
	if d, ok := commonDirection(v.Str); ok {
		return d, relNone, ""
	}
	switch strings.ToLower(v.Str) {
	case "c2s", "c->s", "client-to-server", "client_to_server", "client->server", "clienttoserver", "client", "request", "to_server", "toserver", "tx":
		return spec.C2S, relNone, ""
	case "s2c", "s->c", "server-to-client", "server_to_client", "server->client", "servertoclient", "server", "response", "to_client", "toclient", "rx":
		return spec.S2C, relNone, ""
	case "send", "sent", "out", "outgoing", "write", "outbound":
		return spec.DirUnknown, relOutgoing, ""
	case "receive", "received", "recv", "in", "incoming", "read", "inbound":
		return spec.DirUnknown, relIncoming, ""
	}
	return spec.DirUnknown, relNone, "unrecognised direction value " + quoteShort(v.Raw)
}

// commonDirection reads the common spellings of a direction, without lowering them
// first: ok=false for any other.
func commonDirection(s string) (spec.Direction, bool) {
	switch s {
	case "c->s", "c2s":
		return spec.C2S, true
	case "s->c", "s2c":
		return spec.S2C, true
	}
	return spec.DirUnknown, false
}

// parseTime accepts RFC 3339 strings and epoch numbers (seconds, milliseconds,
// microseconds, nanoseconds); small numbers are offsets in milliseconds from start
// (the recording's start when the file has said it, else the epoch).
func parseTime(v gjson.Result, start time.Time) time.Time {
	switch v.Type {
	case gjson.String:
		if t, ok := parseUTCStamp(v.Str); ok {
			return t
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999"} {
			if t, err := time.Parse(layout, v.Str); err == nil {
				return t
			}
		}
	case gjson.Number:
		n := v.Float()
		switch {
		case n > 1e17: // nanoseconds
			return time.Unix(0, v.Int()).UTC()
		case n > 1e14: // microseconds
			return time.UnixMicro(int64(n)).UTC()
		case n > 1e11: // milliseconds
			return time.UnixMilli(int64(n)).UTC()
		case n > 1e8: // seconds, possibly fractional
			sec, frac := math.Modf(n)
			return time.Unix(int64(sec), int64(frac*1e9)).UTC()
		case n >= 0: // offset in ms
			if start.IsZero() {
				start = time.Unix(0, 0).UTC()
			}
			return start.Add(time.Duration(n * float64(time.Millisecond)))
		}
	}
	return time.Time{}
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// envelopeFormat is the envelope format's entry in the table of input formats.
var envelopeFormat = format{
	name:    envelopeName,
	what:    `recorder JSONL: one {"ts","dir","msg"} object a line (and the aliases of mcpsnoop, mcp-trace-validator, mcp-cassette)`,
	lossy:   false,
	newLine: func() lineDecoder { return &envelopeDecoder{} },
}
