package frame_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/schema"
)

// countingShaper is the analysis's shaper, counting the frames the Reader had to
// shape from their bytes because its scan did not.
type countingShaper struct {
	schema.Shaper
	wired int
}

func (c *countingShaper) Wire(raw []byte) uint64 {
	c.wired++
	return c.Shaper.Wire(raw)
}

// shapedFrame is a message the Reader handed out with its shape, and the shape the
// reference (schema.Shaper.Wire, walking the message's bytes) gives it.
type shapedFrame struct {
	raw        string
	got, wire  uint64
	line, item int
}

// readShapes reads an input with a shaping Reader and returns its messages (batch
// members one by one) with their shapes, and how many the Reader shaped from bytes.
func readShapes(t *testing.T, name string, input io.Reader, format string) ([]shapedFrame, int) {
	t.Helper()
	shaper := &countingShaper{}
	rd, err := frame.NewReader(name, input, frame.Options{Format: format, Shaper: shaper})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var reference schema.Shaper
	var out []shapedFrame
	add := func(f *frame.Frame, item int) {
		if f.Kind != frame.KindInvalid {
			out = append(out, shapedFrame{raw: string(f.Raw), got: f.Shape(), wire: reference.Wire(f.Raw), line: f.Line, item: item})
		}
	}
	for {
		rec, err := rd.Next()
		if err != nil {
			break
		}
		if rec.Kind != frame.RecordFrame {
			continue
		}
		f := rec.Frame
		if f.Kind == frame.KindBatch {
			if f.Shape() != 0 {
				t.Errorf("%s:%d: a batch has shape %x; only its members have one", name, f.Line, f.Shape())
			}
			for i := range f.Members {
				add(&f.Members[i], i+1)
			}
			continue
		}
		add(f, 0)
	}
	return out, shaper.wired
}

// fixtureCaptures lists the captures among the fixtures (one level down, and the
// real sessions two levels down): every file but expectations and notes.
func fixtureCaptures(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../../fixtures/*/*")
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.Glob("../../fixtures/real/*/*")
	var out []string
	for _, name := range append(files, real...) {
		if st, err := os.Stat(name); err != nil || st.IsDir() || strings.HasSuffix(name, ".want") || strings.HasSuffix(name, ".md") {
			continue
		}
		out = append(out, name)
	}
	return out
}

// The shape the Reader's scan computes while it validates a line must be exactly the
// one the reference walk computes from the message's bytes, for every message of
// every fixture, in every format (envelopes, logs, documents, batches). Only the
// frames the Reader rebuilds from bytes it copied (an mcp-cassette record's further
// chunks, a batch a recorder split into records) may be shaped from their bytes.
func TestScanShapesAsWireDoes(t *testing.T) {
	fromBytesExpected := map[string]int{"cassette-http-chunks.jsonl": 1, "mcpsnoop-http-batch.jsonl": 3}
	messages, fromBytes := 0, 0
	for _, name := range fixtureCaptures(t) {
		in, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		shaped, wired := readShapes(t, name, in, "")
		in.Close()
		for _, s := range shaped {
			if s.got != s.wire {
				t.Errorf("%s:%d (member %d): scan shape %x, Wire %x: %.200s", name, s.line, s.item, s.got, s.wire, s.raw)
			}
		}
		if want := fromBytesExpected[filepath.Base(name)]; wired != want {
			t.Errorf("%s: %d of %d messages shaped from their bytes, want %d", name, wired, len(shaped), want)
		}
		messages += len(shaped)
		fromBytes += wired
	}
	if messages < 1000 {
		t.Fatalf("only %d messages in the fixtures", messages)
	}
	t.Logf("%d messages, %d shaped from their bytes", messages, fromBytes)
}

