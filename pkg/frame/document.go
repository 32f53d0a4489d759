package frame

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// errEntryTooLong stops a document decoder inside an entry longer than MaxLine.
var errEntryTooLong = errors.New("entry too long")

// countingReader counts the bytes a json.Decoder reads and refuses to read on once the
// current entry has taken more than limit bytes. It also counts the line ends it
// passes, so that the line an entry starts on is known (lineAt).
type countingReader struct {
	r     io.Reader
	n     int64
	mark  int64
	limit int64
	// newlines counts the '\n' bytes among the n read.
	newlines int64
}

// maxDocRead caps one read: what the decoder holds beyond the value it is at (its
// Buffered data, which lineAt scans) stays small.
const maxDocRead = 64 << 10

func (c *countingReader) Read(p []byte) (int, error) {
	if c.limit > 0 && c.n-c.mark > c.limit {
		return 0, errEntryTooLong
	}
	if len(p) > maxDocRead {
		p = p[:maxDocRead]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	c.newlines += int64(bytes.Count(p[:n], newline))
	return n, err
}

var newline = []byte{'\n'}

// jsonDoc walks a JSON document with encoding/json's streaming Decoder: to the array
// of entries, then one entry at a time.
type jsonDoc struct {
	name    string
	src     *countingReader
	dec     *json.Decoder
	entries int  // entries decoded so far
	inArray bool // positioned inside the entries array
	done    bool
}

func newJSONDoc(name string, r io.Reader, limit int64) *jsonDoc {
	src := &countingReader{r: r, limit: limit}
	return &jsonDoc{name: name, src: src, dec: json.NewDecoder(src)}
}

func (d *jsonDoc) bytesRead() int64 { return d.src.n }

// line is the 1-based line of the document the decoder is at (InputOffset): the
// line ends read, less those in what the decoder holds and has not consumed yet.
func (d *jsonDoc) line() int {
	ahead := int64(0)
	if b, ok := d.dec.Buffered().(*bytes.Reader); ok {
		ahead = countNewlines(b)
	}
	return int(d.src.newlines-ahead) + 1
}

// countNewlines counts the line ends left in b without consuming them.
func countNewlines(b *bytes.Reader) int64 {
	n := int64(0)
	var buf [4096]byte
	for off := int64(0); ; {
		k, err := b.ReadAt(buf[:], off)
		n += int64(bytes.Count(buf[:k], newline))
		off += int64(k)
		if err != nil {
			return n
		}
	}
}

// errorf wraps a problem of the document with its name and the entry it is in.
func (d *jsonDoc) errorf(err error) error {
	if errors.Is(err, errEntryTooLong) {
		return fmt.Errorf("mcpsleuth: %s: entry %d: longer than the %s limit (--max-line)", d.name, d.entries+1, Size(d.src.limit))
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("mcpsleuth: %s: entry %d: %w", d.name, d.entries+1, err)
}

// expect reads one delimiter.
func (d *jsonDoc) expect(delim json.Delim, what string) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.errorf(err)
	}
	if tok != delim {
		return fmt.Errorf("mcpsleuth: %s: %s: found %s", d.name, what, quoteToken(tok))
	}
	return nil
}

// enter positions the decoder inside the entries array: the top-level array, or the
// array at path (object keys) for a document such as {"log":{"entries":[...]}}.
// visit sees every other member on the way, by key, and must consume its value.
func (d *jsonDoc) enter(path []string, visit func(depth int, key string, dec *json.Decoder) error) error {
	if len(path) == 0 {
		if err := d.expect('[', "expected a JSON array of entries"); err != nil {
			return err
		}
		d.inArray = true
		return nil
	}
	if err := d.expect('{', "expected a JSON object"); err != nil {
		return err
	}
	for depth, want := range path {
		for {
			if !d.dec.More() {
				d.done = true // no entries
				return nil
			}
			tok, err := d.dec.Token()
			if err != nil {
				return d.errorf(err)
			}
			key, _ := tok.(string)
			if key == want {
				break
			}
			if visit != nil {
				err = visit(depth, key, d.dec)
			} else {
				err = skipValue(d.dec)
			}
			if err != nil {
				return d.errorf(err)
			}
		}
		open, what := json.Delim('{'), "expected an object under \""+want+"\""
		if depth == len(path)-1 {
			open, what = '[', "expected an array under \""+want+"\""
		}
		if err := d.expect(open, what); err != nil {
			return err
		}
	}
	d.inArray = true
	return nil
}

// entry reads the next entry: its bytes as written, and the 1-based line of the
// document it starts on; io.EOF at the end of the array.
func (d *jsonDoc) entry() (raw json.RawMessage, line int, err error) {
	if d.done || !d.inArray {
		return nil, 0, io.EOF
	}
	if !d.dec.More() {
		d.done = true
		if _, err := d.dec.Token(); err != nil { // the closing ']'
			return nil, 0, d.errorf(err)
		}
		return nil, 0, io.EOF
	}
	d.src.mark = d.dec.InputOffset()
	if err := d.dec.Decode(&raw); err != nil {
		return nil, 0, d.errorf(err)
	}
	d.entries++
	return raw, d.line() - bytes.Count(raw, newline), nil
}

// lineIn is the line of the document that byte at of an entry read by entry (which
// starts on line start) is on.
func lineIn(raw []byte, start, at int) int {
	if at <= 0 || at > len(raw) {
		return start
	}
	return start + bytes.Count(raw[:at], newline)
}

// decodeEntry decodes an entry's bytes into v, with the entry's index in errors.
func (d *jsonDoc) decodeEntry(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("mcpsleuth: %s: entry %d: %w", d.name, d.entries, err)
	}
	return nil
}
