package record_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/record"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestRecordingKeepsTheBytes (issue 29, items 2 and 3): what crossed is what the
// recording gives back. A line that is not UTF-8 is recorded as base64 (JSON
// would replace its bytes with U+FFFD) and read back byte for byte, a frame that
// is not JSON; a JSON value followed by \f, \v, U+0085 or U+00A0 is not a message
// (a client's JSON parser refuses it): it is recorded as text, whole, and read
// back as a line that is not JSON, never as an invalid record; JSON's own
// whitespace around a message is still a message.
func TestRecordingKeepsTheBytes(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	lines := []struct {
		crossed string
		message bool // read back as a JSON-RPC message
	}{
		{"\xff\xfe not UTF-8 \xc3", false},
		{msg + "\f", false},
		{msg + "\v", false},
		{msg + "\u0085", false},
		{"\u00a0" + msg, false},
		{msg + "\r", true},
		{" \t" + msg + " ", true},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + "\xff" + `"}}`, true},
	}
	var out bytes.Buffer
	rec := record.NewRecording(&out, record.Options{Now: func() time.Time { return time.Unix(0, 0) }})
	for _, l := range lines {
		rec.Frame(spec.C2S, []byte(l.crossed))
	}
	rec.Close()
	r, err := frame.NewReader("rec.jsonl", bytes.NewReader(out.Bytes()), frame.Options{Format: "envelope-jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for {
		rd, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rd.Kind != frame.RecordFrame {
			t.Errorf("line %d read back as %v, not a frame: %s", rd.Line, rd.Kind, rd.Text)
			continue
		}
		if i >= len(lines) {
			t.Fatalf("more frames than lines crossed: %s", rd.Frame.Raw)
		}
		l, f := lines[i], rd.Frame
		i++
		if got := f.Kind != frame.KindInvalid; got != l.message {
			t.Errorf("%+q read back as a message: %v, want %v (problem %v)", l.crossed, got, l.message, f.Problem)
		}
		if !l.message && (f.Problem != frame.ProblemNotJSON || string(f.Raw) != l.crossed) {
			t.Errorf("%+q read back as %+q (problem %v), want the bytes that crossed, not JSON", l.crossed, f.Raw, f.Problem)
		}
	}
	if i != len(lines) {
		t.Errorf("%d frames read back, want %d:\n%s", i, len(lines), out.String())
	}
}
