package frame

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// plainRun skips only plain bytes and valid escapes, and stops at the first byte
// scanString must look at, within the last block, or at the backslash of an
// escape it leaves to scanString; scanString finds the same ends and escapes
// with it as byte by byte.
func TestPlainRun(t *testing.T) {
	vectors := func() bool { n, _ := plainRun(bytes.Repeat([]byte("a"), 256)); return n > 0 }()
	if !vectors {
		t.Log("this processor skips no plain run: the eight-byte path alone is tested")
	}
	if vectors {
		// Dense escapes, \u ones with upper- and lower-case digits among them,
		// are passed 64 bytes at a time, not handed back one by one (it may
		// hand back an escape that a 64-byte window cuts).
		dense := []byte(strings.Repeat(`a\u00e9\n\"\u00C4\\\t\/`, 16) + `"`)
		if n, esc := plainRun(dense); n < 64 || !esc {
			t.Fatalf("plainRun over dense valid escapes stops at %d of %d (escaped %v)", n, len(dense), esc)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	specials := []string{`"`, `\`, "\x00", "\x1f", "\n", "\x7f", "\x80", "\xff", `\n`, `\t`, `\"`, `\\`, `\/`, `\u00e9`, `\u12`, `\x`, `\`}
	for range 30000 {
		var b []byte
		for n := rng.IntN(300); len(b) < n; {
			switch r := rng.IntN(60); {
			case r == 0:
				b = append(b, specials[rng.IntN(len(specials))]...)
			case r < 4:
				b = append(b, specials[8+rng.IntN(5)]...) // the common escapes, often
			case r < 10:
				b = append(b, byte(0x80+rng.IntN(128))) // UTF-8 bytes are plain
			default:
				c := byte(' ' + rng.IntN(95))
				if c == '"' || c == '\\' {
					c = 'x'
				}
				b = append(b, c)
			}
		}
		// Where a byte-by-byte walk stops, skipping what plainRun may skip.
		first, escapedBefore := len(b), false
		escapedAt := make([]bool, len(b)+1) // whether an escape lies before offset i
		boundary := make([]bool, len(b)+1)  // offsets that are not inside an escape
		boundary[len(b)] = true
		for i := 0; i < len(b); {
			escapedAt[i], boundary[i] = escapedBefore, true
			c := b[i]
			if c == '\\' {
				if n := escapeLength(b[i+1:]); n > 0 {
					escapedBefore = true
					i += 1 + n
					continue
				}
			}
			if c == '"' || c == '\\' || c < 0x20 {
				first = i
				break
			}
			i++
		}
		if first == len(b) {
			escapedAt[len(b)] = escapedBefore
		}
		n, esc := plainRun(b)
		switch {
		case n > first:
			t.Fatalf("plainRun(%q) = %d: skips the byte at %d", b, n, first)
		case vectors && n < first && len(b)-n >= 32 && b[n] != '\\':
			t.Fatalf("plainRun(%q) = %d: stops before the first byte to look at (%d) with a whole block left", b, n, first)
		case !boundary[n]:
			t.Fatalf("plainRun(%q) = %d: stops inside an escape", b, n)
		case esc != escapedAt[n]:
			t.Fatalf("plainRun(%q) = %d, %v: an escape before %d is %v", b, n, esc, n, escapedAt[n])
		}
		// The whole scan, as a string that starts with a quote.
		s := append([]byte{'"'}, b...)
		end, escaped, ok := scanString(s, 0)
		wantEnd, wantEscaped, wantOK := scanStringBytewise(s)
		if end != wantEnd || escaped != wantEscaped || ok != wantOK {
			t.Fatalf("scanString(%q) = %d, %v, %v; byte by byte %d, %v, %v", s, end, escaped, ok, wantEnd, wantEscaped, wantOK)
		}
	}
}

// scanStringBytewise is scanString one byte at a time: the reference.
func scanStringBytewise(b []byte) (end int, escaped, ok bool) {
	for i := 1; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			return i + 1, escaped, true
		}
		if c < 0x20 {
			return i, escaped, false
		}
		if c != '\\' {
			continue
		}
		escaped = true
		n := escapeLength(b[i+1:])
		if n == 0 {
			return i, escaped, false
		}
		i += n
	}
	return len(b), escaped, false
}

// escapeLength is the length of the valid escape that follows a backslash at the
// start of rest, 0 when none does (RFC 8259, section 7).
func escapeLength(rest []byte) int {
	if len(rest) > 0 && strings.IndexByte(`"\/bfnrt`, rest[0]) >= 0 {
		return 1
	}
	if len(rest) >= 5 && rest[0] == 'u' && strings.Trim(string(rest[1:5]), "0123456789abcdefABCDEF") == "" {
		return 5
	}
	return 0
}

func BenchmarkScanLongString(b *testing.B) {
	text := make([]byte, 64<<10)
	for i := range text {
		text[i] = 'a' + byte(i%26)
	}
	s := append(append([]byte{'"'}, text...), '"')
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		scanString(s, 0)
	}
}

func BenchmarkScanLogText(b *testing.B) {
	benchScanText(b, `1764578408.920 WARN  [ingest] \u00dcberweisung f\u00fcr M\u00fcller verbucht: 72957,40 \u20ac\n1764578421.066 ERROR [scheduler] row 90238\tstatus=ok\tlatency=160ms\tregion=eu-west-1\n`)
}

// BenchmarkScanEscapedText is tool output as captures carry it: lines of text
// with an escaped newline every 30 to 60 bytes, quotes and tabs, no \u escape.
func BenchmarkScanEscapedText(b *testing.B) {
	benchScanText(b, `Found 3 matches in src/handlers.go:\n  41: func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {\n  57: \tif err := h.store.Get(\"session\"); err != nil {\n  88: return fmt.Errorf(\"read %s: %w\", path, err)\n`)
}

// benchScanText scans a string of 64 KiB made of line repeated.
func benchScanText(b *testing.B, line string) {
	var text []byte
	for len(text) < 64<<10 {
		text = append(text, line...)
	}
	s := append(append([]byte{'"'}, text...), '"')
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		scanString(s, 0)
	}
}

// FuzzScanString compares scanString with the byte-by-byte reference on any
// string body, alone and after a plain run long enough for the vector loop.
func FuzzScanString(f *testing.F) {
	f.Add([]byte(`plain text"`))
	f.Add([]byte(`line\nnext\ttab \"quoted\" \\ \/ \u00e9 \u12 \x`))
	f.Add([]byte("control\x01byte"))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, pad := range []int{0, 17, 80} {
			s := append(append([]byte{'"'}, strings.Repeat("p", pad)...), body...)
			end, escaped, ok := scanString(s, 0)
			wantEnd, wantEscaped, wantOK := scanStringBytewise(s)
			if end != wantEnd || escaped != wantEscaped || ok != wantOK {
				t.Fatalf("scanString(%q) = %d, %v, %v; byte by byte %d, %v, %v", s, end, escaped, ok, wantEnd, wantEscaped, wantOK)
			}
		}
	})
}
