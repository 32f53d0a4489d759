package report

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// appendSessionJSON appends a session as an element of the JSON report's
// "sessions" array: byte for byte what json.MarshalIndent(s, prefix, "  ")
// writes, without reflection. A capture of many short sessions encodes one
// session header per session, and the reflective encoder was a tenth of such a
// check's CPU. TestJSONStreamEqualsWholeReport compares the streamed report (this
// encoder) with the whole one (encoding/json) on every fixture, and
// TestSessionEncoderEqualsEncodingJSON the two on hostile strings; ok is false
// when a raw member is not valid JSON (the caller then falls back on
// encoding/json, which says why).
func appendSessionJSON(b []byte, s *Session, prefix string) ([]byte, bool) {
	e := jsonIndenter{b: b, prefix: prefix}
	e.b = append(e.b, '{')
	e.key(1, "input", true)
	e.string(s.Input)
	e.key(1, "index", false)
	e.int(s.Index)
	e.key(1, "streamKey", false)
	e.string(s.StreamKey)
	e.key(1, "firstLine", false)
	e.int(s.FirstLine)
	e.key(1, "lastLine", false)
	e.int(s.LastLine)
	e.key(1, "era", false)
	e.string(s.Era)
	for _, side := range []struct {
		name string
		peer *Peer
	}{{"client", &s.Client}, {"server", &s.Server}} {
		e.key(1, side.name, false)
		e.b = append(e.b, '{')
		e.key(2, "name", true)
		e.string(side.peer.Name)
		e.key(2, "version", false)
		e.string(side.peer.Version)
		e.key(2, "capabilities", false)
		if !e.raw(2, side.peer.Capabilities) {
			return b, false
		}
		e.close(1, '}')
	}
	e.key(1, "protocolVersion", false)
	e.b = append(e.b, '{')
	e.key(2, "requested", true)
	e.string(s.ProtocolVersion.Requested)
	e.key(2, "answered", false)
	e.string(s.ProtocolVersion.Answered)
	e.key(2, "negotiated", false)
	e.string(s.ProtocolVersion.Negotiated)
	e.close(1, '}')
	e.key(1, "frames", false)
	e.int(s.Frames)
	e.key(1, "findings", false)
	switch {
	case s.Findings == nil:
		e.b = append(e.b, "null"...)
	case len(s.Findings) == 0:
		e.b = append(e.b, "[]"...)
	default:
		e.b = append(e.b, '[')
		for i := range s.Findings {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline(2)
			if !e.finding(3, &s.Findings[i]) {
				return b, false
			}
		}
		e.close(1, ']')
	}
	e.key(1, "notes", false)
	switch {
	case s.Notes == nil:
		e.b = append(e.b, "null"...)
	case len(s.Notes) == 0:
		e.b = append(e.b, "[]"...)
	default:
		e.b = append(e.b, '[')
		for i, n := range s.Notes {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline(2)
			e.string(n)
		}
		e.close(1, ']')
	}
	e.close(0, '}')
	return e.b, true
}

// finding appends one finding, an object whose members are at depth.
func (e *jsonIndenter) finding(depth int, f *Finding) bool {
	e.b = append(e.b, '{')
	e.key(depth, "rule", true)
	e.string(f.Rule)
	e.key(depth, "name", false)
	e.string(f.Name)
	e.key(depth, "severity", false)
	e.string(f.Severity)
	e.key(depth, "message", false)
	e.string(f.Message)
	e.key(depth, "input", false)
	e.string(f.Input)
	e.key(depth, "line", false)
	e.int(f.Line)
	if f.Entry != 0 {
		e.key(depth, "entry", false)
		e.int(f.Entry)
	}
	for _, m := range []struct {
		name  string
		value *string
	}{{"time", f.Time}, {"direction", f.Direction}, {"method", f.Method}} {
		e.key(depth, m.name, false)
		if m.value == nil {
			e.b = append(e.b, "null"...)
		} else {
			e.string(*m.value)
		}
	}
	e.key(depth, "id", false)
	if !e.raw(depth, f.ID) {
		return false
	}
	if f.Party != "" {
		e.key(depth, "party", false)
		e.string(f.Party)
	}
	e.key(depth, "related", false)
	switch {
	case f.Related == nil:
		e.b = append(e.b, "null"...)
	case len(f.Related) == 0:
		e.b = append(e.b, "[]"...)
	default:
		e.b = append(e.b, '[')
		for i, r := range f.Related {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.newline(depth + 1)
			e.b = append(e.b, '{')
			e.key(depth+2, "line", true)
			e.int(r.Line)
			e.key(depth+2, "note", false)
			e.string(r.Note)
			e.close(depth+1, '}')
		}
		e.close(depth, ']')
	}
	e.key(depth, "fingerprint", false)
	e.string(f.Fingerprint)
	e.close(depth-1, '}')
	return true
}

