package frame_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// encodeUTF16 writes s as UTF-16 with a byte order mark, as PowerShell's > does.
func encodeUTF16(s string, bigEndian bool) []byte {
	units := append([]uint16{0xfeff}, utf16.Encode([]rune(s))...)
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}

func summary(t *testing.T, name string, data []byte) (string, frame.Stats) {
	t.Helper()
	recs, st, err := readAll(t, name, bytes.NewReader(data), frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range recs {
		fmt.Fprintf(&b, "%d %d", r.Line, r.Kind)
		if r.Frame != nil {
			fmt.Fprintf(&b, " %s %s %s %s %q", r.Frame.Kind, r.Frame.Dir, r.Frame.Method, r.Frame.ID, r.Frame.Raw)
		}
		b.WriteByte('\n')
	}
	return b.String(), st
}

// UTF-16 input (issue 12 item 6), little- and big-endian, reads as the same capture in
// UTF-8: the same frames on the same lines, non-ASCII text intact.
func TestUTF16Input(t *testing.T) {
	data, err := os.ReadFile("../../fixtures/real/ts-everything-healthy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, `{"ts":"2026-01-01T00:00:00Z","dir":"c->s","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"héllo ✓ 𝄞"}}}`+"\n"...)
	want, wantStats := summary(t, "utf8.jsonl", data)
	for _, big := range []bool{false, true} {
		got, st := summary(t, "utf16.jsonl", encodeUTF16(string(data), big))
		if got != want || st.Frames != wantStats.Frames || st.Format != wantStats.Format || st.Frames == 0 {
			t.Errorf("big-endian=%v: stats %+v (UTF-8: %+v)\n%s\nwant\n%s", big, st, wantStats, got, want)
		}
		if !strings.Contains(got, "héllo ✓ 𝄞") {
			t.Errorf("big-endian=%v: non-ASCII text lost", big)
		}
	}
}

// TestWrapped: the inputs a Reader decodes before reading lines, by their first
// bytes, are what Wrapped names: gzip, zstd and UTF-16 with a byte order mark;
// not UTF-32, UTF-8 (with or without a mark), or inputs too short to say.
func TestWrapped(t *testing.T) {
	for head, want := range map[string]bool{
		"\x1f\x8b\x08\x00": true,
		"\x28\xb5\x2f\xfd": true,
		"\xff\xfe{\x00":    true,
		"\xfe\xff\x00{":    true,
		"\xff\xfe\x00\x00": false, // UTF-32
		"\xef\xbb\xbf{":    false,
		`{"js`:             false,
		"\x1f":             false,
		"\x28\xb5\x2f":     false,
		"":                 false,
	} {
		if got := frame.Wrapped([]byte(head)); got != want {
			t.Errorf("Wrapped(%q) = %v, want %v", head, got, want)
		}
	}
}
