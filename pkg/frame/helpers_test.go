package frame_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// record is a deep copy of one frame.Record: it no longer aliases the Reader's
// buffer, so a test can keep it after the next call to Next.
type record struct {
	Kind  frame.RecordKind
	Line  int
	Entry int
	Text  string
	Frame *frame.Frame
	Run   int
	// Exchange is set on a context record of an HTTP exchange (Record.Exchange).
	Exchange bool
}

// at is where a record is counted: its entry in a document format, else its line.
func (r record) at() int {
	if r.Entry > 0 {
		return r.Entry
	}
	return r.Line
}

// copyFrame deep-copies f, members included.
func copyFrame(f *frame.Frame) *frame.Frame {
	c := *f
	c.Source = strings.Clone(f.Source)
	c.DirReason = strings.Clone(f.DirReason)
	c.StreamKey = strings.Clone(f.StreamKey)
	c.Raw = bytes.Clone(f.Raw)
	c.Method = strings.Clone(f.Method)
	c.ID = strings.Clone(f.ID)
	c.Params = bytes.Clone(f.Params)
	c.Result = bytes.Clone(f.Result)
	c.ErrorMessage = strings.Clone(f.ErrorMessage)
	c.Detail = strings.Clone(f.Detail)
	c.Members = nil
	for i := range f.Members {
		c.Members = append(c.Members, *copyFrame(&f.Members[i]))
	}
	return &c
}

func copyRecord(rec *frame.Record) record {
	r := record{Kind: rec.Kind, Line: rec.Line, Entry: rec.Entry, Text: string(rec.Text), Run: rec.Run, Exchange: rec.Exchange != nil}
	if rec.Frame != nil {
		r.Frame = copyFrame(rec.Frame)
	}
	return r
}

// readAll reads every record of in. err is the first error Next returned other than
// io.EOF (nil when the input ended normally). It fails the test if NewReader fails or
// if Next returns more records than the input has bytes (a reader that does not end).
func readAll(t testing.TB, name string, in io.Reader, opt frame.Options) ([]record, frame.Stats, error) {
	t.Helper()
	rd, err := frame.NewReader(name, in, opt)
	if err != nil {
		t.Fatalf("NewReader(%q): %v", name, err)
	}
	defer rd.Close()
	var out []record
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out, rd.Stats(), nil
		}
		if err != nil {
			return out, rd.Stats(), err
		}
		if rec == nil {
			t.Fatalf("Next returned a nil record and a nil error after %d records", len(out))
		}
		out = append(out, copyRecord(rec))
		if len(out) > 1<<22 {
			t.Fatalf("Next does not stop: %d records", len(out))
		}
	}
}

// read reads a whole input given as a string and fails the test on any error.
func read(t testing.TB, in string, opt frame.Options) ([]record, frame.Stats) {
	t.Helper()
	recs, st, err := readAll(t, "test.jsonl", strings.NewReader(in), opt)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return recs, st
}

// framesOf keeps the frame records.
func framesOf(recs []record) []record {
	var out []record
	for _, r := range recs {
		if r.Kind == frame.RecordFrame {
			out = append(out, r)
		}
	}
	return out
}

// only reads in and returns its single record, failing unless there is exactly one.
func only(t *testing.T, in string, opt frame.Options) record {
	t.Helper()
	recs, _ := read(t, in, opt)
	if len(recs) != 1 {
		t.Fatalf("got %d records, want 1", len(recs))
	}
	return recs[0]
}

// onlyFrame is only for an input whose single record must be a frame.
func onlyFrame(t *testing.T, in string, opt frame.Options) *frame.Frame {
	t.Helper()
	r := only(t, in, opt)
	if r.Kind != frame.RecordFrame || r.Frame == nil {
		t.Fatalf("record kind %v (text %q), want a frame", r.Kind, r.Text)
	}
	return r.Frame
}

