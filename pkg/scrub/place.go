package scrub

import (
	"bytes"
	"sort"
	"unicode/utf16"
	"unicode/utf8"
)

// placeIn finds a frame's bytes in text from byte from, as they are or inside a
// JSON string (escaped once: a HAR's body, a logger's message field), applies
// the edits there and returns the new text and where the frame's bytes end in
// it. ok is false when the bytes are not there.
func placeIn(text []byte, from int, raw []byte, edits []span) (out []byte, end int, ok bool) {
	if i := bytes.Index(text[from:], raw); i >= 0 {
		at := from + i
		spans := make([]span, len(edits))
		for k, e := range edits {
			spans[k] = span{at + e.start, at + e.end, e.with}
		}
		out, delta := replaceSpans(text, spans)
		return out, at + len(raw) + delta, true
	}
	// Inside a JSON string: decode each string of the text after from, with
	// where each decoded byte came from, and look for the frame's bytes in it.
	for at := from; at < len(text); {
		q := bytes.IndexByte(text[at:], '"')
		if q < 0 {
			break
		}
		start := at + q
		closing := stringEnd(text, start)
		if closing < 0 {
			break
		}
		at = closing + 1
		body := text[start+1 : closing]
		if closing-start-1 < len(raw) || bytes.IndexByte(body, '\\') < 0 {
			continue // too short, or nothing escaped: no JSON text inside
		}
		decoded, from := decodeWithOrigins(body)
		i := bytes.Index(decoded, raw)
		if i < 0 {
			continue
		}
		spans := make([]span, len(edits))
		for k, e := range edits {
			spans[k] = span{start + 1 + from[i+e.start], start + 1 + from[i+e.end], e.with}
		}
		out, delta := replaceSpans(text, spans)
		return out, start + 1 + from[i+len(raw)] + delta, true
	}
	return text, 0, false
}

// A span of a text to replace with a pseudonym: for a frame's values, the
// content of a string (between its quotes) in the frame's bytes.
type span struct {
	start, end int
	with       string
}

// replaceSpans replaces the spans (which do not overlap) and returns the text
// and how much longer it grew.
func replaceSpans(text []byte, spans []span) ([]byte, int) {
	if len(spans) == 0 {
		return text, 0
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	out := make([]byte, 0, len(text)+len(spans)*24)
	at := 0
	for _, s := range spans {
		out = append(out, text[at:s.start]...)
		out = append(out, s.with...)
		at = s.end
	}
	out = append(out, text[at:]...)
	return out, len(out) - len(text)
}

// stringEnd is the index of the quote that closes the JSON string opening at
// text[start], -1 when the text ends first.
func stringEnd(text []byte, start int) int {
	for i := start + 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// decodeWithOrigins decodes the body of a JSON string (bytes between its
// quotes) and says, for each decoded byte, where in body its encoding starts
// (from[len(decoded)] is len(body)). Bad escapes decode as they are written.
func decodeWithOrigins(body []byte) (decoded []byte, from []int) {
	decoded = make([]byte, 0, len(body))
	from = make([]int, 0, len(body)+1)
	put := func(origin int, b ...byte) {
		for _, c := range b {
			decoded = append(decoded, c)
			from = append(from, origin)
		}
	}
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' || i+1 >= len(body) {
			put(i, c)
			i++
			continue
		}
		if d := shortEscapes[body[i+1]]; d != 0 {
			put(i, d)
			i += 2
			continue
		}
		switch body[i+1] {
		case 'u':
			r, n := escapedRune(body[i:])
			if n == 0 {
				put(i, c)
				i++
				continue
			}
			var buf [utf8.UTFMax]byte
			put(i, buf[:utf8.EncodeRune(buf[:], r)]...)
			i += n
		default:
			put(i, c)
			i++
		}
	}
	from = append(from, len(body))
	return decoded, from
}

// shortEscapes are the two-byte escapes of JSON strings, by their second byte.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escapedRune reads a \uXXXX escape (and the low half of a surrogate pair after
// it) at the start of b: the rune and the bytes it took, 0 when b does not
// start with one.
func escapedRune(b []byte) (rune, int) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if lo, ok := hex4(b[6:]); ok {
			if pair := utf16.DecodeRune(r, lo); pair != utf8.RuneError {
				return pair, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// hex4 reads "\uXXXX" at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c-'a') + 10
		case c >= 'A' && c <= 'F':
			r |= rune(c-'A') + 10
		default:
			return 0, false
		}
	}
	return r, true
}
