package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// indentedByEncodingJSON is what raw wrote before appendIndented: json.Compact,
// json.HTMLEscape, then json.Indent.
func indentedByEncodingJSON(src []byte, prefix string, depth int) ([]byte, bool) {
	var compact, escaped, indented bytes.Buffer
	if err := json.Compact(&compact, src); err != nil {
		return nil, false
	}
	json.HTMLEscape(&escaped, compact.Bytes())
	if err := json.Indent(&indented, escaped.Bytes(), prefix+strings.Repeat("  ", depth), "  "); err != nil {
		return nil, false
	}
	return indented.Bytes(), true
}

// randomJSON writes a random JSON value, with whitespace anywhere it may stand,
// empty and nested containers, and strings with the characters encoding/json
// escapes for HTML, U+2028 and U+2029, escapes of every kind, bytes that are not
// UTF-8 and the start of a U+2028 that is not one.
func randomJSON(r *rand.Rand, b *bytes.Buffer, depth int) {
	space := func() {
		for range r.IntN(3) {
			b.WriteByte(" \t\n\r"[r.IntN(4)])
		}
	}
	space()
	switch k := r.IntN(10); {
	case k < 2 && depth < 6:
		b.WriteByte('{')
		space()
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
				space()
			}
			randomString(r, b)
			space()
			b.WriteByte(':')
			randomJSON(r, b, depth+1)
		}
		b.WriteByte('}')
	case k < 4 && depth < 6:
		b.WriteByte('[')
		space()
		for i := range r.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			randomJSON(r, b, depth+1)
		}
		b.WriteByte(']')
	case k < 7:
		randomString(r, b)
	default:
		b.WriteString([]string{"0", "-1.5e+10", "12345678901234567890", "true", "false", "null", "0.25E-3"}[r.IntN(7)])
	}
	space()
}

func randomString(r *rand.Rand, b *bytes.Buffer) {
	parts := []string{"a", "text", "<", ">", "&", "\u2028", "\u2029", "\xe2\x80", "\xe2\x80\xa7", "\xe2", "é", "\xff",
		`\"`, `\\`, `\/`, `\n`, `\u003c`, `\u2028`, `\ud83d\ude00`, "'", " ", "{", "]", ":", ","}
	b.WriteByte('"')
	for range r.IntN(6) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	b.WriteByte('"')
}

// TestIndentedEqualsEncodingJSON: appendIndented writes what the three passes of
// encoding/json wrote, at every depth and with and without a prefix, on random
// values and on every line of the fixtures that is JSON; frame.Valid accepts what
// they accept (but what is nested deeper than frame.MaxNesting) and refuses what
// they refuse.
func TestIndentedEqualsEncodingJSON(t *testing.T) {
	check := func(src []byte) {
		t.Helper()
		for _, prefix := range []string{"", "  "} {
			for _, depth := range []int{0, 3} {
				want, ok := indentedByEncodingJSON(src, prefix, depth)
				if valid := frame.Valid(src); valid != ok {
					t.Fatalf("frame.Valid(%q) = %v, encoding/json: %v", src, valid, ok)
				}
				if !ok {
					continue
				}
				if got := appendIndented([]byte("x"), src, prefix, depth); !bytes.Equal(got[1:], want) {
					t.Fatalf("appendIndented(%q, %q, %d)\n got %q\nwant %q", src, prefix, depth, got[1:], want)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(26, 7))
	var b bytes.Buffer
	for range 20000 {
		b.Reset()
		randomJSON(r, &b, 0)
		check(b.Bytes())
		if n := b.Len(); n > 1 {
			check(b.Bytes()[:r.IntN(n)]) // cut: mostly refused by both
		}
	}
	for _, bad := range []string{"", " ", "{", `{"a"}`, `[1,]`, `"\x01"`, `"\u12"`, `01`, `{"a":1}x`, `nul`} {
		check([]byte(bad))
	}
	lines := 0
	err := filepath.WalkDir(filepath.Join("..", "..", "fixtures"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			lines++
			check(sc.Bytes())
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if lines < 1000 {
		t.Fatalf("only %d fixture lines", lines)
	}
}
