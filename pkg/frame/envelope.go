package frame

import (
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
// (DESIGN.md section 7). Lines without a payload (headers, summaries, stderr) are context.
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
		return u.Path
	}
	return strings.Clone(uri)
}

// mediaType is a Content-Type without its parameters, lower case.
func mediaType(t string) string {
	t, _, _ = strings.Cut(t, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

func (*envelopeDecoder) name() string { return envelopeName }

func isPayloadKey(k string) bool {
	switch k {
	case "msg", "message", "payload", "raw", "frame", "body", "json":
		return true
	}
	return false
}

func isDirKey(k string) bool { return k == "dir" || k == "direction" || k == "origin" }

func isTimeKey(k string) bool {
	switch k {
	case "ts", "time", "timestamp", "t", "elapsed_ms", "startedDateTime":
		return true
	}
	return false
}

func isStreamKey(k string) bool {
	switch k {
	case "session_id", "session", "server_label", "server_name", "serverName", "conn_id":
		return true
	}
	return false
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
		if k.Str == "jsonrpc" {
			envelope = false
			return false
		}
		if isPayloadKey(k.Str) && (val.IsObject() || val.IsArray() || (val.Type == gjson.String && looksLikeJSON([]byte(val.Str)))) {
			envelope = true
		}
		return true
	})
	return envelope
}

// envelopeFields are the members of one record that matter.
type envelopeFields struct {
	payload, dir, ts, typ, text, data, chunks, started, seq, http gjson.Result
	batch, truncated                                              bool
}

func (d *envelopeDecoder) decode(line []byte, f *Frame, x *lineExtras) (RecordKind, relative) {
	if !looksLikeJSON(line) {
		return RecordContext, relNone
	}
	if !f.scan(line) {
		f.notJSON(line, "record")
		return RecordFrame, relNone
	}
	root := &f.view.ix.entries[0]
	if root.kind == '[' || !root.complete {
		decodeIndexed(f, 0) // a bare batch among envelopes, or a record too large to index
		return RecordFrame, relNone
	}
	// The members that matter, by entry (-1: absent); read as values only where
	// they are used (most records are a time, a direction and a message).
	at := envelopeEntries{payload: -1, dir: -1, ts: -1, typ: -1, text: -1, data: -1, chunks: -1, started: -1, seq: -1, http: -1}
	var batch, truncated, bare bool
	ix := &f.view.ix
	for c := root.child; c >= 0; c = ix.entries[c].next {
		m := &ix.entries[c]
		switch key := m.key(line); {
		case key == "jsonrpc":
			bare = true
		case isPayloadKey(key):
			if at.payload < 0 && m.kind != 'n' {
				at.payload = c
			}
		case isDirKey(key):
			if at.dir < 0 {
				at.dir = c
			}
		case isTimeKey(key):
			if at.ts < 0 {
				at.ts = c
			}
		case isStreamKey(key):
			if f.StreamKey == "" {
				if val := m.result(line); val.Type == gjson.String {
					f.StreamKey = strings.Clone(val.Str)
				} else if val.Type != gjson.Null {
					f.StreamKey = strings.Clone(val.Raw)
				}
			}
		default:
			switch key {
			case "type":
				at.typ = c
			case "text":
				at.text = c
			case "data":
				at.data = c
			case "chunks":
				at.chunks = c
			case "startedAt":
				at.started = c
			case "seq":
				at.seq = c
			case "http":
				at.http = c
			case "batch":
				batch = m.kind == 't'
			case "truncated":
				truncated = m.kind == 't'
			}
		}
	}
	if bare {
		f.StreamKey = ""
		decodeIndexed(f, 0)
		return RecordFrame, relNone
	}
	value := func(c int32) gjson.Result { return ix.value(line, c) }
	// The direction, as the string it almost always is (no escapes): compared as
	// it lies in the line, without a value made of it.
	var dirValue gjson.Result
	dirStr, dirPlain := "", false
	if at.dir >= 0 {
		if e := &ix.entries[at.dir]; e.kind == '"' && !e.valEscaped {
			dirStr, dirPlain = view(line[e.valStart+1:e.valEnd-1]), true
		} else {
			dirValue = value(at.dir)
			dirStr = dirValue.Str
		}
	}
	if at.typ >= 0 || at.payload < 0 || at.http >= 0 || ((dirPlain || dirValue.Type == gjson.String) && dirStr == "meta") {
		if dirPlain {
			dirValue = value(at.dir)
		}
		e := envelopeFields{payload: value(at.payload), dir: dirValue, ts: value(at.ts), typ: value(at.typ), text: value(at.text), data: value(at.data),
			chunks: value(at.chunks), started: value(at.started), seq: value(at.seq), http: value(at.http), batch: batch, truncated: truncated}
		if kind, rel, done := d.decodeOther(f, x, e); done {
			return kind, rel
		}
	}
	// The time, likewise: an RFC 3339 UTC stamp read where it lies.
	timed := false
	if at.ts >= 0 {
		if e := &ix.entries[at.ts]; e.kind == '"' && !e.valEscaped {
			f.Time, timed = parseUTCStamp(view(line[e.valStart+1 : e.valEnd-1]))
		}
	}
	if !timed {
		f.Time = parseTime(value(at.ts), d.start)
	}
	var dir spec.Direction
	var rel relative
	var reason string
	if spelled, common := commonDirection(dirStr); dirPlain && common {
		dir = spelled
	} else {
		if dirPlain {
			dirValue = value(at.dir)
		}
		dir, rel, reason = parseDirection(dirValue)
	}
	f.Dir, f.DirReason = dir, reason
	if at.http >= 0 {
		if h := value(at.http); h.IsObject() {
			f.HTTP = d.httpExchange(h)
		}
	}
	switch p := &ix.entries[at.payload]; p.kind {
	case '{', '[':
		decodeIndexed(f, at.payload)
		if batch && p.kind == '{' {
			x.batchKey = "batch\x00" + dirStr + "\x00" + f.StreamKey
		}
	case '"':
		body := []byte(p.result(line).Str) // JSON carried as a string: unescaped copy
		if !looksLikeJSON(body) {
			return RecordContext, relNone // a text message, e.g. stderr
		}
		if _, ok := decodeJSON(f, body, "payload"); !ok {
			return RecordFrame, relNone
		}
	default:
		decodeMessage(f, line[p.valStart:p.valEnd])
	}
	return RecordFrame, rel
}

