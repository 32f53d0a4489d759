package frame

import (
	"bufio"
	"bytes"
)

const prettyName = "pretty-json"

// prettyDecoder reads pretty-printed JSON (DESIGN.md section 7 item 5): what `jq .`
// writes from a capture (concatenated documents, each spanning lines, separated by
// whitespace), what `jq .msg` writes (bare messages), and what `jq -s .` writes (one
// top-level array whose elements are the records). Each document (array element) is
// read as a line of the line formats is, by the same code (Reader.decodeLine): an
// envelope record, a bare JSON-RPC message, a recorder's header or a log record, with
// the format detected from the first one and every document tried in its own. A line
// between documents that does not start one (stderr, a banner) is such a line too.
//
// The input is read as a stream: one document is held at a time, bounded by MaxLine
// like a line; nesting is counted, not recursed into. A document that is not JSON
// (truncated, garbage in the middle) is one MCP0001 frame at the line it starts on,
// and reading resumes where the next document can be found: for indented output (the
// opener alone on its line, the members indented past it), a line that starts at the
// document's own column or left of it ends the document there; after a syntax error,
// the next such line does.
//
// The array form is the input's first document when it is an array whose opening
// bracket stands alone on its line (`jq -s .`): its elements are the records, an
// element that is an array a batch. Any other array document is a batch; so `jq .msg`
// of a capture whose first message is a batch reads that batch's messages as records
// (the two are written alike). Missing commas between elements are not reported.
//
// Locations: a frame's Line is the line of the file where its text starts (an
// envelope's message member, else the document's opener); in the array form, its
// Entry is the 1-based index of the element. Accounting (Stats): Lines counts the
// lines of the file, and one more for each document that starts on a line where
// another ended; a document's first line is its record's (a frame or context), its
// further lines are Folded into it, as are the lines holding only the array's
// brackets and commas; empty lines are Blank.
type prettyDecoder struct {
	line int // the line of the next byte (1-based)
	col  int // the column of the next byte (bytes since the line started)
	// lineUsed: a record started on the current line (it is accounted for);
	// lineSyntax: the line held the array's punctuation; lineClean: only whitespace
	// since the line started or since a document ended on it (a document may start).
	lineUsed, lineSyntax, lineClean bool
	blankRun, blankAt               int // consecutive empty lines not handed out yet, from line blankAt

	started bool // the first document (or line) has been seen
	array   bool // inside the top-level array of the `jq -s .` form
	entries int  // elements of the array read so far

	text        []byte // a line between documents being gathered
	inText      bool
	textAt      int
	textTooLong bool

	doc docScan // the document being read

	err error // the input ended (io.EOF) or broke off
}

// docScan is the state of one document: its bytes and a validating scan of them that
// only counts structure (strings, brackets, the grammar between tokens), so that the
// document's end is found, and a syntax error where the next document may start.
type docScan struct {
	active  bool
	buf     []byte
	tooLong bool
	start   int  // line of its first byte
	startAt int  // column of its first byte
	entry   int  // its index in the array form, else 0
	opened  bool // its first byte was read
	opener  byte // '{', '[', or 0 for a scalar element of the array
	// indented: the opener stood alone on its line and the next line is indented
	// past it (jq, JSON.stringify(v, null, 2), json.dumps(indent=2)); 0 undecided.
	indented   int8
	openerOnly bool // nothing but whitespace after the opener on its line so far
	newLine    bool // at the start of a line: the next non-space byte is its first
	broken     bool // a syntax error was found: skipping to where the next one starts

	stack    []byte // the open '{' and '[' (up to MaxNesting)
	overflow int    // opened beyond MaxNesting: counted only
	state    docState
	inString bool
	escaped  bool
	isKey    bool
	inScalar bool
}

type docState uint8

const (
	expectValue docState = iota
	expectValueOrClose
	expectKeyOrClose
	expectKey
	expectColon
	expectCommaOrClose
)

func (*prettyDecoder) name() string { return prettyName }

func (*prettyDecoder) describe() string {
	return "pretty-printed JSON (documents that span lines: jq . output, or an array of them: jq -s .)"
}

func (*prettyDecoder) noFrames() string {
	return "pretty-printed JSON in which no document is a frame"
}

