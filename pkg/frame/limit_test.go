package frame_test

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// TestInputLimits: an input past --max-input, or a compressed one expanding past
// --max-decompressed, stops with a LimitError naming the limit and its flag, after
// the frames before it were read; an input of exactly the limit is read whole.
func TestInputLimits(t *testing.T) {
	line := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	plain := strings.Repeat(line, 100)
	gz := func(s string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	zst := func(s string) string {
		var b bytes.Buffer
		w, _ := zstd.NewWriter(&b)
		w.Write([]byte(s))
		w.Close()
		return b.String()
	}
	n := int64(len(plain))
	for _, tt := range []struct {
		name   string
		in     string
		opt    frame.Options
		frames int    // at least this many frames read before the stop
		err    string // "" when the input is read whole
	}{
		{"plain at the limit", plain, frame.Options{MaxInput: n}, 100, ""},
		{"plain one byte over", plain + "\n", frame.Options{MaxInput: n}, 100, "input larger than the limit of 4100 bytes: stopped reading there (raise it with --max-input)"},
		{"plain far over", plain + plain, frame.Options{MaxInput: 1 << 10}, 20, "input larger than the limit of 1 KiB"},
		{"no limit", plain + plain, frame.Options{MaxInput: -1}, 200, ""},
		{"gzip expands past", gz(plain), frame.Options{MaxDecompressed: 1 << 11}, 40, "decompressed input larger than the limit of 2 KiB: stopped reading there (raise it with --max-decompressed)"},
		{"gzip at the limit", gz(plain), frame.Options{MaxDecompressed: n}, 100, ""},
		{"zstd expands past", zst(plain), frame.Options{MaxDecompressed: 1 << 11}, 40, "decompressed input larger than the limit of 2 KiB"},
		{"gzip stored past --max-input", gz(plain + plain), frame.Options{MaxInput: 64}, 0, "input larger than the limit of 64 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			recs, _, err := readAll(t, "x.jsonl", strings.NewReader(tt.in), tt.opt)
			if got := len(framesOf(recs)); got < tt.frames {
				t.Errorf("%d frames read before the stop, want at least %d", got, tt.frames)
			}
			var limit *frame.LimitError
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("read whole: got %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !errors.As(err, &limit)):
				t.Errorf("got error %v, want a LimitError saying %q", err, tt.err)
			}
		})
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{512: "512 bytes", 1 << 10: "1 KiB", 64 << 20: "64 MiB", 16 << 30: "16 GiB", 1<<20 + 1: "1048577 bytes", 3 << 40: "3 TiB"} {
		if got := frame.Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// repeatReader yields n bytes of c, without holding them.
type repeatReader struct {
	c byte
	n int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > r.n {
		p = p[:r.n]
	}
	for i := range p {
		p[i] = r.c
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// TestLongLinesCostTheirLimit: a line far past MaxLine (a runaway log, a
// decompression bomb's output) is decided too long while it is read, and costs
// about the limit in memory, not its own size (issue 11 item 6: a 500 MB line took
// 2.2 GB). Allocation is counted by the runtime, not timed.
func TestLongLinesCostTheirLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 300 MB")
	}
	for _, tt := range []struct {
		name string
		in   func() io.Reader
		opt  frame.Options
		err  string
	}{
		{"300 MB line, default limit", func() io.Reader {
			return io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"`), &repeatReader{'x', 300 << 20}, strings.NewReader("\"}}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n"))
		}, frame.Options{}, ""},
		{"a zstd bomb of zeros past --max-decompressed", func() io.Reader {
			var b bytes.Buffer
			w, _ := zstd.NewWriter(&b, zstd.WithEncoderLevel(zstd.SpeedFastest))
			io.Copy(w, &repeatReader{0, 300 << 20})
			w.Close()
			return &b
		}, frame.Options{MaxDecompressed: 128 << 20}, "decompressed input larger than the limit of 128 MiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			recs, _, err := readAll(t, "x.jsonl", in, tt.opt)
			runtime.ReadMemStats(&after)
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if tt.err == "" {
				if len(recs) != 2 || recs[0].Frame == nil || !strings.Contains(recs[0].Frame.Detail, "--max-line limit of 64 MiB") || recs[1].Frame == nil || recs[1].Frame.Kind != frame.KindResult {
					t.Fatalf("want the long line rejected naming the limit, then the result read: %+v", recs)
				}
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 3*frame.DefaultMaxLine {
				t.Errorf("reading allocated %d MiB, want at most about the %d MiB line limit", alloc>>20, frame.DefaultMaxLine>>20)
			}
		})
	}
}

// TestBlankRunsAreOneRecord: a run of empty lines (a newline bomb: 4 GiB of them
// took minutes, one record each) is one blank record standing for the run, and the
// lines after it keep their numbers.
func TestBlankRunsAreOneRecord(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n\n\n\r\n\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + strings.Repeat("\n", 100_000) + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	recs, st := read(t, in, frame.Options{})
	checkStats(t, recs, st)
	var frameLines []int
	for _, r := range recs {
		if r.Kind == frame.RecordFrame {
			frameLines = append(frameLines, r.Line)
		}
	}
	if want := []int{1, 6, 100_007}; len(frameLines) != 3 || frameLines[0] != want[0] || frameLines[1] != want[1] || frameLines[2] != want[2] {
		t.Errorf("frames at lines %v, want %v", frameLines, want)
	}
	if st.Blank != 100_004 || len(recs) > 40 {
		t.Errorf("%d blank lines in %d records, want 100004 in a few", st.Blank, len(recs))
	}
}
