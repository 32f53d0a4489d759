package frame_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// FuzzReader feeds arbitrary bytes to a Reader. The first byte picks the options
// (format, perspective, a small MaxLine); the rest is the input. Next must not panic,
// must end, and the records must be consistent: one per line, in order, with stats
// that add up.
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
	}
	for i, s := range seeds {
		f.Add(append([]byte{byte(i)}, s...))
	}
	f.Add(append([]byte{0}, gz(f, seeds[3])...))
	f.Add(append([]byte{1}, zst(f, seeds[5])...))

	formats := []string{"", "envelope-jsonl", "jsonrpc-jsonl", "gosdk-log"}
	f.Fuzz(func(t *testing.T, data []byte) {
		var opt frame.Options
		if len(data) > 0 {
			b := data[0]
			opt.Format = formats[b&3]
			opt.Perspective = spec.Side((b >> 2) % 3)
			if b&0x10 != 0 {
				opt.MaxLine = 32
			}
			data = data[1:]
		}
		rd, err := frame.NewReader("fuzz", bytes.NewReader(data), opt)
		if err != nil {
			return // only for a compressed input with a broken header
		}
		defer rd.Close()
		n := 0
		for {
			rec, err := rd.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) || bytes.HasPrefix(data, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
					break // a broken compressed stream
				}
				t.Fatalf("Next on an uncompressed input: %v", err)
			}
			n++
			// Every record but the last consumes a line ending: a reader that returns
			// records without reading does not stop. (A small compressed input may
			// legitimately expand to many lines.)
			if st := rd.Stats(); int64(n) > st.Bytes+1 || n > 1<<22 {
				t.Fatalf("Next does not stop: %d records from %d bytes (%d decompressed)", n, len(data), st.Bytes)
			}
			if rec.Line != n {
				t.Fatalf("record %d has line %d", n, rec.Line)
			}
			switch rec.Kind {
			case frame.RecordFrame:
				fr := rec.Frame
				if fr == nil || fr.Line != n {
					t.Fatalf("record %d: frame %v", n, fr)
				}
				if (fr.Kind == frame.KindInvalid) != (fr.Problem != frame.NoProblem) {
					t.Fatalf("line %d: kind %v with problem %v", n, fr.Kind, fr.Problem)
				}
				if fr.Kind == frame.KindBatch && len(fr.Members) == 0 {
					t.Fatalf("line %d: batch without members", n)
				}
				if opt.MaxLine > 0 && fr.Size() > opt.MaxLine {
					t.Fatalf("line %d: a %d-byte frame passed MaxLine %d", n, fr.Size(), opt.MaxLine)
				}
				for i := range fr.Members {
					_ = fr.Members[i].Kind.String()
				}
			case frame.RecordContext, frame.RecordBlank:
				if rec.Frame != nil {
					t.Fatalf("line %d: %v record with a frame", n, rec.Kind)
				}
			default:
				t.Fatalf("line %d: record kind %v", n, rec.Kind)
			}
		}
		st := rd.Stats()
		if st.Lines != n || st.Lines != st.Frames+st.Context+st.Blank || st.Rejected > st.Frames {
			t.Fatalf("stats %+v after %d records", st, n)
		}
	})
}