// next reads on until one record is queued (the records of a document alias its
// buffer, so one document is handed out at a time), or the input ends.
func (d *prettyDecoder) next(r *Reader) error {
	if d.line == 0 {
		d.line, d.lineClean = 1, true
	}
	for {
		if d.err != nil {
			if d.flush(r) {
				return nil
			}
			if r.group != nil {
				r.flushGroup()
				return nil
			}
			return d.err
		}
		if r.br.Buffered() == 0 {
			if _, err := r.br.Peek(1); err != nil {
				d.err = err
				continue
			}
		}
		chunk, _ := r.br.Peek(r.br.Buffered())
		n, queued := d.feed(r, chunk)
		_, _ = r.br.Discard(n)
		r.stats.Bytes += int64(n)
		if queued {
			return nil
		}
	}
}

// flush hands out what is pending at the end of the input, one record a call.
func (d *prettyDecoder) flush(r *Reader) bool {
	switch {
	case d.blankRun > 0:
		d.emitBlank(r)
	case d.doc.active:
		d.doc.broken = true // truncated
		d.emitDoc(r)
	case d.inText:
		d.emitText(r)
	case d.lineSyntax && !d.lineUsed:
		d.lineSyntax = false
		r.stats.Lines++
		r.stats.Folded++
		return false
	default:
		return false
	}
	return true
}

// feed consumes bytes of chunk until a record is queued; n is how many it consumed.
func (d *prettyDecoder) feed(r *Reader, chunk []byte) (n int, queued bool) {
	for i := 0; i < len(chunk); {
		c := chunk[i]
		switch {
		case d.doc.active:
			consumed, done := d.scanDoc(r, chunk, i)
			i += consumed
			if done {
				d.emitDoc(r)
				return i, true
			}
		case d.inText:
			if c == '\n' {
				d.emitText(r)
				d.endLine()
				return i + 1, true
			}
			d.gather(r, c)
			i++
		default:
			if d.blankRun > 0 && c != '\n' && c != '\r' && c != ' ' && c != '\t' {
				d.emitBlank(r)
				return i, true
			}
			if d.outer(r, chunk, i) {
				i++
			}
		}
	}
	if d.blankRun > 0 {
		d.emitBlank(r) // do not wait for more input to count a run of empty lines
		return len(chunk), true
	}
	return len(chunk), false
}

// outer reads one byte between documents: consumed, or left to be read again as the
// first byte of a document or a line of text.
func (d *prettyDecoder) outer(r *Reader, chunk []byte, i int) (consumed bool) {
	c := chunk[i]
	switch c {
	case '\n':
		switch {
		case d.lineUsed:
		case d.lineSyntax:
			r.stats.Lines++
			r.stats.Folded++
		default:
			if d.blankRun == 0 {
				d.blankAt = d.line
			}
			d.blankRun++
		}
		d.endLine()
		return true
	case ' ', '\t', '\r':
		d.col++
		return true
	}
	if d.array {
		switch c {
		case ',':
			d.lineSyntax = true
			d.col++
			return true
		case ']':
			d.array, d.lineSyntax = false, true
			d.lineClean = true
			d.col++
			return true
		}
		d.entries++
		d.startDoc(c)
		return false
	}
	if d.lineClean && (c == '{' || (c == '[' && !isBracketTag(chunk[i:]))) {
		if !d.started && c == '[' && restOfLineBlank(chunk[i+1:]) {
			d.started, d.array = true, true
			d.lineSyntax = true
			d.col++
			return true
		}
		d.startDoc(c)
		return false
	}
	d.started = true
	d.inText, d.text, d.textAt, d.textTooLong = true, d.text[:0], d.line, false
	d.lineUsed = true
	return false
}

// restOfLineBlank reports whether b holds only whitespace up to its first line end
// (false when b ends first: the line is longer than what is buffered).
func restOfLineBlank(b []byte) bool {
	for _, c := range b {
		switch c {
		case '\n':
			return true
		case ' ', '\t', '\r':
		default:
			return false
		}
	}
	return false
}

func (d *prettyDecoder) endLine() {
	d.line++
	d.col = 0
	d.lineUsed, d.lineSyntax, d.lineClean = false, false, true
}

// gather adds a byte to the line being gathered, within MaxLine.
func (d *prettyDecoder) gather(r *Reader, c byte) {
	d.col++
	if d.textTooLong {
		return
	}
	if len(d.text) >= r.opt.MaxLine+1 { // room for a CR
		d.textTooLong, d.text = true, d.text[:0]
		return
	}
	d.text = append(d.text, c)
}

