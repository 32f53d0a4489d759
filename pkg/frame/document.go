package frame

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
)

// docDecoder reads a format that is one JSON document (a HAR file, an Inspector
// export) rather than lines: entry by entry, never the whole document at once.
type docDecoder interface {
	name() string
	// describe names the format in messages, with its article: "a HAR 1.2 capture".
	describe() string
	// next reads one entry (or the document's end, io.EOF) and queues its records
	// with Reader.queueFrame and Reader.queueContext: Entry is the entry's 1-based
	// index, Line the 1-based line of the document where the frame's text starts
	// (for a context record, where the entry starts).
	next(r *Reader) error
}

// sniffDocument looks at the start of the input (without consuming it) and names the
// document format it is, or "" for a line format, with why when it is neither.
func sniffDocument(br *bufio.Reader) (format, why string) {
	peekDecide(br, func(b []byte, complete, full bool) bool {
		var decided bool
		format, why, decided = classifyDocument(b, complete)
		return decided
	})
	return format, why
}

// peekDecide looks at the start of br (without consuming it) until decide has
// decided: it peeks only at what has arrived, and waits for more only while
// undecided, so a live pipe never blocks the first line behind a fixed-size peek.
// complete says the input ended; full that br's buffer holds no more. It stops
// there, decided or not.
func peekDecide(br *bufio.Reader, decide func(b []byte, complete, full bool) bool) {
	want := 1
	for {
		b, err := br.Peek(want)
		if err == nil || errors.Is(err, bufio.ErrBufferFull) {
			b, _ = br.Peek(br.Buffered())
		}
		complete := err != nil && !errors.Is(err, bufio.ErrBufferFull)
		full := len(b) >= br.Size()
		if decide(b, complete, full) || complete || full {
			return
		}
		want = len(b) + 1
	}
}

// classifyDocument decides from the first bytes of an input. decided is false when
// more bytes are needed.
func classifyDocument(b []byte, complete bool) (format, why string, decided bool) {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 {
		return "", "the input is empty", complete
	}
	dec := json.NewDecoder(bytes.NewReader(t))
	undecided := func(err error) (string, string, bool) {
		if complete || !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return "", "it is not one JSON document", true
		}
		return "", "", false
	}
	switch t[0] {
	case '{':
		if _, err := dec.Token(); err != nil {
			return undecided(err)
		}
		key, err := dec.Token()
		if err != nil {
			return undecided(err)
		}
		if key != "log" {
			return "", fmt.Sprintf("it starts with a JSON object whose first member is %s (a HAR document starts with \"log\", an Inspector export is an array)", quoteToken(key)), true
		}
		open, err := dec.Token()
		if err != nil {
			return undecided(err)
		}
		if open != json.Delim('{') {
			return "", "its \"log\" member is not an object", true
		}
		return harName, "", true
	case '[':
		if _, err := dec.Token(); err != nil {
			return undecided(err)
		}
		open, err := dec.Token()
		if err != nil {
			return undecided(err)
		}
		if open != json.Delim('{') {
			return "", "it is a JSON array whose first element is not an object", true
		}
		seen := map[string]bool{}
		for {
			tok, err := dec.Token()
			if err != nil {
				return undecided(err)
			}
			if tok == json.Delim('}') {
				break
			}
			key, _ := tok.(string)
			seen[key] = true
			if key == "jsonrpc" {
				return "", "it is a JSON-RPC batch, not an array of log entries", true
			}
			if err := skipValue(dec); err != nil {
				return undecided(err)
			}
		}
		if seen["message"] && (seen["direction"] || seen["origin"]) {
			return inspectorName, "", true
		}
		return "", "its first element has no \"message\" with a \"direction\" or \"origin\"", true
	}
	return "", "it does not start with a JSON object or array", true
}

func quoteToken(t json.Token) string {
	b, err := json.Marshal(t)
	if err != nil {
		return fmt.Sprint(t)
	}
	return quoteShort(string(b))
}

// skipValue consumes the next JSON value from dec, token by token (no value is held
// whole in memory).
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