// A frame handed over by Reader.Detach is shaped either at once or later, from the
// tokens of the index it took along: shaped later, after the Reader read on into
// other views and with the arena holding every copy, each message of every
// fixture still has the shape the reference walk gives its bytes.
func TestDetachedFramesShapeAsWireDoes(t *testing.T) {
	var reference schema.Shaper
	messages, later := 0, 0
	for _, name := range fixtureCaptures(t) {
		in, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := frame.NewReader(name, in, frame.Options{Shaper: &schema.Shaper{}})
		if err != nil {
			in.Close()
			continue
		}
		var arena frame.Arena
		var copies []*frame.Frame
		for n := 0; ; n++ {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			if rec.Kind != frame.RecordFrame {
				continue
			}
			c := new(frame.Frame)
			rd.Detach(rec.Frame, &arena, c, n%3 == 0)
			copies = append(copies, c)
		}
		rd.Close()
		in.Close()
		check := func(f *frame.Frame, item int) {
			if f.Kind == frame.KindInvalid {
				return
			}
			messages++
			if got, want := f.Shape(), reference.Wire(f.Raw); got != want {
				t.Errorf("%s:%d (member %d): shape of the copy %x, Wire %x: %.200s", name, f.Line, item, got, want, f.Raw)
			}
		}
		for i, c := range copies {
			if i%3 != 0 {
				later++
			}
			if c.Kind != frame.KindBatch {
				check(c, 0)
			}
			for j := range c.Members {
				check(&c.Members[j], j+1)
			}
		}
	}
	if messages < 1000 || later < 600 {
		t.Fatalf("only %d messages, %d of them shaped after reading on", messages, later)
	}
}

// What the scan must get right beyond plain messages: the message of an envelope
// (its part of the line's shape), each member of a batch on its own, an escaped
// member name (no shape for the object holding it nor anything around it, but a
// shape for a sibling), nesting deeper than a shape follows (none) and escaped
// strings that decode to a literal.
func TestScanShapes(t *testing.T) {
	deep := strings.Repeat(`[`, 520) + strings.Repeat(`]`, 520)
	lines := []struct {
		format, line string
		usable       []bool // per message (batch member), whether it has a shape
	}{
		{"jsonrpc-jsonl", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":[1,2.5,"y",true,null]}}}`, []bool{true}},
		{"envelope-jsonl", `{"ts":"2026-05-01T12:00:00Z","dir":"c->s","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}}`, []bool{true}},
		{"envelope-jsonl", `{"ts":"2026-05-01T12:00:00Z","dir":"c->s","m\u0073g":{"jsonrpc":"2.0","id":1,"method":"ping"}}`, []bool{true}},
		{"jsonrpc-jsonl", `[{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a\u0062":1}},{"jsonrpc":"2.0","id":2,"method":"ping"},7]`, []bool{false, true}},
		{"jsonrpc-jsonl", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"deep":` + deep + `}}`, []bool{false}},
		{"jsonrpc-jsonl", `[{"jsonrpc":"2.0","id":1,"method":"x","params":{"deep":` + strings.Repeat(`[`, 510) + strings.Repeat(`]`, 510) + `}}]`, []bool{true}},
		{"jsonrpc-jsonl", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"t\u0065xt","text":"a\nb","uri":"file:\/\/\/x"}]}}`, []bool{true}},
	}
	for _, c := range lines {
		shaped, wired := readShapes(t, "test", strings.NewReader(c.line+"\n"), c.format)
		if wired != 0 {
			t.Errorf("%.80s: %d messages shaped from their bytes", c.line, wired)
		}
		if len(shaped) != len(c.usable) {
			t.Errorf("%.80s: %d messages, want %d", c.line, len(shaped), len(c.usable))
			continue
		}
		for i, s := range shaped {
			if s.got != s.wire {
				t.Errorf("%.80s: message %d: scan shape %x, Wire %x", c.line, i+1, s.got, s.wire)
			}
			if (s.got != 0) != c.usable[i] {
				t.Errorf("%.80s: message %d: shape %x, want usable %v", c.line, i+1, s.got, c.usable[i])
			}
		}
	}
}