func (d *prettyDecoder) startDoc(c byte) {
	d.started = true
	s := &d.doc
	opener := c
	if c != '{' && c != '[' {
		opener = 0
	}
	buf := s.buf[:0]
	if cap(buf) > maxReusedBuffer {
		buf = nil // do not keep a huge buffer after a huge document
	}
	entry := 0
	if d.array {
		entry = d.entries
	}
	*s = docScan{active: true, buf: buf, start: d.line, startAt: d.col, entry: entry, opener: opener, stack: s.stack[:0], openerOnly: opener != 0}
	d.lineUsed, d.lineClean = true, false
}

// scanDoc reads bytes of the document from chunk[i:]; done is set when the document
// ended (complete, or broken where the next one starts), with consumed its bytes.
func (d *prettyDecoder) scanDoc(r *Reader, chunk []byte, i int) (consumed int, done bool) {
	n, done := d.scanDocBytes(chunk, i)
	d.keep(r, chunk[i:i+n])
	return n, done
}

// scanDocBytes is scanDoc without keeping the bytes.
func (d *prettyDecoder) scanDocBytes(chunk []byte, i int) (consumed int, done bool) {
	s := &d.doc
	j := i
	for ; j < len(chunk); j++ {
		if s.inString && !s.escaped {
			// The bulk of a document: the text of its strings.
			k := j
			for k < len(chunk) && strSafe[chunk[k]] {
				k++
			}
			d.col += k - j
			if j = k; j == len(chunk) {
				break
			}
		}
		c := chunk[j]
		if s.inScalar && !isScalarByte(c) {
			s.inScalar = false
			if s.afterValue() {
				return j - i, true // a scalar element ends before c
			}
		}
		if c == '\n' {
			if s.inString {
				s.syntaxError() // a string cannot span lines
			}
			d.line++
			d.col = 0
			s.newLine = true
			// The indentation of the next line.
			k := j + 1
			for k < len(chunk) && (chunk[k] == ' ' || chunk[k] == '\t') {
				k++
			}
			d.col += k - j - 1
			j = k - 1
			continue
		}
		space := c == ' ' || c == '\t' || c == '\r'
		first := false // the first byte of a line, at the opener's column
		if s.newLine && !space {
			if s.indented == 0 {
				s.indented = -1
				if s.openerOnly && d.col > s.startAt {
					s.indented = 1
				}
			}
			if d.col <= s.startAt && (s.indented > 0 || s.broken) && !(d.col == s.startAt && s.closes(c)) {
				// The document ends before this line: a line that starts at or
				// left of its opener's column starts what follows it.
				s.broken = true
				d.lineClean, d.lineUsed = true, false
				return j - i, true
			}
			s.newLine, first = false, d.col == s.startAt
			if d.col <= s.startAt && (c == '{' || c == '[') && !s.expectsValue() {
				// A document that cannot go on with this opener ends before it:
				// it was cut short, and this line starts the next one.
				s.broken = true
				d.lineClean, d.lineUsed = true, false
				s.newLine = true
				return j - i, true
			}
		}
		if !space && s.opened && s.openerOnly && s.indented == 0 {
			s.openerOnly = false // something follows the opener on its line
		}
		s.opened = true
		d.col++
		switch {
		case s.broken:
			if first && s.closes(c) {
				return j + 1 - i, true
			}
			// Skipping: only the start of the next line matters.
			k := bytes.IndexByte(chunk[j+1:], '\n')
			if k < 0 {
				k = len(chunk) - j - 1
			}
			d.col += k
			j += k
		case s.inScalar:
		case s.step(c):
			return j + 1 - i, true
		}
	}
	return j - i, false
}

// keep appends bytes of the document, within MaxLine.
func (d *prettyDecoder) keep(r *Reader, b []byte) {
	s := &d.doc
	if s.tooLong {
		return
	}
	if len(s.buf)+len(b) > r.opt.MaxLine {
		s.tooLong, s.buf = true, s.buf[:0]
		return
	}
	s.buf = append(s.buf, b...)
}

// expectsValue reports whether the grammar lets a value start here.
func (s *docScan) expectsValue() bool {
	return !s.broken && !s.inString && (s.overflow > 0 || s.state == expectValue || s.state == expectValueOrClose)
}

// closes reports whether c closes the document itself.
func (s *docScan) closes(c byte) bool {
	return (s.opener == '{' && c == '}') || (s.opener == '[' && c == ']')
}

func isScalarByte(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '{', '}', '[', ']', ',', ':', '"':
		return false
	}
	return true
}

func (s *docScan) syntaxError() {
	s.broken = true
	s.inString, s.inScalar = false, false
}