// checkStats asserts the counters add up: every line is a frame, context or blank.
func checkStats(t testing.TB, recs []record, st frame.Stats) {
	t.Helper()
	var frames, rejected, context, blank int
	lines := len(recs)
	for _, r := range recs {
		switch r.Kind {
		case frame.RecordFrame:
			frames++
			if r.Frame.Kind == frame.KindInvalid {
				rejected++
			}
		case frame.RecordContext:
			context++
		case frame.RecordBlank:
			if r.Run < 1 {
				t.Errorf("line %d: a blank record standing for %d lines", r.Line, r.Run)
			}
			blank += r.Run
			lines += r.Run - 1
		}
	}
	if st.Lines != lines || st.Frames != frames || st.Rejected != rejected || st.Context != context || st.Blank != blank {
		t.Errorf("stats %+v, records say lines=%d frames=%d rejected=%d context=%d blank=%d",
			st, lines, frames, rejected, context, blank)
	}
	if st.Lines != st.Frames+st.Context+st.Blank {
		t.Errorf("stats do not add up: lines %d != frames %d + context %d + blank %d", st.Lines, st.Frames, st.Context, st.Blank)
	}
	if st.FrameLines != st.Frames || st.Unaccounted() != 0 {
		t.Errorf("stats %+v: %d frame lines for %d frames, %d lines unaccounted for", st, st.FrameLines, st.Frames, st.Unaccounted())
	}
	next := 1
	for i, r := range recs {
		want := next
		next++
		if r.Kind == frame.RecordBlank && r.Run > 1 {
			next += r.Run - 1 // a run of empty lines is one record
		}
		if r.Line != want {
			t.Errorf("record %d has line %d, want %d (one record per line, or per run of empty lines, in order)", i, r.Line, want)
			break
		}
		if r.Frame != nil && r.Frame.Line != r.Line {
			t.Errorf("record line %d, frame line %d", r.Line, r.Frame.Line)
		}
	}
}

// fixture reads a file under fixtures/real.
func fixture(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "real", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// sameFrames compares what a consumer sees of two frame sequences (not Source and
// not Stats.Bytes, which legitimately differ between encodings of one capture).
func sameFrames(t *testing.T, got, want []record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Kind != w.Kind || g.Line != w.Line || g.Text != w.Text {
			t.Errorf("record %d: got kind %v line %d text %q, want kind %v line %d text %q", i, g.Kind, g.Line, g.Text, w.Kind, w.Line, w.Text)
			continue
		}
		if (g.Frame == nil) != (w.Frame == nil) {
			t.Errorf("record %d: frame presence differs", i)
			continue
		}
		if g.Frame != nil {
			sameFrame(t, i, g.Frame, w.Frame)
		}
	}
}

func sameFrame(t *testing.T, i int, g, w *frame.Frame) {
	t.Helper()
	if !bytes.Equal(g.Raw, w.Raw) || g.Kind != w.Kind || g.Method != w.Method || g.ID != w.ID ||
		g.Dir != w.Dir || !g.Time.Equal(w.Time) || g.StreamKey != w.StreamKey || g.Line != w.Line ||
		!bytes.Equal(g.Params, w.Params) || !bytes.Equal(g.Result, w.Result) ||
		g.ErrorCode != w.ErrorCode || g.ErrorMessage != w.ErrorMessage ||
		g.Problem != w.Problem || g.Detail != w.Detail || g.Offset != w.Offset || len(g.Members) != len(w.Members) {
		t.Errorf("record %d: frames differ:\n got  %s\n want %s", i, describe(g), describe(w))
		return
	}
	for j := range w.Members {
		sameFrame(t, i, &g.Members[j], &w.Members[j])
	}
}

func describe(f *frame.Frame) string {
	var b strings.Builder
	b.WriteString(f.Kind.String())
	b.WriteString(" line=")
	b.WriteString(strconv.Itoa(f.Line))
	b.WriteString(" dir=" + f.Dir.String() + " method=" + f.Method + " id=" + f.ID)
	b.WriteString(" time=" + f.Time.String())
	if f.Kind == frame.KindInvalid {
		b.WriteString(" problem=" + strconv.Itoa(int(f.Problem)) + " offset=" + strconv.FormatInt(f.Offset, 10))
	}
	if f.Detail != "" {
		b.WriteString(" detail=" + f.Detail)
	}
	raw := string(f.Raw)
	if len(raw) > 120 {
		raw = raw[:120] + "..."
	}
	b.WriteString(" raw=" + raw)
	return b.String()
}

func describeOrNil(f *frame.Frame) string {
	if f == nil {
		return "<no frame>"
	}
	return describe(f)
}