var newline = []byte{'\n'}

// errEntryTooLong stops a document decoder inside an entry longer than MaxLine.
var errEntryTooLong = errors.New("entry too long")

// docChunk is what one read of a document asks for; the buffer grows past it only
// for an entry longer than what it holds.
const docChunk = 256 << 10

// jsonDoc walks a JSON document to its array of entries, then hands out one entry's
// bytes at a time. It finds where a value ends by its brackets and string quotes
// alone, never decoding it: the entry's one validating scan is Parse's (see
// entryNode), the same scan every frame has. An entry is held whole in memory (up
// to MaxLine); the document never is.
type jsonDoc struct {
	name  string
	r     io.Reader
	buf   []byte // buf[pos:] is read and not consumed
	pos   int
	err   error        // the read error that ended the input (io.EOF at its end)
	read  atomic.Int64 // bytes read from r (read by Reader.Stats while entries are read ahead)
	line  int          // the 1-based line of the document buf[pos] is on
	limit int64

	toks    []Token // the tokens of the last entry, reused by the next
	entries int     // entries handed out so far
	inArray bool    // positioned inside the entries array
	done    bool
}

func newJSONDoc(name string, r io.Reader, limit int64) *jsonDoc {
	return &jsonDoc{name: name, r: r, line: 1, limit: limit}
}

func (d *jsonDoc) bytesRead() int64 { return d.read.Load() }

// fill reads more of the document into the buffer, keeping buf[pos:]; false when
// nothing more can be read.
func (d *jsonDoc) fill() bool {
	if d.err != nil {
		return false
	}
	if d.pos > 0 && (d.pos >= len(d.buf)/2 || len(d.buf) == cap(d.buf)) {
		n := copy(d.buf, d.buf[d.pos:])
		d.buf, d.pos = d.buf[:n], 0
	}
	if cap(d.buf)-len(d.buf) < docChunk/4 {
		grown := make([]byte, len(d.buf), max(2*cap(d.buf), len(d.buf)+docChunk))
		copy(grown, d.buf)
		d.buf = grown
	}
	n, err := d.r.Read(d.buf[len(d.buf):cap(d.buf)])
	d.buf = d.buf[:len(d.buf)+n]
	d.read.Add(int64(n))
	if err != nil {
		d.err = err
	}
	return n > 0 || err == nil
}

// consume moves past n bytes, counting the lines they end.
func (d *jsonDoc) consume(n int) {
	d.line += bytes.Count(d.buf[d.pos:d.pos+n], newline)
	d.pos += n
}

// peek skips whitespace and returns the next byte without consuming it; false at
// the end of the input.
func (d *jsonDoc) peek() (byte, bool) {
	for {
		for d.pos < len(d.buf) {
			switch c := d.buf[d.pos]; c {
			case '\n':
				d.line++
				d.pos++
			case ' ', '\t', '\r':
				d.pos++
			default:
				return c, true
			}
		}
		if !d.fill() {
			return 0, false
		}
	}
}

// ended is the error for input that ended (or broke off) where more was expected.
func (d *jsonDoc) ended() error {
	if d.err != nil && !errors.Is(d.err, io.EOF) {
		return d.errorf(d.err)
	}
	return d.errorf(io.ErrUnexpectedEOF)
}

// expect consumes one delimiter.
func (d *jsonDoc) expect(delim byte, what string) error {
	c, ok := d.peek()
	if !ok {
		return d.ended()
	}
	if c != delim {
		found := string(c)
		if c != '{' && c != '[' && c != '}' && c != ']' {
			// A scalar: shown whole, as it is written (cut short).
			if raw, _, err := d.value(); err == nil {
				found = string(raw)
			}
		}
		return fmt.Errorf("mcpsleuth: %s: %s: found %s", d.name, what, quoteShort(found))
	}
	d.consume(1)
	return nil
}