// step reads one byte of the document outside a scalar; it reports whether the
// document is complete.
func (s *docScan) step(c byte) bool {
	if s.inString {
		switch {
		case s.escaped:
			s.escaped = false
		case c == '\\':
			s.escaped = true
		case c == '"':
			s.inString = false
			return s.afterValue()
		}
		return false
	}
	if s.overflow > 0 {
		return s.stepDeep(c)
	}
	switch c {
	case ' ', '\t', '\r':
		return false
	case '{', '[':
		if s.state != expectValue && s.state != expectValueOrClose {
			s.syntaxError()
			return false
		}
		if len(s.stack) >= MaxNesting {
			s.overflow = 1
			return false
		}
		s.stack = append(s.stack, c)
		s.state = expectKeyOrClose
		if c == '[' {
			s.state = expectValueOrClose
		}
		return false
	case '}', ']':
		open := byte('{')
		ok := s.state == expectKeyOrClose || s.state == expectCommaOrClose
		if c == ']' {
			open = '['
			ok = s.state == expectValueOrClose || s.state == expectCommaOrClose
		}
		if !ok || len(s.stack) == 0 || s.stack[len(s.stack)-1] != open {
			s.syntaxError()
			return false
		}
		s.stack = s.stack[:len(s.stack)-1]
		return s.afterValue()
	case ',':
		if s.state != expectCommaOrClose || len(s.stack) == 0 {
			s.syntaxError()
			return false
		}
		s.state = expectValue
		if s.stack[len(s.stack)-1] == '{' {
			s.state = expectKey
		}
		return false
	case ':':
		if s.state != expectColon {
			s.syntaxError()
			return false
		}
		s.state = expectValue
		return false
	case '"':
		switch s.state {
		case expectValue, expectValueOrClose:
			s.inString, s.isKey = true, false
		case expectKey, expectKeyOrClose:
			s.inString, s.isKey = true, true
		default:
			s.syntaxError()
		}
		return false
	}
	if s.state != expectValue && s.state != expectValueOrClose {
		s.syntaxError()
		return false
	}
	s.inScalar = true
	return false
}

// stepDeep reads a byte nested deeper than MaxNesting: only brackets and strings are
// followed, to find where the document ends (it is refused as too deep).
func (s *docScan) stepDeep(c byte) bool {
	switch c {
	case '"':
		s.inString, s.isKey = true, true // no value is completed by it
	case '{', '[':
		s.overflow++
	case '}', ']':
		s.overflow--
		if s.overflow == 0 {
			s.state = expectCommaOrClose
		}
	}
	return false
}

// afterValue moves on after a complete value (or key); it reports whether the
// document is complete.
func (s *docScan) afterValue() bool {
	switch {
	case s.isKey:
		s.isKey = false
		s.state = expectColon
	case len(s.stack) == 0:
		return true
	default:
		s.state = expectCommaOrClose
	}
	return false
}

// emitDoc hands the document to the line machinery and queues its record.
func (d *prettyDecoder) emitDoc(r *Reader) {
	s := &d.doc
	s.active = false
	end := d.line
	if s.newLine {
		end-- // the document ended before the line the reading stopped at
	}
	text := bytes.TrimRight(s.buf, " \t\r\n")
	r.line = s.start
	// A buffer too large to keep for the next document is handed to the frames.
	r.handoff = cap(s.buf) > maxReusedBuffer
	defer func() { r.handoff = false }()
	var rec *Record
	var rel relative
	switch {
	case s.tooLong:
		r.stats.Lines++
		r.rec = Record{Line: r.line}
		r.resetFrame()
		r.fr.invalid(ProblemNotJSON, "JSON document longer than the --max-line limit of "+Size(int64(r.opt.MaxLine))+": skipped, not judged")
		rec = r.frameRecord()
	case s.opener == 0:
		// A scalar or garbage among the elements of the array: a message that is
		// not JSON-RPC (MCP0002) or not JSON (MCP0001), not a line of a log.
		r.stats.Lines++
		r.rec = Record{Line: r.line}
		r.resetFrame()
		decodeJSON(&r.fr, text, "array element")
		rec = r.frameRecord()
	default:
		rec, rel = r.decodeLine(text)
	}
	d.place(r, rec, text, s.entry)
	if end > s.start {
		r.stats.Lines += end - s.start
		r.stats.Folded += end - s.start
	}
	if !s.newLine {
		d.lineUsed, d.lineClean = true, true
	}
	d.queue(r, rec, rel)
}

