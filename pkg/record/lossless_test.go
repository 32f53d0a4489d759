package record_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
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

// TestRedactKeepsWhatHasNoSecret (issue 29, item 4): under --redact a message
// without a secret is recorded exactly as it crossed, even when the structured
// redaction cannot read it as it is (nesting past 64, bytes that are not
// UTF-8); the secrets of such a message are still masked, by its text.
func TestRedactKeepsWhatHasNoSecret(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70)
	cases := []struct{ crossed, secret string }{
		{`{"jsonrpc":"2.0","id":1,"result":` + deep + `}`, ""},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"caf` + "\xe9" + `"}}`, ""},
		{`{"jsonrpc":"2.0","id":2,"result":{"x":` + deep + `,"apiKey":"sk-abcdefghijklmnopqrstuvwx"}}`, "sk-abcdefghijklmnopqrstuvwx"},
		{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + "\xe9" + ` password=hunter2hunter2"}}`, "hunter2hunter2"},
	}
	for _, c := range cases {
		var out bytes.Buffer
		rec := record.NewRecording(&out, record.Options{Redact: true, Now: func() time.Time { return time.Unix(0, 0) }})
		rec.Frame(spec.S2C, []byte(c.crossed))
		rec.Close()
		line := strings.TrimSuffix(out.String(), "\n")
		msg, ok := strings.CutPrefix(line, `{"ts":"1970-01-01T00:00:00Z","dir":"s2c","msg":`)
		if !ok {
			t.Fatalf("%.60q: recorded as %.200q", c.crossed, line)
		}
		msg = strings.TrimSuffix(msg, "}")
		switch {
		case c.secret == "" && msg != c.crossed:
			t.Errorf("%.60q: a message without a secret was changed: %.200q", c.crossed, msg)
		case c.secret != "" && strings.Contains(msg, c.secret):
			t.Errorf("%.60q: the secret is recorded: %.200q", c.crossed, msg)
		case c.secret != "" && !json.Valid([]byte(msg)):
			t.Errorf("%.60q: masked into invalid JSON: %.200q", c.crossed, msg)
		}
	}
}

// gate is a writer that holds every write until it is opened.
type gate struct {
	open chan struct{}
	buf  bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	return g.buf.Write(p)
}

// TestTakingARecordNeverWaitsForItsWriting (issue 29, item 5: a 60 MB answer
// reached the client 35 s late under --redact): the pump that takes a record
// goes on at once (to forward what crossed) while the record is classified,
// redacted and written by the recording's writer, in the order taken.
func TestTakingARecordNeverWaitsForItsWriting(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	rec := record.NewRecording(g, record.Options{Redact: true, Now: func() time.Time { return time.Unix(0, 0) }})
	taken := make(chan struct{})
	go func() {
		rec.Frame(spec.C2S, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"apiKey":"sk-abcdefghijklmnopqrstuvwx"}}}`))
		rec.Frame(spec.S2C, []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))
		rec.Stderr([]byte("server log"))
		close(taken)
	}()
	select {
	case <-taken:
	case <-time.After(30 * time.Second): // a hang guard, not a measure
		t.Fatal("taking the records waited for the writer")
	}
	close(g.open)
	rec.Close()
	lines := strings.Split(strings.TrimSuffix(g.buf.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"dir":"c2s"`) || strings.Contains(lines[0], "sk-abcdefghijklmnopqrstuvwx") ||
		!strings.Contains(lines[1], `"dir":"s2c"`) || !strings.Contains(lines[2], `"dir":"stderr"`) {
		t.Errorf("recorded, in order:\n%s", g.buf.String())
	}
}