// jsonIndenter appends indented JSON as encoding/json's MarshalIndent writes it,
// with the prefix before every line but the first and two spaces a level.
type jsonIndenter struct {
	b      []byte
	prefix string
	// escaped and indented hold a raw member while it is escaped and indented.
	escaped, indented bytes.Buffer
}

// newline starts a line at depth.
func (e *jsonIndenter) newline(depth int) {
	e.b = append(e.b, '\n')
	e.b = append(e.b, e.prefix...)
	for range depth {
		e.b = append(e.b, ' ', ' ')
	}
}

// key starts a member at depth: its line, name and colon.
func (e *jsonIndenter) key(depth int, name string, first bool) {
	if !first {
		e.b = append(e.b, ',')
	}
	e.newline(depth)
	e.b = append(e.b, '"')
	e.b = append(e.b, name...)
	e.b = append(e.b, '"', ':', ' ')
}

// close ends a non-empty object or array whose closing bracket is at depth.
func (e *jsonIndenter) close(depth int, c byte) {
	e.newline(depth)
	e.b = append(e.b, c)
}

func (e *jsonIndenter) int(n int) { e.b = strconv.AppendInt(e.b, int64(n), 10) }

func (e *jsonIndenter) string(s string) { e.b = appendJSONString(e.b, s) }

// raw appends a json.RawMessage member at depth as encoding/json does: null when
// nil, else compacted with <, >, & and U+2028/U+2029 escaped, then indented.
func (e *jsonIndenter) raw(depth int, m json.RawMessage) bool {
	if m == nil {
		e.b = append(e.b, "null"...)
		return true
	}
	if frame.Valid(m) {
		e.b = appendIndented(e.b, m, e.prefix, depth)
		return true
	}
	// What the scan refuses (nested deeper than it reads, or not JSON):
	// encoding/json judges it, and writes it when it can.
	e.indented.Reset()
	if err := json.Compact(&e.indented, m); err != nil {
		return false
	}
	e.escaped.Reset()
	json.HTMLEscape(&e.escaped, e.indented.Bytes())
	e.indented.Reset()
	if err := json.Indent(&e.indented, e.escaped.Bytes(), e.prefix+strings.Repeat("  ", depth), "  "); err != nil {
		return false
	}
	e.b = append(e.b, e.indented.Bytes()...)
	return true
}

// appendIndented appends src, a valid JSON text (frame.Valid), as json.Compact,
// json.HTMLEscape and json.Indent with the prefix, depth levels of two spaces and
// two spaces a level write it, in one pass: whitespace outside strings dropped,
// <, >, & and U+2028/U+2029 escaped, an empty object or array kept on its line,
// every member and element on a line of its own.
func appendIndented(b, src []byte, prefix string, depth int) []byte {
	newline := func(level int) {
		b = append(b, '\n')
		b = append(b, prefix...)
		for range depth + level {
			b = append(b, ' ', ' ')
		}
	}
	level := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r':
		case '"':
			start := i
			for i++; src[i] != '"'; i++ {
				switch src[i] {
				case '\\':
					i++ // the escaped byte: a quote there ends nothing
				case '<', '>', '&':
					b = append(b, src[start:i]...)
					b = append(b, '\\', 'u', '0', '0', jsonHex[src[i]>>4], jsonHex[src[i]&0xf])
					start = i + 1
				case 0xe2:
					if i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xa8 {
						b = append(b, src[start:i]...)
						b = append(b, '\\', 'u', '2', '0', '2', jsonHex[src[i+2]&0xf])
						i += 2
						start = i + 1
					}
				}
			}
			b = append(b, src[start:i+1]...)
		case '{', '[':
			j := i + 1
			for j < len(src) && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r') {
				j++
			}
			if src[j] == '}' || src[j] == ']' {
				b = append(b, c, src[j])
				i = j
				break
			}
			b = append(b, c)
			level++
			newline(level)
		case '}', ']':
			level--
			newline(level)
			b = append(b, c)
		case ',':
			b = append(b, ',')
			newline(level)
		case ':':
			b = append(b, ':', ' ')
		default:
			b = append(b, c)
		}
	}
	return b
}

const jsonHex = "0123456789abcdef"

// appendJSONString appends s as encoding/json encodes a string (HTML escaping
// on): quotes and backslashes escaped, control characters as \b \f \n \r \t or
// \u00XX, <, > and & as \u003c \u003e \u0026, invalid UTF-8 as \ufffd, U+2028
// and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
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
				b = append(b, '\\', 'u', '0', '0', jsonHex[c>>4], jsonHex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', jsonHex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
