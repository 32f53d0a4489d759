package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// decode turns raw JSON bytes into the value model the validator reads
// (map[string]any, []any, string, json.Number, bool, nil). It is a single pass
// over the bytes, made for the hot path: strings and numbers without escapes share
// memory with raw, so the value must not outlive raw's contents (Validate uses it
// and drops it before returning). raw must hold one JSON value; an error says it
// does not (errSyntax), or that it nests deeper than maxDepth (errTooDeep).
// duplicates is set when an object holds a member name twice: the value keeps the
// last, as encoding/json and JavaScript's JSON.parse do (see duplicateMembers).
func decode(raw []byte) (v any, duplicates bool, err error) {
	d := decoder{buf: raw}
	d.space()
	v, err = d.value(0)
	if err != nil {
		return nil, false, err
	}
	d.space()
	if d.pos != len(d.buf) {
		return nil, false, errSyntax
	}
	return v, d.duplicates, nil
}

var errSyntax = errors.New("invalid JSON")

// maxDepth bounds nesting (a hostile capture must not exhaust the stack).
const maxDepth = 512

// errTooDeep is valid JSON that nests deeper than maxDepth: it is not checked.
var errTooDeep = fmt.Errorf("nested deeper than %d levels of arrays and objects", maxDepth)

type decoder struct {
	buf []byte
	pos int
	// duplicates is set once an object repeats a member name.
	duplicates bool
}

