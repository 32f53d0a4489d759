package frame_test

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// countLines counts the lines of b that start with one of prefixes.
func countLines(b []byte, prefixes ...string) int {
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		for _, p := range prefixes {
			if strings.HasPrefix(sc.Text(), p) {
				n++
				break
			}
		}
	}
	return n
}

func TestFormatDetectionFixtures(t *testing.T) {
	root := filepath.Join("..", "..", "fixtures", "real")
	type input struct {
		path, format string
		prefixes     []string
	}
	var inputs []input
	add := func(glob, format string, prefixes ...string) {
		m, err := filepath.Glob(filepath.Join(root, glob))
		if err != nil || len(m) == 0 {
			t.Fatalf("no fixtures match %s", glob)
		}
		for _, p := range m {
			inputs = append(inputs, input{p, format, prefixes})
		}
	}
	add("*.jsonl", "envelope-jsonl", "{", "[")
	add("schema/*.jsonl", "envelope-jsonl", "{", "[")
	add("bare/*.jsonl", "jsonrpc-jsonl", "{", "[")
	add("gosdk-log/*.log", "gosdk-log", "read: ", "write: ")
	for _, in := range inputs {
		t.Run(strings.TrimPrefix(in.path, root+string(filepath.Separator)), func(t *testing.T) {
			b, err := os.ReadFile(in.path)
			if err != nil {
				t.Fatal(err)
			}
			file, err := os.Open(in.path) // read as the CLI does: from the file, not from memory
			if err != nil {
				t.Fatal(err)
			}
			defer file.Close()
			recs, st, err := readAll(t, in.path, file, frame.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkStats(t, recs, st)
			if st.Format != in.format {
				t.Errorf("Format = %q, want %q", st.Format, in.format)
			}
			want := countLines(b, in.prefixes...)
			if st.Frames != want || want == 0 {
				t.Errorf("Frames = %d, want %d", st.Frames, want)
			}
			if st.Rejected != 0 {
				t.Errorf("Rejected = %d in a capture of real SDK traffic", st.Rejected)
			}
			if st.Bytes != int64(len(b)) {
				t.Errorf("Bytes = %d, want %d", st.Bytes, len(b))
			}
			wantContext := 0
			if in.format == "gosdk-log" {
				wantContext = 1 // "read error: EOF"
			}
			if st.Context != wantContext {
				t.Errorf("Context = %d, want %d", st.Context, wantContext)
			}
			for _, r := range recs {
				if r.Frame == nil {
					continue
				}
				if r.Frame.Source != in.path {
					t.Fatalf("Source = %q", r.Frame.Source)
				}
				switch in.format {
				case "envelope-jsonl":
					if r.Frame.Dir == spec.DirUnknown || r.Frame.Time.IsZero() {
						t.Errorf("line %d: %s, want a direction and a time", r.Line, describe(r.Frame))
					}
				case "gosdk-log":
					if r.Frame.Dir == spec.DirUnknown {
						t.Errorf("line %d: %s, want a direction", r.Line, describe(r.Frame))
					}
				}
			}
		})
	}
}

// The three encodings of one session carry the same messages; the envelope and the Go
// SDK log agree on every direction.
func TestSameSessionThreeFormats(t *testing.T) {
	const name = "ts-client-go-server-sampling-undeclared"
	env, _ := read(t, string(fixture(t, name+".jsonl")), frame.Options{})
	bare, _ := read(t, string(fixture(t, "bare/"+name+".jsonl")), frame.Options{})
	logged, _ := read(t, string(fixture(t, "gosdk-log/"+name+".log")), frame.Options{})
	env, bare, logged = framesOf(env), framesOf(bare), framesOf(logged)
	if len(env) != 11 || len(bare) != len(env) || len(logged) != len(env) {
		t.Fatalf("frames: envelope %d, bare %d, log %d", len(env), len(bare), len(logged))
	}
	for i := range env {
		e, b, l := env[i].Frame, bare[i].Frame, logged[i].Frame
		if !bytes.Equal(e.Raw, b.Raw) || !bytes.Equal(e.Raw, l.Raw) {
			t.Errorf("frame %d: raw differs:\n%s\n%s\n%s", i, e.Raw, b.Raw, l.Raw)
		}
		if e.Kind != b.Kind || e.Kind != l.Kind || e.Method != l.Method || e.ID != l.ID || e.ID != b.ID {
			t.Errorf("frame %d: %s / %s / %s", i, describe(e), describe(b), describe(l))
		}
		if e.Dir != l.Dir {
			t.Errorf("frame %d: envelope says %v, the Go SDK log %v", i, e.Dir, l.Dir)
		}
	}
}

func TestOptionsFormat(t *testing.T) {
	env := string(fixture(t, "ts-everything-killed-midcall.jsonl"))
	bare := string(fixture(t, "bare/ts-client-go-server-sampling-undeclared.jsonl"))

	// An envelope record has no member of a JSON-RPC message at its top level: it is
	// not a broken message, so bare JSON-RPC reading keeps it as context.
	t.Run("jsonrpc-jsonl on envelopes", func(t *testing.T) {
		recs, st := read(t, env, frame.Options{Format: "jsonrpc-jsonl"})
		checkStats(t, recs, st)
		if st.Format != "jsonrpc-jsonl" || st.Frames != 0 || st.Context != 5 {
			t.Errorf("stats %+v", st)
		}
		for _, r := range recs {
			if r.Kind != frame.RecordContext {
				t.Errorf("line %d: %v %s", r.Line, r.Kind, describeOrNil(r.Frame))
			}
		}
	})
	t.Run("gosdk-log on bare lines", func(t *testing.T) {
		recs, st := read(t, bare, frame.Options{Format: "gosdk-log"})
		checkStats(t, recs, st)
		if st.Format != "gosdk-log" || st.Frames != 0 || st.Context != 11 {
			t.Errorf("stats %+v", st)
		}
	})
	t.Run("envelope-jsonl on bare lines", func(t *testing.T) {
		recs, st := read(t, bare, frame.Options{Format: "envelope-jsonl"})
		checkStats(t, recs, st)
		if st.Format != "envelope-jsonl" || st.Frames != 11 || st.Rejected != 0 {
			t.Errorf("stats %+v", st)
		}
	})
	for _, name := range []string{"", "auto"} {
		t.Run("detect "+strconv.Quote(name), func(t *testing.T) {
			_, st := read(t, env, frame.Options{Format: name})
			if st.Format != "envelope-jsonl" || st.Frames != 5 {
				t.Errorf("stats %+v", st)
			}
		})
	}
	t.Run("unknown format", func(t *testing.T) {
		rd, err := frame.NewReader("in.jsonl", strings.NewReader(env), frame.Options{Format: "har-ish"})
		if err == nil || rd != nil {
			t.Fatalf("NewReader = %v, %v; want an error", rd, err)
		}
		for _, want := range []string{"har-ish", "in.jsonl", "envelope-jsonl", "jsonrpc-jsonl", "gosdk-log"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	})
	t.Run("Formats", func(t *testing.T) {
		got := strings.Join(frame.Formats(), ",")
		if got != "claude-code-mcp-log,claude-desktop-log,cursor-mcp-log,envelope-jsonl,gosdk-log,har,inspector-json,jsonrpc-jsonl,mcp-remote-log,mcpgo-slog,mcporter-ndjson,pretty-json,python-sdk-log,vscode-mcp-log" {
			t.Errorf("Formats() = %s", got)
		}
	})
}

func TestEmptyAndUndetectedInput(t *testing.T) {
	for _, in := range []string{"", "\n", "\r\n\r\n", "\xef\xbb\xbf", "hello\nworld\n"} {
		t.Run(strconv.Quote(in), func(t *testing.T) {
			recs, st := read(t, in, frame.Options{})
			checkStats(t, recs, st)
			if st.Frames != 0 || st.Format != "unknown" {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

func gz(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func zst(t testing.TB, b []byte) []byte {
	w, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	return w.EncodeAll(b, nil)
}

func TestCompression(t *testing.T) {
	for _, name := range []string{"ts-everything-healthy.jsonl", "bare/ts-client-go-server-sampling-undeclared.jsonl", gosdkFixture} {
		plain := fixture(t, name)
		want, wantStats, err := readAll(t, name, bytes.NewReader(plain), frame.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			data []byte
		}{{"gzip", gz(t, plain)}, {"zstd", zst(t, plain)}} {
			t.Run(c.name+"/"+name, func(t *testing.T) {
				if bytes.Equal(c.data[:4], plain[:4]) {
					t.Fatal("not compressed")
				}
				got, st, err := readAll(t, name, bytes.NewReader(c.data), frame.Options{})
				if err != nil {
					t.Fatalf("Next: %v", err)
				}
				sameFrames(t, got, want)
				if st != wantStats {
					t.Errorf("stats %+v, want %+v", st, wantStats)
				}
			})
		}
	}
	t.Run("gzip with BOM and CRLF inside", func(t *testing.T) {
		plain := fixture(t, "ts-everything-cancel.jsonl")
		want, _ := read(t, string(plain), frame.Options{})
		crlf := append([]byte("\xef\xbb\xbf"), bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n"))...)
		got, _, err := readAll(t, "x.gz", bytes.NewReader(gz(t, crlf)), frame.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameFrames(t, got, want)
	})
}

func TestCorruptCompressedInput(t *testing.T) {
	plain := bytes.Repeat(fixture(t, "ts-everything-healthy.jsonl"), 20)
	good := gz(t, plain)
	flipped := bytes.Clone(good)
	for i := len(flipped) / 3; i < len(flipped)/3+64; i++ {
		flipped[i] ^= 0x5a
	}
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-8] ^= 0xff // the CRC-32 in the trailer
	goodZstd := zst(t, plain)
	zFlipped := bytes.Clone(goodZstd)
	for i := len(zFlipped) / 2; i < len(zFlipped)/2+64; i++ {
		zFlipped[i] ^= 0x5a
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"gzip truncated", good[:len(good)/2]},
		{"gzip corrupt data", flipped},
		{"gzip bad checksum", badCRC},
		{"gzip without trailer", good[:len(good)-8]},
		{"zstd truncated", goodZstd[:len(goodZstd)/2]},
		{"zstd corrupt data", zFlipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd, err := frame.NewReader("c", bytes.NewReader(tt.data), frame.Options{})
			if err != nil {
				t.Fatalf("NewReader: %v (the header is intact: the error belongs to Next)", err)
			}
			defer rd.Close()
			n := 0
			for {
				_, err := rd.Next()
				if err == nil {
					if n++; n > 1e6 {
						t.Fatal("Next does not stop")
					}
					continue
				}
				if errors.Is(err, io.EOF) {
					t.Fatalf("Next returned io.EOF after %d records of a corrupt stream; want a read error", n)
				}
				t.Logf("after %d records: %v", n, err)
				if !strings.Contains(err.Error(), "c:") {
					t.Errorf("error %q does not name the input", err)
				}
				break
			}
		})
	}
	t.Run("gzip header cut short", func(t *testing.T) {
		if _, err := frame.NewReader("c", bytes.NewReader(good[:5]), frame.Options{}); err == nil {
			t.Error("NewReader accepted a 5-byte gzip stream")
		}
	})
}

// CRLF line endings and a UTF-8 byte order mark change nothing.
func TestCRLFAndBOM(t *testing.T) {
	for _, name := range []string{"ts-everything-healthy.jsonl", "raw-go-server-batch-2025-03-26.jsonl", "bare/ts-client-go-server-sampling-undeclared.jsonl", gosdkFixture} {
		plain := fixture(t, name)
		want, wantStats := read(t, string(plain), frame.Options{})
		crlf := bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n"))
		for _, v := range []struct {
			name string
			data []byte
		}{
			{"crlf", crlf},
			{"bom", append([]byte("\xef\xbb\xbf"), plain...)},
			{"bom+crlf", append([]byte("\xef\xbb\xbf"), crlf...)},
			{"crlf without final newline", bytes.TrimSuffix(crlf, []byte("\r\n"))},
		} {
			t.Run(v.name+"/"+name, func(t *testing.T) {
				got, st := read(t, string(v.data), frame.Options{})
				sameFrames(t, got, want)
				st.Bytes, wantStats.Bytes = 0, 0
				if st != wantStats {
					t.Errorf("stats %+v, want %+v", st, wantStats)
				}
			})
		}
	}
	t.Run("CR at the end of the read buffer", func(t *testing.T) {
		// Lines longer than the reader's buffer whose CR is the buffer's last byte and
		// whose LF starts the next read, for the plausible buffer sizes.
		for _, bufSize := range []int{4 << 10, 64 << 10, 256 << 10, 1 << 20} {
			prefix := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"`
			suffix := `"}}`
			line := prefix + strings.Repeat("a", bufSize-1-len(prefix)-len(suffix)) + suffix
			in := line + "\r\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n"
			recs, st := read(t, in, frame.Options{})
			checkStats(t, recs, st)
			if len(recs) != 2 || recs[0].Frame == nil || recs[0].Frame.Method != "x" || string(recs[0].Frame.Raw) != line {
				t.Fatalf("%d-byte line: %d records, first %s", len(line), len(recs), describeOrNil(recs[0].Frame))
			}
			if f := recs[1].Frame; f.Kind != frame.KindResult || f.Line != 2 {
				t.Errorf("line 2: %s", describe(f))
			}
		}
	})
	t.Run("BOM or CR at the start of a later line", func(t *testing.T) {
		// Files joined with cat each bring their BOM; a CR LF split as LF then CR puts
		// the CR at the start of the next line: neither is part of the line's text
		// (issue 11 item 12), in any line format.
		for _, in := range []string{
			`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
			`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n\r" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
			`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n\r\xef\xbb\xbf\xef\xbb\xbf\r" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
			`{"ts":"2026-01-01T00:00:00Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n\xef\xbb\xbf" + `{"ts":"2026-01-01T00:00:01Z","dir":"s2c","msg":{"jsonrpc":"2.0","id":1,"result":{}}}` + "\n",
			"2025-03-10T17:03:18.764Z [demo] [info] Message from client: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\xef\xbb\xbf2025-03-10T17:03:18.765Z [demo] [info] Message from server: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
			"write: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\rread: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
		} {
			recs, st := read(t, in, frame.Options{})
			checkStats(t, recs, st)
			if len(recs) != 2 || recs[1].Kind != frame.RecordFrame || recs[1].Line != 2 || recs[1].Frame.Kind != frame.KindResult || string(recs[1].Frame.Raw) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
				t.Errorf("%q: line 2 is not the result frame: %d records, %+v", in, len(recs), recs)
			}
		}
		// A line that is nothing but BOMs and CRs is blank.
		recs, st := read(t, "\xef\xbb\xbf\r\n"+`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n\r\r\n", frame.Options{})
		if n := len(framesOf(recs)); n != 1 || st.Blank != 2 || st.Context != 0 {
			t.Errorf("%d frames, %d blank lines, %d of context; want 1, 2 and 0", n, st.Blank, st.Context)
		}
	})
}

func TestBlankLinesAndStats(t *testing.T) {
	in := "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" +
		"   \n" +
		"\t\r\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		"not json\n" +
		`{"jsonrpc":"2.0","id":2` + "\n" +
		`{"id":3}` + "\n" +
		"\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	kinds := []frame.RecordKind{frame.RecordBlank, frame.RecordFrame, frame.RecordBlank, frame.RecordBlank, frame.RecordFrame, frame.RecordContext, frame.RecordFrame, frame.RecordFrame, frame.RecordBlank}
	if len(recs) != len(kinds) {
		t.Fatalf("%d records", len(recs))
	}
	for i, k := range kinds {
		if recs[i].Kind != k || recs[i].Line != i+1 {
			t.Errorf("record %d: kind %v line %d, want %v line %d", i, recs[i].Kind, recs[i].Line, k, i+1)
		}
		if k == frame.RecordBlank && (recs[i].Frame != nil || recs[i].Text != "") {
			t.Errorf("blank record %d carries %q / %v", i, recs[i].Text, recs[i].Frame)
		}
	}
	want := frame.Stats{Format: "jsonrpc-jsonl", Lines: 9, Frames: 4, Rejected: 2, FrameLines: 4, Context: 1, Blank: 4, Bytes: int64(len(in))}
	if st != want {
		t.Errorf("stats %+v, want %+v", st, want)
	}
}

// Bytes and strings of a Frame alias the Reader's buffer until the next Next: a
// consumer that keeps them copies them first. The copies keep their content.
func TestFrameAliasingContract(t *testing.T) {
	lines := []string{
		`{"ts":"2026-05-01T12:00:00Z","dir":"c2s","session_id":"s","msg":{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"one"}}}`,
		`{"ts":"2026-05-01T12:00:01Z","dir":"s2c","session_id":"s","msg":{"jsonrpc":"2.0","id":"b","error":{"code":-1,"message":"two"}}}`,
		`{"ts":"2026-05-01T12:00:02Z","dir":"c2s","session_id":"s","msg":{"jsonrpc":"2.0","id":"c","method":"zzzzz/zzz","params":{"name":"xxx"}}}`,
	}
	rd, err := frame.NewReader("a", strings.NewReader(strings.Join(lines, "\n")+"\n"), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	type kept struct {
		raw, params      []byte
		method, id, emsg string
	}
	var keep []kept
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		f := rec.Frame
		keep = append(keep, kept{bytes.Clone(f.Raw), bytes.Clone(f.Params), strings.Clone(f.Method), strings.Clone(f.ID), strings.Clone(f.ErrorMessage)})
	}
	want := []kept{
		{[]byte(`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"one"}}`), []byte(`{"name":"one"}`), "tools/call", `"a"`, ""},
		{[]byte(`{"jsonrpc":"2.0","id":"b","error":{"code":-1,"message":"two"}}`), nil, "", `"b"`, "two"},
		{[]byte(`{"jsonrpc":"2.0","id":"c","method":"zzzzz/zzz","params":{"name":"xxx"}}`), []byte(`{"name":"xxx"}`), "zzzzz/zzz", `"c"`, ""},
	}
	if len(keep) != len(want) {
		t.Fatalf("%d frames", len(keep))
	}
	for i := range want {
		k, w := keep[i], want[i]
		if !bytes.Equal(k.raw, w.raw) || !bytes.Equal(k.params, w.params) || k.method != w.method || k.id != w.id || k.emsg != w.emsg {
			t.Errorf("frame %d kept %q %q %q %q %q", i, k.raw, k.params, k.method, k.id, k.emsg)
		}
	}
}

// The reader streams: it hands out the first record while the writer has not written
// the rest (it never reads the whole input first), as for stdin.
func TestStreamsFromPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	next := make(chan struct{})
	go func() {
		defer pw.Close()
		io.WriteString(pw, `{"ts":"2026-05-01T12:00:00Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}}`+"\n")
		<-next // the second line only after the reader returned the first
		io.WriteString(pw, `{"ts":"2026-05-01T12:00:01Z","dir":"s->c","msg":{"jsonrpc":"2.0","id":0,"result":{}}}`+"\n")
	}()
	type result struct {
		rec record
		err error
	}
	rd, err := frame.NewReader("-", pr, frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nextRecord := func() (record, error) {
		ch := make(chan result, 1)
		go func() {
			rec, err := rd.Next()
			if err != nil {
				ch <- result{err: err}
				return
			}
			ch <- result{rec: copyRecord(rec)}
		}()
		select {
		case r := <-ch:
			return r.rec, r.err
		case <-time.After(10 * time.Second):
			close(next) // unblock the writer so that the goroutine can end
			t.Fatal("Next blocked on input it did not need")
			return record{}, nil
		}
	}
	r1, err := nextRecord()
	if err != nil || r1.Frame == nil || r1.Frame.Method != "initialize" || r1.Frame.Source != "-" || r1.Frame.Dir != spec.C2S {
		t.Fatalf("first record: %v %s", err, describeOrNil(r1.Frame))
	}
	close(next)
	r2, err := nextRecord()
	if err != nil || r2.Frame == nil || r2.Frame.Kind != frame.KindResult || r2.Line != 2 || r2.Frame.Dir != spec.S2C {
		t.Fatalf("second record: %v %s", err, describeOrNil(r2.Frame))
	}
	if _, err := rd.Next(); !errors.Is(err, io.EOF) {
		t.Errorf("Next at the end: %v", err)
	}
}

// A line longer than Options.MaxLine becomes an invalid frame naming the limit; the
// following line is read normally. Lines up to the limit are accepted.
func TestMaxLine(t *testing.T) {
	// line builds a JSON-RPC request of exactly n bytes.
	line := func(n int) string {
		prefix := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"s":"`
		suffix := `"}}`
		return prefix + strings.Repeat("x", n-len(prefix)-len(suffix)) + suffix
	}
	next := `{"jsonrpc":"2.0","id":1,"result":{}}`
	type test struct {
		name    string
		maxLine int
		n       int
		tooLong bool
	}
	// Limits below and above the reader's read buffer (256 KiB today), with lines
	// that fit in one read and lines that do not.
	var tests []test
	for _, limit := range []int{1 << 10, 100_000, 600_000} {
		name := strconv.Itoa(limit) + "-byte limit, "
		tests = append(tests,
			test{name + "line at the limit", limit, limit, false},
			test{name + "line one over", limit, limit + 1, true},
			test{name + "line twice the limit", limit, 2 * limit, true},
			test{name + "2 MB line", limit, 2_000_000, true},
		)
	}
	for _, tt := range tests {
		for _, eol := range []string{"\n", "\r\n"} {
			t.Run(tt.name+"/"+strconv.Quote(eol), func(t *testing.T) {
				big := line(tt.n)
				if len(big) != tt.n {
					t.Fatal(len(big))
				}
				in := big + eol + next + eol
				recs, st := read(t, in, frame.Options{Format: "jsonrpc-jsonl", MaxLine: tt.maxLine})
				checkStats(t, recs, st)
				if len(recs) != 2 {
					t.Fatalf("%d records", len(recs))
				}
				f := recs[0].Frame
				if f == nil {
					t.Fatalf("line 1: kind %v, want a frame", recs[0].Kind)
				}
				if tt.tooLong {
					if f.Kind != frame.KindInvalid || !strings.Contains(f.Detail, "limit") || !strings.Contains(f.Detail, "limit of "+frame.Size(int64(tt.maxLine))) || f.Line != 1 {
						t.Errorf("line 1: %s, want invalid with a detail naming the %s limit", describe(f), frame.Size(int64(tt.maxLine)))
					}
					if st.Rejected != 1 {
						t.Errorf("Rejected = %d", st.Rejected)
					}
				} else if f.Kind != frame.KindRequest || f.Size() != tt.n {
					t.Errorf("line 1: %s size %d, want the request", describe(f), f.Size())
				}
				if f := recs[1].Frame; f == nil || f.Kind != frame.KindResult || f.Line != 2 || string(f.Raw) != next {
					t.Errorf("line 2: %s", describeOrNil(f))
				}
				if st.Bytes != int64(len(in)) {
					t.Errorf("Bytes = %d, want %d", st.Bytes, len(in))
				}
			})
		}
	}
}

// A 60 MB line is decoded, and the line after it too. The input goes through a pipe
// so that neither the test nor the reader holds it whole.
func TestSixtyMegabyteLine(t *testing.T) {
	if testing.Short() {
		t.Skip("60 MB line")
	}
	const size = 60_000_000
	for _, form := range []struct {
		name, prefix, suffix string
		format               string
	}{
		{"envelope", `{"ts":"2026-05-01T12:00:00Z","dir":"s->c","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`, `"}}}`, "envelope-jsonl"},
		{"bare", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"`, `"}}`, "jsonrpc-jsonl"},
	} {
		t.Run(form.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				chunk := bytes.Repeat([]byte("abcdefghij"), 1<<16/10)
				w := bufio.NewWriterSize(pw, 1<<16)
				w.WriteString(form.prefix)
				for n := 0; n < size; {
					c := chunk
					if size-n < len(c) {
						c = c[:size-n]
					}
					w.Write(c)
					n += len(c)
				}
				w.WriteString(form.suffix + "\r\n")
				w.WriteString(`{"jsonrpc":"2.0","id":8,"method":"ping"}` + "\n")
				pw.CloseWithError(w.Flush())
			}()
			rd, err := frame.NewReader("big", pr, frame.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rec, err := rd.Next()
			if err != nil {
				t.Fatal(err)
			}
			f := rec.Frame
			if rec.Kind != frame.RecordFrame || f.Kind != frame.KindNotification || f.Method != "notifications/message" || rec.Line != 1 {
				t.Fatalf("line 1: kind %v, %s", rec.Kind, describeOrNil(f))
			}
			if f.Size() <= size || len(f.Params) <= size {
				t.Errorf("Size = %d, params %d bytes, want more than %d", f.Size(), len(f.Params), size)
			}
			if !bytes.HasPrefix(f.Params, []byte(`{"level":"info","data":"abcdefghij`)) || !bytes.HasSuffix(f.Params, []byte(`ghij"}`)) {
				t.Errorf("params %.40q...%q", f.Params, f.Params[max(0, len(f.Params)-10):])
			}
			rec, err = rd.Next()
			if err != nil {
				t.Fatal(err)
			}
			if f := rec.Frame; rec.Line != 2 || f == nil || f.Method != "ping" || f.ID != "8" || f.Line != 2 {
				t.Errorf("line 2: line %d %s", rec.Line, describeOrNil(f))
			}
			if _, err := rd.Next(); !errors.Is(err, io.EOF) {
				t.Errorf("Next at the end: %v", err)
			}
			st := rd.Stats()
			if st.Format != form.format || st.Frames != 2 || st.Rejected != 0 || st.Bytes <= size {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// A line in another format than the one detected first is read in its own format
// (DESIGN.md section 7; issue 11 item 13), with its own decoder's state, and counted
// in Stats.Mixed; in a client log that copies the server's stderr, another format's
// lines stay context and are counted in Stats.FrameLike.
func TestMixedFormats(t *testing.T) {
	const (
		ping   = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		answer = `{"jsonrpc":"2.0","id":1,"result":{}}`
	)
	for _, c := range []struct {
		name          string
		in            string
		format        string
		frames, mixed int
		frameLike     int
		check         func(t *testing.T, fs []record)
	}{
		{name: "bare then envelope", format: "jsonrpc-jsonl", frames: 2, mixed: 1,
			in: ping + "\n" + `{"ts":"2026-01-01T00:00:01Z","dir":"s2c","msg":` + answer + "}\n",
			check: func(t *testing.T, fs []record) {
				if f := fs[1].Frame; f.Dir != spec.S2C || f.Time.IsZero() {
					t.Errorf("envelope line: dir %v time %v, want s2c and its time", f.Dir, f.Time)
				}
			}},
		{name: "bare then Go SDK", format: "jsonrpc-jsonl", frames: 3, mixed: 2,
			in: ping + "\n" + "2026/01/01 00:00:00 write: " + ping + "\nread: " + answer + "\n",
			check: func(t *testing.T, fs []record) {
				// A Go SDK log's two directions are logged by concurrent goroutines.
				if f := fs[1].Frame; f.Method != "ping" || !f.Unordered {
					t.Errorf("Go SDK line: %s", describe(f))
				}
			}},
		{name: "envelope then Claude", format: "envelope-jsonl", frames: 3, mixed: 2,
			in: `{"ts":"2026-01-01T00:00:00Z","dir":"c2s","msg":` + ping + "}\n" +
				"2026-01-01T00:00:01.000Z [srv] [info] Message from client: " + ping + " { metadata: undefined }\n" +
				"2026-01-01T00:00:02.000Z [info] [srv] Message from server: " + answer + "\n",
			check: func(t *testing.T, fs []record) {
				for _, f := range fs[1:] {
					if f.Frame.StreamKey != "srv" {
						t.Errorf("Claude line %d: stream %q, want srv", f.Line, f.Frame.StreamKey)
					}
				}
			}},
		{name: "Claude with the server's Go SDK and bare stderr", format: "claude-desktop-log", frames: 1, frameLike: 2,
			in: "2026-01-01T00:00:01.000Z [srv] [info] Message from client: " + ping + "\n" +
				"2026/01/01 00:00:01 read: " + ping + "\n" + ping + "\n" + "plain stderr\n"},
		{name: "Claude then envelope", format: "claude-desktop-log", frames: 2, mixed: 1,
			in: "2026-01-01T00:00:01.000Z [srv] [info] Message from client: " + ping + "\n" +
				`{"ts":"2026-01-01T00:00:02Z","dir":"s2c","msg":` + answer + "}\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs, st := read(t, c.in, frame.Options{})
			checkStats(t, recs, st)
			fs := framesOf(recs)
			if st.Format != c.format || len(fs) != c.frames || st.Mixed != c.mixed || st.FrameLike != c.frameLike {
				t.Fatalf("format %s, %d frames, %d mixed, %d frame-like; want %s, %d, %d, %d", st.Format, len(fs), st.Mixed, st.FrameLike, c.format, c.frames, c.mixed, c.frameLike)
			}
			for _, f := range fs {
				if f.Frame.Kind == frame.KindInvalid {
					t.Errorf("line %d: %s", f.Line, describe(f.Frame))
				}
			}
			if c.check != nil {
				c.check(t, fs)
			}
		})
	}
	// A format given with --input-format is not second-guessed: other lines are context.
	recs, st := read(t, ping+"\n"+`{"ts":"2026-01-01T00:00:01Z","dir":"s2c","msg":`+answer+"}\n", frame.Options{Format: "jsonrpc-jsonl"})
	if n := len(framesOf(recs)); n != 1 || st.Mixed != 0 {
		t.Errorf("forced format: %d frames, %d mixed; want 1 and 0", n, st.Mixed)
	}
}