// value reads the next value's bytes, up to MaxLine of them: they alias the
// buffer until the next read. line is the line it starts on. The value is found
// by its brackets and quotes; it is not validated (Parse does that).
func (d *jsonDoc) value() (raw []byte, line int, err error) {
	if _, ok := d.peek(); !ok {
		return nil, 0, d.ended()
	}
	line = d.line
	off, depth, inString := 0, 0, false
	for {
		b := d.buf[d.pos:]
		complete := false
	scan:
		for off < len(b) {
			if inString {
				j := bytes.IndexByte(b[off:], '"')
				if j < 0 {
					off = len(b)
					break
				}
				off += j + 1
				if escapedQuote(b[:off-1]) {
					continue
				}
				inString = false
				if complete = depth == 0; complete {
					break scan
				}
				continue
			}
			if depth > 0 {
				// Inside a container only quotes and brackets matter: skip to
				// the next (whitespace and punctuation end a value at depth 0
				// alone).
				for off < len(b) && !quoteOrBracket[b[off]] {
					off++
				}
				if off == len(b) {
					break
				}
			}
			switch b[off] {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth == 0 { // the end of a scalar before a closing bracket
					complete = true
					break scan
				}
				depth--
				if depth == 0 {
					off++
					complete = true
					break scan
				}
			case ',', ':', ' ', '\t', '\r', '\n':
				if depth == 0 {
					complete = true
					break scan
				}
			}
			off++
		}
		if d.limit > 0 && int64(off) > d.limit {
			return nil, 0, d.broken(b[:off], line, errEntryTooLong)
		}
		if !complete && !d.fill() {
			// A scalar may end with the input; nothing else may.
			complete = off > 0 && !inString && depth == 0
			if !complete {
				return nil, 0, d.broken(d.buf[d.pos:d.pos+off], line, nil)
			}
			b = d.buf[d.pos:]
		}
		if complete {
			if off == 0 {
				return nil, 0, d.errorf(fmt.Errorf("unexpected %s", quoteShort(string(b[0]))))
			}
			raw = b[:off:off]
			d.consume(off)
			return raw, line, nil
		}
	}
}

// broken is the error for a value that never ended (the input ended, or it grew
// past MaxLine: err): a stray quote or bracket earlier in it is named where it is,
// as a decoder that validates while it reads would name it, rather than the end.
func (d *jsonDoc) broken(partial []byte, line int, err error) error {
	if _, perr := Parse(partial); perr != nil {
		var pe *ParseError
		if errors.As(perr, &pe) && pe.Offset < len(partial) && pe.Problem == "not valid JSON" {
			return d.errorf(invalidAt(partial, line, perr))
		}
	}
	if err != nil {
		return d.errorf(err)
	}
	return d.ended()
}

