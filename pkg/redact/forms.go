package redact

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// The forms of a value a Set holds: the value, its JSON form and its Go-quoted
// form (between the quotes), each when it differs from the value. They are made
// in one pass over the value, and the JSON form of a string read from a JSON
// text is its own bytes when they are what encoding/json writes (walk.add).

// Add adds a captured value, and the forms a message or a frame may show it in
// (JSON- or Go-escaped inside quotes).
//
// The value may alias a frame's bytes: the set keeps none of them.
func (s *Set) Add(value string) {
	if !s.admits(value) {
		return
	}
	i := plainPrefix(value)
	if i == len(value) {
		s.add(value, len(value)) // shown as it is, quoted or not
		return
	}
	body, chars, goAlike := jsonBody(value, i)
	s.add(value, chars)
	s.addForms(value, body, chars, goAlike)
}

// addJSON adds a string value read from a JSON text, decoded to value (of chars
// characters), whose bytes between the quotes (body) are what encoding/json
// writes for it (decodeJSON): its JSON form is body. goAlike says Go quotes it
// alike. Both may alias bytes that change: the set keeps none of them.
func (s *Set) addJSON(value, body string, chars int, goAlike bool) {
	if !s.admits(value) {
		return
	}
	s.add(value, chars)
	s.addForms(value, body, chars, goAlike)
}

// admits reports whether Add of value may change the set: a set to add to, a
// value long enough, not a placeholder, and room for it (none of its forms is
// shorter than the value; when there is no room, Full says so already).
func (s *Set) admits(value string) bool {
	if s == nil || len(value) < MinValue || strings.HasPrefix(value, "[redacted") {
		return false
	}
	if s.ahead != nil {
		// Recording: the set the forms go to decides when they are added, and
		// whether a value too long for it makes it Long (AddCollected).
		s.ahead.record(valueKey{n: len(value)}, 0, 0, 0, true)
		if len(value) > MaxValue {
			s.recordHeads(value)
			return false
		}
		return true
	}
	if s.saturated() || s.tooLong(len(value)) {
		return false
	}
	if len(value) > MaxValue {
		s.Long = true
		s.addHeads(value)
		return false
	}
	return true
}

// leaveOut leaves out a string of at least n bytes decoded, more than MaxValue,
// as admits would: the set is Long unless it has no room for a value that long.
// A recorder records it, for AddCollected to decide the same.
// head is the value's start, decoded (its first headRunes characters at least:
// decodeHead).
func (s *Set) leaveOut(n int, head string) {
	if strings.HasPrefix(head, "[redacted") {
		return // a placeholder, as admits refuses it
	}
	if s.ahead != nil {
		s.ahead.record(valueKey{n: n}, 0, 0, 0, true)
		s.recordHeads(head)
		return
	}
	if !s.saturated() && !s.tooLong(n) {
		s.Long = true
		s.addHeads(head)
	}
}

// Heads of the values left out: a value too long for the set is not kept, but
// the first MinValue bytes of its forms are (Set.longHeads), so that a text cut
// inside an echo of it hides the echo's start (ReplaceCut).

// headRunes is how many characters of a long value its heads are made from: its
// forms' first startBytes bytes come from them whatever the characters (one
// byte each at least, more escaped).
const headRunes = startBytes

// maxLongHeads bounds the heads a set keeps; past it (longHeadsFull), a cut text
// in a session that left a long value out is hidden whole.
const maxLongHeads = 4096

// headForms calls add with the first MinValue bytes of each form of a value
// (the value, its JSON form and its Go form, as addForms makes them) whose start
// is head (headRunes characters of it or more), and the hash of its first
// startBytes bytes (startOf).
func (s *Set) headForms(head string, add func(prefix uint32, start uint64)) {
	n, end := 0, 0
	for end < len(head) && n < headRunes {
		_, size := utf8.DecodeRuneInString(head[end:])
		end += size
		n++
	}
	head = head[:end]
	if len(head) < MinValue {
		return
	}
	form := func(f string) {
		var start uint64
		if len(f) >= startBytes { // the value's form is longer than its head's
			start = s.startHash(f)
		}
		add(prefixOf(f), start)
	}
	form(head)
	body, _, _ := jsonBody(head, plainPrefix(head))
	form(body)
	q := strconv.Quote(head)
	form(q[1 : len(q)-1])
}

