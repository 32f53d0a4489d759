package frame_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// FuzzReader feeds arbitrary bytes to a Reader. The first two bytes pick the options
// (format: auto or any decoder, perspective, a small MaxLine); the rest is the input.
// Next must not panic, must end, and the records must be consistent: in line order for
// line formats (one per line, but for batches a recorder split and lines that hold
// several frames), within the entries read for document formats, with stats that add up;
// with a shaper (a bit of the first byte), every message's shape must be the one
// schema.Shaper.Wire gives its bytes; every frame that is JSON has its Node from
// the scan's tokens (see TestEveryFrameHasNode).
func FuzzReader(f *testing.F) {
	seeds := [][]byte{
		{},
		[]byte("\n\n"),
		[]byte("\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"),
		[]byte(`{"ts":"2026-05-01T12:00:00Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}` + "\n" +
			`{"ts":1777636800123,"direction":"s2c","session_id":"s","body":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"}` + "\n" +
			`{"direction":"stderr","text":"x"}` + "\n"),
		[]byte(`[{"jsonrpc":"2.0","id":3,"method":"ping"},42,{"id":4}]` + "\n[]\n42\n\"s\"\nnull\n{\"jsonrpc\":\"2.0\",\"id\":"),
		[]byte("write: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n\nread error: EOF\nread: [{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"}]\n"),
		[]byte("2026/05/01 12:00:00 read: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\nwrite: {bad\n"),
		[]byte(`{"dir":"send","message":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n" + `{"dir":"receive","message":{"jsonrpc":"2.0","method":"sampling/createMessage","id":2}}`),
		{0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x01, 0x02},
		{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00, 0x01},
		[]byte("{\"jsonrpc\":\"2.0\",\"method\":\"\xff\xfe\"}\n{\"a\":\"\\ud800\"}\n"),
		[]byte("2025-07-12T05:51:44.601Z [demo] [info] Message from client: {\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\"} { metadata: undefined }\n2025-04-08T07:54:28.421Z [info] [b] Message from server: {\"jsonrpc\"\nstderr\n"),
		[]byte("2026-07-24 02:03:14.089 [debug] [editor -> server] {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n2026-07-24 02:03:14.089 [info] Connection state: Running\n"),
		[]byte(`{"log":{"creator":{"name":"x"},"entries":[{"request":{"method":"POST","url":"http://h/mcp","headers":[{"name":"Mcp-Session-Id","value":"s"}],"postData":{"text":"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"}},"response":{"status":200,"headers":[],"content":{"mimeType":"text/event-stream","text":"id: 1\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"}}}]}}`),
		[]byte(`[{"timestamp":"2026-05-01T12:00:00Z","direction":"request","origin":"client","message":{"jsonrpc":"2.0","id":1,"method":"ping"},"response":{"jsonrpc":"2.0","id":1,"result":{}},"duration":3},{"timestamp":"2026-05-01T12:00:00.001Z","origin":"server","message":{"jsonrpc":"2.0","method":"x"}}]`),
		[]byte(`{"time":"2026-05-14T09:12:01Z","level":"DEBUG","msg":"→ request","method":"initialize","id":1,"params":{}}` + "\n" + `{"msg":"← response","id":1,"method":"initialize","result":"{}"}` + "\n" + "level=DEBUG msg=\"→ request\" method=x id=2\n"),
		[]byte(`{"session_id":"s","seq":1,"direction":"c2s","raw":{"jsonrpc":"2.0","id":1,"method":"ping"},"batch":true}` + "\n" + `{"session_id":"s","seq":2,"direction":"c2s","raw":{"jsonrpc":"2.0","id":2,"method":"ping"},"batch":true}` + "\n" + `{"seq":3,"direction":"s2c","text":"oops"}`),
		[]byte(`{"type":"header","cassetteVersion":2,"startedAt":"2026-08-15T09:00:00Z"}` + "\n" + `{"type":"chunks","dir":"s2c","chunks":[{"t":1,"frame":{"jsonrpc":"2.0","id":1,"result":{}}},{"t":2,"frame":[]}]}` + "\n" + `{"type":"raw","dir":"c2s","data":"[1,2"}`),
		[]byte("2025-04-11 11:52:14.403 [error] r-ai: No server info found\n[48213] [Local→Remote] tools/call\nINFO Processing request of type CallToolRequest\n"),
		// pretty-printed JSON: documents that span lines, one cut short, one with
		// garbage inside, a line of text between them; then the array form
		[]byte("{\n  \"ts\": \"2026-05-01T12:00:00Z\",\n  \"dir\": \"c->s\",\n  \"msg\": {\n    \"jsonrpc\": \"2.0\",\n    \"id\": 1,\n    \"method\": \"ping\"\n  }\n}\n{\n  \"dir\": \"s->c\",\n  \"msg\": {\n{\n  \"dir\": \"s->c\",\n  oops\n  \"msg\": {}\n}\nstderr\n\n{\"dir\": \"s->c\",\n \"msg\": {\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {}}}{\"x\": [1, \"\\\"]\"]}\n"),
		[]byte("[\n  {\n    \"jsonrpc\": \"2.0\",\n    \"id\": 1,\n    \"method\": \"ping\"\n  },\n  [\n    {\"jsonrpc\": \"2.0\", \"method\": \"x\"}\n  ],\n  {\n    \"jsonrpc\":\n  42,\n  oops\n]\n{\"jsonrpc\": \"2.0\",\n \"id\": 1, \"result\": {}}\n"),
	}
	formats := append([]string{""}, frame.Formats()...)
	for i, s := range seeds {
		f.Add(append([]byte{byte(i), byte(i % len(formats))}, s...))
		f.Add(append([]byte{0x20, 0}, s...)) // shaped, format detected
	}
	f.Add(append([]byte{0, 0}, gz(f, seeds[3])...))
	f.Add(append([]byte{1, 0}, zst(f, seeds[5])...))

	document := map[string]bool{"har": true, "inspector-json": true}
	f.Fuzz(func(t *testing.T, data []byte) {
		var opt frame.Options
		if len(data) > 1 {
			b := data[0]
			opt.Format = formats[int(data[1])%len(formats)]
			opt.Perspective = spec.Side((b >> 2) % 3)
			if b&0x10 != 0 {
				opt.MaxLine = 32
			}
			if b&0x20 != 0 {
				opt.Shaper = &schema.Shaper{}
			}
			data = data[2:]
		}
		var reference schema.Shaper // the shape of a message from its bytes
		checkShape := func(line int, f *frame.Frame) {
			if want := reference.Wire(f.Raw); opt.Shaper != nil && f.Kind != frame.KindInvalid && f.Shape() != want {
				t.Fatalf("line %d: shape %x, Wire %x: %q", line, f.Shape(), want, f.Raw)
			}
		}
		rd, err := frame.NewReader("fuzz", bytes.NewReader(data), opt)
		if err != nil {
			// a compressed input with a broken header, or a forced format that the
			// input is not (a document format on lines, a line format on a document)
			if !strings.HasPrefix(err.Error(), "mcpsleuth: fuzz: ") {
				t.Fatalf("error without the input's name: %v", err)
			}
			return
		}
		defer rd.Close()
		n, frames, context, blank, last := 0, 0, 0, 0, 0
		ended := false
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				ended = true
				break
			}
			if err != nil {
				st := rd.Stats()
				if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}) || document[st.Format] {
					break // a broken compressed stream, or a broken JSON document
				}
				t.Fatalf("Next on an uncompressed line input: %v", err)
			}
			n++
			st := rd.Stats()
			// A record consumes input: a reader that returns records without reading
			// does not stop. (A small compressed input may legitimately expand to many
			// lines; a line or an entry may hold a few frames.)
			if int64(n) > 4*(st.Bytes+1) || n > 1<<22 {
				t.Fatalf("Next does not stop: %d records from %d bytes (%d decompressed)", n, len(data), st.Bytes)
			}
			if rec.Line < 1 || rec.Line > st.Lines || (!document[st.Format] && rec.Line < last) {
				t.Fatalf("record %d has line %d (after %d, of %d)", n, rec.Line, last, st.Lines)
			}
			last = rec.Line
			switch rec.Kind {
			case frame.RecordFrame:
				frames++
				fr := rec.Frame
				if fr == nil || fr.Line != rec.Line {
					t.Fatalf("record %d: frame %v", n, fr)
				}
				if (fr.Kind == frame.KindInvalid) != (fr.Problem != frame.NoProblem) {
					t.Fatalf("line %d: kind %v with problem %v", n, fr.Kind, fr.Problem)
				}
				if fr.Kind == frame.KindBatch && len(fr.Members) == 0 {
					t.Fatalf("line %d: batch without members", n)
				}
				// (a message rebuilt from a log record may be a few bytes longer than
				// the record; a batch put back together spans several lines)
				if opt.MaxLine > 0 && !document[st.Format] && st.Folded == 0 && fr.Size() > opt.MaxLine+16 {
					t.Fatalf("line %d: a %d-byte frame passed MaxLine %d", n, fr.Size(), opt.MaxLine)
				}
				for i := range fr.Members {
					_ = fr.Members[i].Kind.String()
					checkShape(n, &fr.Members[i])
				}
				if fr.Kind != frame.KindBatch {
					checkShape(n, fr)
				}
				hasNode(t, fmt.Sprintf("line %d", n), fr) // and its members
			case frame.RecordContext, frame.RecordBlank:
				if rec.Frame != nil {
					t.Fatalf("line %d: %v record with a frame", n, rec.Kind)
				}
				if rec.Kind == frame.RecordContext {
					context++
				} else {
					blank += rec.Run
				}
			default:
				t.Fatalf("line %d: record kind %v", n, rec.Kind)
			}
		}
		st := rd.Stats()
		if st.Frames != frames || st.Context != context || st.Blank != blank || st.Rejected > st.Frames || st.Folded < 0 {
			t.Fatalf("stats %+v after %d records (%d frames, %d context, %d blank)", st, n, frames, context, blank)
		}
		if !document[st.Format] && st.Lines > st.Frames+st.Context+st.Blank+st.Folded {
			t.Fatalf("stats %+v: lines unaccounted for", st)
		}
		if ended && st.Unaccounted() != 0 {
			t.Fatalf("stats %+v: %d lines unaccounted for", st, st.Unaccounted())
		}
		if ended && st.Frames == 0 && !strings.HasPrefix(st.Lossy, "cannot judge: this log holds no frames") {
			t.Fatalf("no frames and Lossy %q", st.Lossy)
		}
	})
}