// quoteOrBracket marks the bytes jsonDoc.value looks for inside a container.
var quoteOrBracket = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// escapedQuote reports whether the quote after b is escaped: preceded by an odd
// number of backslashes.
func escapedQuote(b []byte) bool {
	n := 0
	for i := len(b) - 1; i >= 0 && b[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// errorf wraps a problem of the document with its name and the entry it is in.
func (d *jsonDoc) errorf(err error) error {
	if errors.Is(err, errEntryTooLong) {
		return fmt.Errorf("mcpsleuth: %s: entry %d: longer than the %s limit (--max-line)", d.name, d.entries+1, Size(d.limit))
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("mcpsleuth: %s: entry %d: %w", d.name, d.entries+1, err)
}

// key reads an object member's name and its colon.
func (d *jsonDoc) key() (string, error) {
	raw, _, err := d.value()
	if err != nil {
		return "", err
	}
	n, perr := Parse(raw)
	name, ok := n.Str()
	if perr != nil || !ok {
		return "", fmt.Errorf("mcpsleuth: %s: expected a member name: found %s", d.name, quoteShort(string(raw)))
	}
	name = strings.Clone(name)
	return name, d.expect(':', "expected a colon after the member name \""+name+"\"")
}

// separator consumes the comma after an array element or object member and
// reports whether another follows (false: the closing bracket, consumed).
func (d *jsonDoc) separator(closing byte) (bool, error) {
	c, ok := d.peek()
	if !ok {
		return false, d.ended()
	}
	switch c {
	case ',':
		d.consume(1)
		return true, nil
	case closing:
		d.consume(1)
		return false, nil
	}
	return false, d.errorf(fmt.Errorf("expected a comma or %q, found %q", closing, c))
}

// enter positions the reader inside the entries array: the top-level array, or the
// array at path (object keys) for a document such as {"log":{"entries":[...]}}.
// visit sees every other member on the way, by key, with its value's bytes (which
// alias the buffer).
func (d *jsonDoc) enter(path []string, visit func(depth int, key string, raw []byte)) error {
	if len(path) == 0 {
		if err := d.expect('[', "expected a JSON array of entries"); err != nil {
			return err
		}
		d.inArray = true
		return d.firstEntry()
	}
	if err := d.expect('{', "expected a JSON object"); err != nil {
		return err
	}
	for depth, want := range path {
		for {
			if c, ok := d.peek(); ok && c == '}' {
				d.done = true // no entries
				return nil
			}
			key, err := d.key()
			if err != nil {
				return err
			}
			if key == want {
				break
			}
			raw, _, err := d.value()
			if err != nil {
				return err
			}
			if visit != nil {
				visit(depth, key, raw)
			}
			more, err := d.separator('}')
			if err != nil {
				return err
			}
			if !more {
				d.done = true
				return nil
			}
		}
		open, what := byte('{'), "expected an object under \""+want+"\""
		if depth == len(path)-1 {
			open, what = '[', "expected an array under \""+want+"\""
		}
		if err := d.expect(open, what); err != nil {
			return err
		}
	}
	d.inArray = true
	return d.firstEntry()
}

// firstEntry handles an empty entries array.
func (d *jsonDoc) firstEntry() error {
	c, ok := d.peek()
	if !ok {
		return d.ended()
	}
	if c == ']' {
		d.consume(1)
		d.done = true
	}
	return nil
}

// entry reads the next entry and validates it: its Node, and the 1-based line of
// the document it starts on; io.EOF at the end of the array. The Node aliases the
// reader's buffer and tokens: it is valid until the next call, and what is kept of
// it must be copied.
func (d *jsonDoc) entry() (n Node, line int, err error) {
	if d.done || !d.inArray {
		return Node{}, 0, io.EOF
	}
	if d.entries > 0 {
		more, err := d.separator(']')
		if err != nil {
			return Node{}, 0, err
		}
		if !more {
			d.done = true
			return Node{}, 0, io.EOF
		}
	}
	raw, line, err := d.value() // no longer than MaxLine: value refuses it
	if err != nil {
		return Node{}, 0, err
	}
	n, perr := parseInto(raw, d.toks)
	d.toks = n.toks
	if perr != nil {
		return Node{}, 0, d.errorf(invalidAt(raw, line, perr))
	}
	d.entries++
	if !n.IsObject() {
		return Node{}, 0, fmt.Errorf("mcpsleuth: %s: entry %d: not a JSON object", d.name, d.entries)
	}
	return n, line, nil
}

// lineIn is the line of the document that a value inside an entry (read by entry,
// which starts on line start) starts on; start when v does not exist.
func lineIn(entry Node, start int, v Node) int {
	if !v.Exists() {
		return start
	}
	return start + bytes.Count(entry.text[:v.toks[v.at].Start], newline)
}

// invalidAt says where an entry that is not JSON goes wrong: the byte Parse stopped
// at and the line of the document it is on.
func invalidAt(raw []byte, start int, err error) error {
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Offset < 0 || pe.Offset > len(raw) {
		return err
	}
	line := start + bytes.Count(raw[:pe.Offset], newline)
	if pe.Problem != "not valid JSON" {
		return fmt.Errorf("%s (line %d)", pe.Problem, line)
	}
	if pe.Offset == len(raw) {
		return fmt.Errorf("not valid JSON: it ends early (line %d)", line)
	}
	return fmt.Errorf("not valid JSON: unexpected %q on line %d", raw[pe.Offset:pe.Offset+1], line)
}