// envelopeEntries are the entries of the members of one record that matter.
type envelopeEntries struct {
	payload, dir, ts, typ, text, data, chunks, started, seq, http int32
}

// decodeOther decodes the records that are not a plain message in an envelope: a
// recorder's header, raw line or chunks, a session description, an HTTP exchange
// with no message, a line that was not JSON. done is false for a record that is a
// message after all, which decode reads on.
func (d *envelopeDecoder) decodeOther(f *Frame, x *lineExtras, e envelopeFields) (RecordKind, relative, bool) {
	if e.typ.Exists() {
		switch e.typ.Str {
		case "header":
			if t := parseTime(e.started, time.Time{}); !t.IsZero() {
				d.start = t
			}
			return RecordContext, relNone, true
		case "raw":
			kind, rel := d.cassetteRaw(f, e)
			return kind, rel, true
		case "chunks":
			kind, rel := d.cassetteChunks(f, x, e)
			return kind, rel, true
		}
	}
	if e.dir.Type == gjson.String && e.dir.Str == "meta" {
		return RecordContext, relNone, true // mcpsnoop's session description
	}
	if !e.payload.Exists() && e.http.IsObject() {
		if h := d.httpExchange(e.http); h != nil {
			x.exchange = &Exchange{HTTP: h, StreamKey: f.StreamKey, Time: parseTime(e.ts, d.start)}
		}
		return RecordContext, relNone, true
	}
	if !e.payload.Exists() {
		if e.text.Type == gjson.String && e.seq.Exists() && !e.truncated && (e.dir.Str == "c2s" || e.dir.Str == "s2c") {
			// mcpsnoop: a line on the protocol channel that was not JSON.
			f.Time = parseTime(e.ts, d.start)
			f.Dir, _, f.DirReason = parseDirection(e.dir)
			f.notJSON([]byte(e.text.Str), "protocol line")
			return RecordFrame, relNone, true
		}
		return RecordContext, relNone, true // header, summary, lifecycle or stderr record
	}
	return 0, relNone, false
}

// cassetteRaw reads an mcp-cassette "raw" record: a line on the protocol channel that
// was not a JSON-RPC object, such as a batch array or stray output.
func (d *envelopeDecoder) cassetteRaw(f *Frame, e envelopeFields) (RecordKind, relative) {
	dir, rel, reason := parseDirection(e.dir)
	if e.data.Type != gjson.String || (dir == spec.DirUnknown && rel == relNone) {
		return RecordContext, relNone
	}
	f.Time = parseTime(e.ts, d.start)
	f.Dir, f.DirReason = dir, reason
	body := []byte(e.data.Str)
	decodeJSON(f, body, "protocol line")
	return RecordFrame, rel
}

// cassetteChunks reads an mcp-cassette "chunks" record: the frames of one SSE answer,
// each with its own "t".
func (d *envelopeDecoder) cassetteChunks(f *Frame, x *lineExtras, e envelopeFields) (RecordKind, relative) {
	dir, rel, reason := parseDirection(e.dir)
	first := true
	e.chunks.ForEach(func(_, c gjson.Result) bool {
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