func (d *decoder) space() {
	for d.pos < len(d.buf) {
		switch d.buf[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (any, error) {
	if d.pos >= len(d.buf) {
		return nil, errSyntax
	}
	if depth > maxDepth {
		return nil, errTooDeep
	}
	switch c := d.buf[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	}
	return nil, errSyntax
}

func (d *decoder) literal(word string) error {
	if len(d.buf)-d.pos < len(word) || string(d.buf[d.pos:d.pos+len(word)]) != word {
		return errSyntax
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) object(depth int) (any, error) {
	d.pos++ // {
	m := make(map[string]any, 4)
	d.space()
	if d.pos < len(d.buf) && d.buf[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.space()
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			return nil, errSyntax
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
			return nil, errSyntax
		}
		d.pos++
		d.space()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n := len(m)
		m[key] = v
		if len(m) == n {
			d.duplicates = true // the name was there: the last value wins
		}
		d.space()
		if d.pos >= len(d.buf) {
			return nil, errSyntax
		}
		switch d.buf[d.pos] {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return m, nil
		default:
			return nil, errSyntax
		}
	}
}

func (d *decoder) array(depth int) (any, error) {
	d.pos++ // [
	a := make([]any, 0, 4)
	d.space()
	if d.pos < len(d.buf) && d.buf[d.pos] == ']' {
		d.pos++
		return a, nil
	}
	for {
		d.space()
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.pos >= len(d.buf) {
			return nil, errSyntax
		}
		switch d.buf[d.pos] {
		case ',':
			d.pos++
		case ']':
			d.pos++
			return a, nil
		default:
			return nil, errSyntax
		}
	}
}

// str reads a string; without escapes it shares memory with the buffer.
func (d *decoder) str() (string, error) {
	d.pos++ // opening quote
	start := d.pos
	ascii := true
	for d.pos < len(d.buf) {
		switch c := d.buf[d.pos]; {
		case c == '"':
			s := d.buf[start:d.pos]
			if !ascii && !utf8.Valid(s) {
				d.pos = start
				return d.escaped(start) // replaces invalid UTF-8, as encoding/json does
			}
			d.pos++
			if len(s) == 0 {
				return "", nil
			}
			return unsafe.String(unsafe.SliceData(s), len(s)), nil
		case c == '\\':
			return d.escaped(start)
		case c < 0x20:
			return "", errSyntax
		case c >= 0x80:
			ascii = false
		}
		d.pos++
	}
	return "", errSyntax
}

// escaped reads the rest of a string that holds escapes, into a new string; the
// string's bytes from start to the current position have been read already.
func (d *decoder) escaped(start int) (string, error) {
	// The decoded string is no longer than the raw one: one allocation of that
	// size, handed over as the string without a copy (a giant escaped text is
	// materialised once, not doubled on the way).
	out := make([]byte, 0, d.pos-start+rawStringLen(d.buf[d.pos:]))
	if read := d.buf[start:d.pos]; utf8.Valid(read) {
		out = append(out, read...)
	} else {
		// Invalid UTF-8 before the first escape becomes U+FFFD, as it does after it
		// and in strings without escapes (encoding/json does the same).
		for len(read) > 0 {
			r, size := utf8.DecodeRune(read)
			out = utf8.AppendRune(out, r)
			read = read[size:]
		}
	}
	for d.pos < len(d.buf) {
		c := d.buf[d.pos]
		switch {
		case c == '"':
			d.pos++
			return unsafe.String(unsafe.SliceData(out), len(out)), nil
		case c < 0x20:
			return "", errSyntax
		case c >= 0x80:
			r, size := utf8.DecodeRune(d.buf[d.pos:])
			out = utf8.AppendRune(out, r) // U+FFFD for an invalid byte
			d.pos += size
			continue
		case c != '\\':
			out = append(out, c)
			d.pos++
			continue
		}
		if d.pos+1 >= len(d.buf) {
			return "", errSyntax
		}
		e := d.buf[d.pos+1]
		d.pos += 2
		switch e {
		case '"', '\\', '/':
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
			r, ok := d.hex4()
			if !ok {
				return "", errSyntax
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(utf8.RuneError)
				if d.pos+1 < len(d.buf) && d.buf[d.pos] == '\\' && d.buf[d.pos+1] == 'u' {
					save := d.pos
					d.pos += 2
					if low, ok := d.hex4(); ok && utf16.DecodeRune(r, low) != utf8.RuneError {
						r2 = utf16.DecodeRune(r, low)
					} else {
						d.pos = save
					}
				}
				r = r2
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", errSyntax
		}
	}
	return "", errSyntax
}

func (d *decoder) hex4() (rune, bool) {
	if d.pos+4 > len(d.buf) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d.buf[d.pos:d.pos+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.pos += 4
	return rune(n), true
}

func (d *decoder) number() (any, error) {
	start := d.pos
	if d.buf[d.pos] == '-' {
		d.pos++
	}
	digits := func() int {
		n := 0
		for d.pos < len(d.buf) && d.buf[d.pos] >= '0' && d.buf[d.pos] <= '9' {
			d.pos++
			n++
		}
		return n
	}
	first := d.pos
	if n := digits(); n == 0 || (n > 1 && d.buf[first] == '0') {
		return nil, errSyntax // no digits, or a leading zero
	}
	if d.pos < len(d.buf) && d.buf[d.pos] == '.' {
		d.pos++
		if digits() == 0 {
			return nil, errSyntax
		}
	}
	if d.pos < len(d.buf) && (d.buf[d.pos] == 'e' || d.buf[d.pos] == 'E') {
		d.pos++
		if d.pos < len(d.buf) && (d.buf[d.pos] == '+' || d.buf[d.pos] == '-') {
			d.pos++
		}
		if digits() == 0 {
			return nil, errSyntax
		}
	}
	s := d.buf[start:d.pos]
	return json.Number(unsafe.String(unsafe.SliceData(s), len(s))), nil
}

// viewString returns a string sharing memory with b (no copy); it must not outlive b.
func viewString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// rawStringLen is the length of the rest of a string up to its closing quote (the
// whole rest when there is none).
func rawStringLen(b []byte) int {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		k := i
		for k > 0 && b[k-1] == '\\' {
			k--
		}
		if (i-k)%2 == 0 {
			return i
		}
		i++
	}
}
