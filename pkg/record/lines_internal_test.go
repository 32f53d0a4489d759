package record

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// TestLines: lines are cut at newlines whatever the chunks, a line over the
// limit is reported by its length, and a last line without a newline counts.
func TestLines(t *testing.T) {
	var got []string
	whole := func(b []byte) { got = append(got, string(b)) }
	tooLong := func(n int) { got = append(got, fmt.Sprintf("<%d bytes>", n)) }
	l := lines{max: 8}
	for _, chunk := range []string{"ab", "c\nde", "f\n\n0123456", "789abc\nxy", "z"} {
		l.feed([]byte(chunk), whole, tooLong)
	}
	l.end(whole, tooLong)
	want := "abc|def||<13 bytes>|xyz"
	if strings.Join(got, "|") != want {
		t.Errorf("lines = %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestLinesInParts (issue 29, item 6): a long line is gathered in parts of
// lineBlock bytes, never in one buffer that doubles as it grows, and recorded
// from its parts exactly as from one piece.
func TestLinesInParts(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("y", 3*lineBlock+lineBlock/2) + `"}}`
	var got [][]byte
	l := lines{max: MaxLine}
	for i := 0; i < len(msg); i += 64 << 10 {
		l.feedParts([]byte(msg[i:min(i+64<<10, len(msg))]), func(p [][]byte) { got = p }, func(int) { t.Fatal("too long") })
	}
	l.feedParts([]byte("\n"), func(p [][]byte) { got = p }, func(int) { t.Fatal("too long") })
	if len(got) != 4 {
		t.Fatalf("%d parts, want 4", len(got))
	}
	var joined []byte
	for i, p := range got {
		if len(p) > lineBlock || (i < len(got)-1 && len(p) != lineBlock) {
			t.Errorf("part %d of %d bytes", i, len(p))
		}
		joined = append(joined, p...)
	}
	if string(joined) != msg {
		t.Fatal("the parts are not the line")
	}
	var fromParts, whole strings.Builder
	now := func() time.Time { return time.Unix(0, 0) }
	a := NewRecording(&fromParts, Options{Now: now})
	a.frameParts(spec.S2C, got)
	a.frameParts(spec.S2C, [][]byte{[]byte("not"), []byte(" json")})
	a.Close()
	b := NewRecording(&whole, Options{Now: now})
	b.Frame(spec.S2C, []byte(msg))
	b.Frame(spec.S2C, []byte("not json"))
	b.Close()
	if fromParts.String() != whole.String() {
		t.Errorf("recorded from parts:\n%.200s\nfrom one piece:\n%.200s", fromParts.String(), whole.String())
	}
}