// place sets the lines and entry of a document's frames: where each message's text
// starts in the file (for an envelope, its message member), the element's index.
func (d *prettyDecoder) place(r *Reader, rec *Record, text []byte, entry int) {
	start := d.doc.start
	rec.Entry = entry
	if rec.Kind != RecordFrame {
		return
	}
	locate := func(f *Frame) {
		f.Line = start + linesBefore(text, f.Raw)
		f.Entry = entry
		for i := range f.Members {
			f.Members[i].Line, f.Members[i].Entry = f.Line, entry
		}
	}
	locate(rec.Frame)
	rec.Line = rec.Frame.Line
	for i := range r.x.more {
		locate(&r.x.more[i])
	}
}

// linesBefore counts the line ends in text before part, when part is a slice of it;
// 0 when it is not (a message carried as a JSON string is unescaped into a copy).
func linesBefore(text, part []byte) int {
	if len(part) == 0 || len(text) == 0 {
		return 0
	}
	off := cap(text) - cap(part)
	if off < 0 || off+len(part) > len(text) || &text[off] != &part[0] {
		return 0
	}
	return bytes.Count(text[:off], newline)
}

// queue queues a record read from the line machinery, as Reader.nextRecord does
// for a line (a recorder-split batch is put back together).
func (d *prettyDecoder) queue(r *Reader, rec *Record, rel relative) {
	if r.group == nil && r.x.batchKey == "" && len(r.x.more) == 0 {
		r.queue(rec, rel)
		return
	}
	if r.regroup(rec, rel) {
		r.queue(rec, rel)
	}
}

// emitText hands a line between documents to the line machinery.
func (d *prettyDecoder) emitText(r *Reader) {
	d.inText = false
	r.line = d.textAt
	r.tooLong = d.textTooLong
	rec, rel := r.decodeLine(trimEOL(d.text))
	r.tooLong = false
	d.queue(r, rec, rel)
}

func (d *prettyDecoder) emitBlank(r *Reader) {
	r.stats.Lines += d.blankRun
	r.stats.Blank += d.blankRun
	r.ready = append(r.ready, pendingRecord{rec: Record{Kind: RecordBlank, Line: d.blankAt, Run: d.blankRun}})
	d.blankRun = 0
}

// sniffPretty reports whether an input that is no JSON document format is
// pretty-printed JSON: its first line opens a JSON object or array that it does not
// close, and either holds nothing else (jq's `{` or `[` alone) or the value it opens
// is valid JSON that ends on a later line. A first line that is a whole JSON value
// (JSONL) or not JSON at all is a line format's.
func sniffPretty(br *bufio.Reader) bool {
	pretty := false
	peekDecide(br, func(b []byte, complete, full bool) bool {
		p, decided := classifyPretty(b, complete || full)
		if decided {
			pretty = p
		}
		return decided
	})
	return pretty
}

// classifyPretty decides from the start of an input; decided is false when more
// bytes are needed (and complete is false).
func classifyPretty(b []byte, complete bool) (pretty, decided bool) {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) == 0 {
		return false, complete
	}
	if t[0] != '{' && t[0] != '[' {
		return false, true
	}
	eol := bytes.IndexByte(t, '\n')
	if eol < 0 {
		return false, complete
	}
	first := bytes.TrimSpace(t[:eol])
	if len(first) == 1 {
		return true, true
	}
	if !looksLikeJSON(first) || validJSON(first) {
		return false, true
	}
	end, ok := valueEnd(t)
	if !ok {
		return false, complete
	}
	return end > eol && validJSON(t[:end]), true
}

// valueEnd finds where the JSON value that b starts with ends (by its brackets and
// strings); false when b ends first or a bracket does not match.
func valueEnd(b []byte) (int, bool) {
	var s docScan
	for i, c := range b {
		if s.inScalar {
			if isScalarByte(c) {
				continue
			}
			s.inScalar = false
			s.afterValue()
		}
		if c == '\n' {
			if s.inString {
				return 0, false
			}
			continue
		}
		if s.step(c) {
			return i + 1, true
		}
		if s.broken {
			return 0, false
		}
	}
	return 0, false
}

// prettyFormat is the pretty-printed format's entry in the table of input formats: a
// document decoder read as lines that may span lines (not a Document format).
var prettyFormat = format{
	name: prettyName,
	what: "pretty-printed JSON: concatenated documents that span lines (jq . of a capture, jq .msg), or one array of them (jq -s .); " +
		"each an envelope record or a bare JSON-RPC message, read as envelope-jsonl and jsonrpc-jsonl read a line",
	newDoc: func() docDecoder { return &prettyDecoder{} },
}
