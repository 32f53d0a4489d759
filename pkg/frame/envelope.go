package frame

import (
	"math"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const envelopeName = "envelope-jsonl"

// envelopeDecoder reads recorder JSONL: one object per line wrapping the frame, such as
// {"ts":..., "dir":"c->s", "msg":{...}}, with the aliases recorders use for each field
// (DESIGN.md section 7). Lines without a payload (headers, summaries, stderr) are context.
type envelopeDecoder struct{}

func (envelopeDecoder) name() string { return envelopeName }

// Field aliases, by role.
var (
	payloadKeys = map[string]bool{"msg": true, "message": true, "payload": true, "raw": true, "frame": true, "body": true, "json": true}
	dirKeys     = map[string]bool{"dir": true, "direction": true, "origin": true}
	timeKeys    = map[string]bool{"ts": true, "time": true, "timestamp": true, "t": true, "elapsed_ms": true, "startedDateTime": true}
	streamKeys  = map[string]bool{"session_id": true, "session": true, "server_label": true, "server_name": true, "serverName": true, "conn_id": true}
)

// isEnvelope reports whether a valid JSON line is an envelope rather than a bare message:
// an object with a payload field holding an object, an array or a JSON string, and no
// top-level "jsonrpc".
func isEnvelope(line []byte) bool {
	v := gjson.Parse(view(line))
	if !v.IsObject() {
		return false
	}
	envelope := false
	v.ForEach(func(k, val gjson.Result) bool {
		if k.Str == "jsonrpc" {
			envelope = false
			return false
		}
		if payloadKeys[k.Str] && (val.IsObject() || val.IsArray() || (val.Type == gjson.String && looksLikeJSON([]byte(val.Str)))) {
			envelope = true
		}
		return true
	})
	return envelope
}

func (envelopeDecoder) decode(line []byte, f *Frame) (RecordKind, relative) {
	if !looksLikeJSON(line) {
		return RecordContext, relNone
	}
	if !validJSON(line) {
		f.notJSON(line, "record")
		return RecordFrame, relNone
	}
	v := gjson.Parse(view(line))
	if v.IsArray() {
		decodeMessage(f, line) // a bare batch among envelopes
		return RecordFrame, relNone
	}
	var payload, dir, ts gjson.Result
	bare := false
	v.ForEach(func(k, val gjson.Result) bool {
		switch {
		case k.Str == "jsonrpc":
			bare = true
		case payloadKeys[k.Str] && !payload.Exists() && val.Type != gjson.Null:
			payload = val
		case dirKeys[k.Str] && !dir.Exists():
			dir = val
		case timeKeys[k.Str] && !ts.Exists():
			ts = val
		case streamKeys[k.Str] && f.StreamKey == "":
			if val.Type == gjson.String {
				f.StreamKey = strings.Clone(val.Str)
			} else if val.Exists() && val.Type != gjson.Null {
				f.StreamKey = strings.Clone(val.Raw)
			}
		}
		return true
	})
	if bare {
		f.StreamKey = ""
		decodeMessage(f, line)
		return RecordFrame, relNone
	}
	if !payload.Exists() {
		return RecordContext, relNone // header, summary, lifecycle or stderr record
	}
	f.Time = parseTime(ts)
	d, rel, reason := parseDirection(dir)
	f.Dir, f.DirReason = d, reason
	switch {
	case payload.IsObject() || payload.IsArray():
		decodeMessage(f, bytesOf(payload.Raw))
	case payload.Type == gjson.String:
		body := []byte(payload.Str) // JSON carried as a string: unescaped copy
		if !looksLikeJSON(body) {
			return RecordContext, relNone // a text message, e.g. stderr
		}
		if !validJSON(body) {
			f.notJSON(body, "payload")
			return RecordFrame, relNone
		}
		decodeMessage(f, body)
	default:
		decodeMessage(f, bytesOf(payload.Raw))
	}
	return RecordFrame, rel
}

// parseDirection maps the direction values recorders write. Relative values
// (send/receive, in/out, read/write) depend on which side logged.
func parseDirection(v gjson.Result) (spec.Direction, relative, string) {
	if !v.Exists() {
		return spec.DirUnknown, relNone, "the record has no direction field"
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

// parseTime accepts RFC 3339 strings and epoch numbers (seconds, milliseconds);
// small numbers are offsets in milliseconds from the start of the recording.
func parseTime(v gjson.Result) time.Time {
	switch v.Type {
	case gjson.String:
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
			return time.Unix(0, 0).UTC().Add(time.Duration(n * float64(time.Millisecond)))
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