// addHeads keeps the heads of a value left out (head: its start, decoded).
func (s *Set) addHeads(head string) {
	s.headForms(head, s.addHead)
}

// addHead keeps one head and the hash of its form's start, within maxLongHeads.
func (s *Set) addHead(prefix uint32, start uint64) {
	if s.sealed != nil {
		s.unseal()
	}
	if _, ok := s.longHeads[prefix]; !ok {
		if len(s.longHeads) >= maxLongHeads {
			s.longHeadsFull = true
			return
		}
		if s.longHeads == nil {
			s.longHeads = map[uint32]struct{}{}
		}
		s.longHeads[prefix] = struct{}{}
	}
	s.addStart(start)
}

// recordHeads records a long value's heads for AddCollected, after the value.
func (s *Set) recordHeads(head string) {
	s.headForms(head, func(prefix uint32, start uint64) { s.ahead.record(valueKey{}, 0, prefix, start, false) })
}

// decodedAtLeast is a lower bound of the length of the string whose bytes
// between the quotes of a JSON text are body: an escape (two to six bytes, one
// backslash or two) decodes to a byte or more, any other byte stays a byte or
// more, so each backslash takes at most five bytes off. It counts the
// backslashes only, many bytes at a time (bytes.Count).
func decodedAtLeast(body []byte) int {
	return len(body) - 5*bytes.Count(body, []byte{'\\'})
}

// tooLong reports whether no value of n bytes or more can be added: the set is
// full and has no room for one.
func (s *Set) tooLong(n int) bool {
	return s != nil && s.Full && n > MaxBytes-s.bytes
}

// addForms adds the quoted forms of value (of chars characters), given the
// bytes encoding/json writes for it between the quotes (body) and whether Go
// quotes it alike (goAlike): its JSON form, as strings.Trim(token, `"`) gives
// it (a body that ends with an escaped quote loses that quote: no other quote
// can stand at either end), and its Go form. A form equal to the value, or to
// the form added before it, changes nothing and is not added again.
func (s *Set) addForms(value, body string, chars int, goAlike bool) {
	enc := strings.TrimSuffix(body, `"`)
	if enc != value {
		s.add(enc, chars)
	}
	q := body
	if !goAlike {
		quoted := strconv.Quote(value)
		q = quoted[1 : len(quoted)-1]
	}
	if q != value && q != enc {
		s.add(q, chars)
	}
}

// plainByte marks printable ASCII but the quote and the backslash: the bytes
// both encoding/json and Go write as they are.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

const (
	lows        = 0x0101010101010101
	highs       = 0x8080808080808080
	quotes      = '"' * lows
	backslashes = '\\' * lows
	deletes     = 0x7f * lows
)

// plainPrefix is the length of the longest prefix of s made of plain bytes
// (plainByte), read eight bytes at a time.
func plainPrefix(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))
		// A flag may be set above the first byte that needs a look (a borrow
		// carries upwards), never below it: the bytes are then read one by one.
		if w&highs|hasZeroByte(w^quotes)|hasZeroByte(w^backslashes)|hasZeroByte(w^deletes)|hasLessThan(w, 0x20) != 0 {
			break
		}
	}
	for i < len(s) && plainByte[s[i]] {
		i++
	}
	return i
}

// hasZeroByte is non-zero when some byte of w is zero.
func hasZeroByte(w uint64) uint64 { return (w - lows) &^ w & highs }

// hasLessThan is non-zero when some byte of w is below n (n <= 128).
func hasLessThan(w uint64, n uint64) uint64 { return (w - n*lows) &^ w & highs }

