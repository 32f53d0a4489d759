package frame

import (
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const mcporterName = "mcporter-ndjson"

// mcporterDecoder reads the NDJSON that `mcporter record NAME -- CMD` writes to
// ~/.mcporter/recordings/NAME.ndjson (mcporter 0.12, runtime/record-transport.js): one
// JSON-RPC message a line, with the recorder's own member added at the top level,
//
//	{"method":"initialize",...,"jsonrpc":"2.0","id":0,"_meta":{"dir":"send","server":"memory","ts":"2026-12-02T07:52:58.668Z"}}
//
// mcporter is the client: "send" is a message it sent (client to server), "recv" one
// it received (server to client). Each connection is opened and closed by a lifecycle
// record, {"jsonrpc":"2.0","method":"$transport/start","_meta":{"dir":"lifecycle",...}}
// and "$transport/close": those are context, not messages. One recording may hold
// several servers (a command that talks to more than one), interleaved: the server
// name is the stream key, and a later connection to the same server (a second
// $transport/start) is a stream of its own ("memory#2").
//
// The recorder's top-level _meta is taken off before the message is judged: it is
// not the wire's. Only that member is: a _meta inside params or result is the
// message's own and stays.
type mcporterDecoder struct {
	// conns counts the $transport/start records of each server; keys is the
	// stream key of each server's current connection.
	conns map[string]int
	keys  map[string]string
	buf   []byte // the message without the recorder's _meta, reused line to line
}

func (*mcporterDecoder) name() string { return mcporterName }

func (*mcporterDecoder) noFrames() string {
	return "an mcporter recording with lifecycle records only ($transport/start, $transport/close): no message was recorded"
}

// isMcporterDir reports whether a _meta.dir value is one mcporter writes.
func isMcporterDir(dir string) bool {
	return dir == "send" || dir == "recv" || dir == "lifecycle"
}

// isMcporterRecord recognises a line of an mcporter recording: a JSON object with a
// top-level _meta object whose dir is send, recv or lifecycle and whose server is a
// string. No message of the protocol has a top-level _meta.
func isMcporterRecord(v gjson.Result) bool {
	if !v.IsObject() {
		return false
	}
	meta := v.Get("_meta")
	if !meta.IsObject() {
		return false
	}
	return isMcporterDir(meta.Get("dir").Str) && meta.Get("server").Type == gjson.String
}

func (d *mcporterDecoder) decode(line []byte, f *Frame, _ *lineExtras) (RecordKind, relative) {
	if !looksLikeJSON(line) {
		return RecordContext, relNone
	}
	if !f.scan(line) {
		// A record cut short (the recorder killed while writing): no direction
		// or time can be trusted, and no message can be judged.
		f.notJSON(line, "record")
		return RecordFrame, relNone
	}
	ix := &f.view.ix
	if ix.tokens[0].Kind != '{' {
		return d.other(f)
	}
	meta, prev := int32(-1), int32(-1)
	var method gjson.Result
	for c, p := ix.child(0), int32(-1); c >= 0; p, c = c, ix.sibling(c) {
		switch {
		case ix.keyIs(line, c, "_meta") && ix.tokens[c].Kind == '{':
			meta, prev = c, p
		case ix.keyIs(line, c, "method"):
			method = ix.result(line, c)
		}
	}
	if meta < 0 {
		return d.other(f)
	}
	mv := ix.result(line, meta)
	dir, server := mv.Get("dir").Str, mv.Get("server")
	if !isMcporterDir(dir) || server.Type != gjson.String {
		return d.other(f) // a _meta that is not the recorder's
	}
	ts := mv.Get("ts")
	if dir == "lifecycle" {
		if method.Str == "$transport/start" {
			d.open(server.Str)
		}
		return RecordContext, relNone
	}
	key := d.key(server.Str)
	body := d.strip(line, ix, f.handoff, prev, meta)
	f.Time = parseTime(ts, time.Time{})
	if dir == "send" {
		f.Dir = spec.C2S
	} else {
		f.Dir = spec.S2C
	}
	if !f.scan(body) {
		f.notJSON(body, "recorded message")
	} else {
		decodeIndexed(f, 0)
	}
	f.StreamKey = key
	return RecordFrame, relNone
}

// other reads a line that is none of the recorder's records: a bare JSON-RPC
// message (a batch, a line written by something else) is judged as it is, with its
// direction inferred; anything else (a JSON log record, another recorder's
// envelope) is context.
func (*mcporterDecoder) other(f *Frame) (RecordKind, relative) {
	if !decodeIndexed(f, 0) {
		return RecordContext, relNone
	}
	f.DirReason = "a line without mcporter's _meta: direction inferred"
	return RecordFrame, relNone
}

// open starts a new connection of a server: its stream key is the server's name for
// the first connection, "NAME#n" for the n-th.
//
// server aliases the line's bytes (a gjson value read through the index), which
// the Reader reuses for later lines (its buffer, a scan-ahead block): it is
// copied before it is kept as a map key and in the stream key, or both would
// change under the decoder (a frame of another server's stream, a map whose key
// no longer matches its hash).
func (d *mcporterDecoder) open(server string) {
	server = strings.Clone(server)
	if d.conns == nil {
		d.conns, d.keys = map[string]int{}, map[string]string{}
	}
	d.conns[server]++
	key := server
	if n := d.conns[server]; n > 1 {
		key = server + "#" + strconv.Itoa(n)
	}
	d.keys[server] = key
}

// key is the stream key of a server's current connection (its name when the
// recording holds no $transport/start for it).
func (d *mcporterDecoder) key(server string) string {
	if k, ok := d.keys[server]; ok {
		return k
	}
	return strings.Clone(server)
}

// strip returns the record without the recorder's _meta member (the entry at meta,
// after the entry at prev, -1 when it is the first). The bytes are a copy: into the
// reused buffer, or a fresh one when the line is a huge one handed off to its frames
// (see Frame.handoff).
func (d *mcporterDecoder) strip(line []byte, x *index, handoff bool, prev, meta int32) []byte {
	_, metaEnd := x.span(meta)
	metaKey := int(x.keyToken(meta).Start) - 1 // the name's opening quote
	var cutFrom, cutTo int
	switch next := x.sibling(meta); {
	case prev >= 0:
		_, prevEnd := x.span(prev)
		cutFrom, cutTo = int(prevEnd), int(metaEnd) // ,"_meta":{...}
	case next >= 0:
		cutFrom, cutTo = metaKey, int(x.keyToken(next).Start)-1 // "_meta":{...},
	default:
		cutFrom, cutTo = metaKey, int(metaEnd) // the only member
	}
	var out []byte
	if handoff {
		out = make([]byte, 0, len(line)-(cutTo-cutFrom))
	} else {
		out = d.buf[:0]
	}
	out = append(append(out, line[:cutFrom]...), line[cutTo:]...)
	if !handoff {
		d.buf = out
	}
	return out
}

// mcporterFormat is the mcporter format's entry in the table of input formats.
var mcporterFormat = format{
	name:    mcporterName,
	what:    `mcporter record NDJSON: one JSON-RPC message a line with the recorder's top-level "_meta":{"dir":"send"|"recv"|"lifecycle","server","ts"} (taken off before judging); one stream per server`,
	lossy:   false,
	newLine: func() lineDecoder { return &mcporterDecoder{} },
}
