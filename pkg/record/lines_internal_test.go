package record

import (
	"fmt"
	"strings"
	"testing"
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