// jsonBody is what encoding/json writes for value between the quotes
// (appendString), its length in characters (a byte that is not UTF-8 counts as
// one), and whether Go's strconv.Quote writes the same between its quotes
// (goAlike): it does but for control characters other than \b \f \n \r \t, DEL,
// bytes that are not UTF-8 and characters strconv.IsPrint refuses (U+2028 and
// U+2029 aside, which both write as \u2028 and \u2029). value[:from] is plain.
func jsonBody(value string, from int) (body string, chars int, goAlike bool) {
	const hex = "0123456789abcdef"
	var b []byte // made at the first escape
	goAlike, chars = true, from
	start := 0
	flush := func(i int) {
		if b == nil {
			b = make([]byte, 0, len(value)+len(value)/16+8)
		}
		b = append(b, value[start:i]...)
	}
	for i := from; i < len(value); {
		if n := plainPrefix(value[i:]); n > 0 {
			i += n
			chars += n
			continue
		}
		c := value[i]
		if c < utf8.RuneSelf {
			chars++
			if c == 0x7f {
				goAlike = false // JSON writes it as it is, Go as \x7f
				i++
				continue
			}
			flush(i)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
				goAlike = false
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(value[i:])
		chars++
		switch {
		case r == utf8.RuneError && size == 1:
			flush(i)
			b = append(b, `\ufffd`...)
			goAlike = false
			i++
			start = i
			continue
		case r == '\u2028' || r == '\u2029':
			flush(i)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		case goAlike && !strconv.IsPrint(r):
			goAlike = false
		}
		i += size
	}
	if b == nil {
		return value, chars, goAlike
	}
	b = append(b, value[start:]...)
	return unsafe.String(unsafe.SliceData(b), len(b)), chars, goAlike
}

// decodeJSON decodes the bytes between a JSON string's quotes (body) when they
// are what encoding/json writes for the string they decode to (appendString:
// \" \\ \b \f \n \r \t, \u00XX in lower case for the other control characters,
// \u2028 and \u2029, every other character as it is, all UTF-8), as jsonBody
// says of that string: its length in characters and whether Go quotes it alike.
// ok is false for any other bytes (\/, other \u escapes, bytes that are not
// UTF-8). The string is written over dst (and aliases it).
//
// The bytes between escapes hold no quote and no control character (the scan
// refused them): ASCII runs are copied as they are, the rest read rune by rune.
func decodeJSON(dst, body []byte) (s []byte, chars int, goAlike, ok bool) {
	out := dst[:0]
	if cap(out) < len(body) {
		out = make([]byte, 0, len(body))
	}
	goAlike = true
	for i := 0; i < len(body); {
		end := bytes.IndexByte(body[i:], '\\')
		if end < 0 {
			end = len(body)
		} else {
			end += i
		}
		run := body[i:end]
		if n, alike, ok := textRun(run); !ok {
			return nil, 0, false, false
		} else {
			chars += n
			goAlike = goAlike && alike
		}
		out = append(out, run...)
		if i = end; i == len(body) {
			break
		}
		if i+1 >= len(body) {
			return nil, 0, false, false // never in a JSON text's string
		}
		switch e := body[i+1]; e {
		case '"', '\\':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := lowerHex4(body[i+2:])
			switch {
			case !ok:
				return nil, 0, false, false
			case r < 0x20 && r != '\b' && r != '\f' && r != '\n' && r != '\r' && r != '\t':
				out = append(out, byte(r))
				goAlike = false
			case r == 0x2028 || r == 0x2029:
				out = utf8.AppendRune(out, r)
			default:
				return nil, 0, false, false // encoding/json writes it as it is
			}
			i += 4
		default:
			return nil, 0, false, false // \/: encoding/json writes / as it is
		}
		i += 2
		chars++
	}
	return out, chars, goAlike, true
}

// textRun reads bytes of a JSON string between escapes (no quote, no backslash,
// no control character): their length in characters, whether Go quotes them as
// they are (goAlike: no DEL, no character strconv.IsPrint refuses), and whether
// encoding/json writes them as they are (ok: UTF-8, no U+2028 or U+2029).
func textRun(run []byte) (chars int, goAlike, ok bool) {
	i := 0
	for ; i+8 <= len(run); i += 8 {
		// A byte of 0x7f or more sets its high bit in w or w+1 (a carry only
		// comes from a byte of 0xff, whose high bit is set in w).
		if w := binary.LittleEndian.Uint64(run[i:]); (w|(w+lows))&highs != 0 {
			break
		}
	}
	for ; i < len(run) && run[i] < 0x7f; i++ {
	}
	if i == len(run) {
		return len(run), true, true
	}
	chars, goAlike = i, true
	for i < len(run) {
		c := run[i]
		if c < 0x7f {
			i++
			chars++
			continue
		}
		if c == 0x7f {
			goAlike = false
			i++
			chars++
			continue
		}
		r, size := utf8.DecodeRune(run[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return 0, false, false
		}
		if goAlike && !strconv.IsPrint(r) {
			goAlike = false
		}
		i += size
		chars++
	}
	return chars, goAlike, true
}

// lowerHex4 reads the four hexadecimal digits at the start of b, in lower case
// as encoding/json writes them.
func lowerHex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
