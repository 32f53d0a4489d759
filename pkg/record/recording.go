// Package record captures live MCP sessions: a transparent stdio proxy between a
// client and the server process it starts, and a reverse proxy for Streamable
// HTTP. Both forward the bytes unchanged and write what crossed as envelope JSONL
// (the format check reads first, DESIGN.md section 7), one record a line, each
// written whole as soon as its frame is complete:
//
//	{"ts":"2026-12-02T08:00:00.123456789Z","dir":"c2s","msg":{"jsonrpc":"2.0","id":1,"method":"initialize",...}}
//	{"ts":"...","dir":"s2c","seq":7,"text":"a line on stdout that was not JSON"}
//	{"ts":"...","dir":"stderr","text":"server log line"}
//	{"ts":"...","event":"exit","code":3,"text":"the server exited with status 3"}
//
// A frame's msg is the line exactly as it crossed (never re-encoded), unless
// --redact masked a secret in it. A line that is not a JSON value is kept as
// text with a sequence number (the shape mcpsnoop writes), which check reads as
// a frame that is not JSON (MCP0001). Everything else (stderr, the start and exit
// of the server, HTTP exchanges without a message) is a context record: check
// counts it and shows it, and never judges it.
package record

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// Recording is the envelope JSONL being written. Its methods are safe for
// concurrent use (the pumps of both directions and stderr write to it); records
// are written in the order they complete, with timestamps in that order.
//
// Taking a record is quick: its time and place in the order are fixed, and its
// bytes are queued. One writer goroutine then classifies, redacts, encodes and
// writes the records in that order, so that a slow record (a message of 60 MB
// under --redact) never holds the pump that took it, nor the wire it forwards.
// The queue is bounded by bytes (maxQueued): a pump waits only when the writer
// is that far behind.
type Recording struct {
	mu     sync.Mutex
	w      io.Writer
	redact bool
	now    func() time.Time
	seq    int
	err    error // the first write error: later records are dropped
	closed bool
	// queue holds the records taken and not yet written, queued the bytes of
	// their lines; more wakes the writer and the pumps waiting for room.
	queue  []pending
	queued int
	more   *sync.Cond
	// written is closed when the writer has written everything and stopped.
	written chan struct{}
	// changed is signalled after each record, done closed by Close: a Follow
	// reader waits on them at the end of what is written.
	changed chan struct{}
	done    chan struct{}
	// sessions maps HTTP session ids to the names --redact records instead.
	sessions map[string]string
}

// pending is a record taken and not yet written: a line that crossed (frame,
// owned by the queue), or a record whose text is set.
type pending struct {
	rec   record
	line  []byte
	frame bool
	// parts, when set, are the line's bytes in parts (line is nil), size their
	// length.
	parts [][]byte
	size  int
}

// bytes is how much of the queue the record holds.
func (p pending) bytes() int { return len(p.line) + p.size }

// maxQueued bounds the bytes of the records waiting for the writer.
const maxQueued = 2 * MaxLine

// Options configure a Recording.
type Options struct {
	// Redact masks secret-looking values (credentials in headers, name=value
	// pairs, tokens of well-known shapes, members named like a secret) in the
	// recorded messages, stderr lines, headers and HTTP session ids. The wire is
	// never changed.
	Redact bool
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// NewRecording writes records to w, each with one Write call but for a large
// message, which follows its record's members in a second (an *os.File holds
// every record as soon as it is written; a Follow reader waits for a line's end).
func NewRecording(w io.Writer, opt Options) *Recording {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	r := &Recording{w: w, redact: opt.Redact, now: now, changed: make(chan struct{}, 1), done: make(chan struct{}),
		written: make(chan struct{}), sessions: map[string]string{}}
	r.more = sync.NewCond(&r.mu)
	go r.writer()
	return r
}

// record is the envelope of one record; the message is appended verbatim after
// the encoded members (encoding/json would compact it).
type record struct {
	TS        string    `json:"ts"`
	Dir       string    `json:"dir,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Event     string    `json:"event,omitempty"`
	Signal    string    `json:"signal,omitempty"`
	By        string    `json:"by,omitempty"`
	Command   []string  `json:"command,omitempty"`
	Code      *int      `json:"code,omitempty"`
	HTTP      *Exchange `json:"http,omitempty"`
	Seq       int       `json:"seq,omitempty"`
	Text      *string   `json:"text,omitempty"`
	// Encoding is "base64" when Text is the base64 of bytes that are not UTF-8
	// (JSON would replace them): a recording keeps every byte that crossed.
	Encoding string `json:"encoding,omitempty"`
}

// Exchange is the HTTP side of a record of the HTTP proxy: the request line and
// headers on a client's message, the status and headers on a server's.
type Exchange struct {
	// N numbers the exchanges of the recording from 1.
	N       int               `json:"exchange"`
	Method  string            `json:"method,omitempty"`
	URL     string            `json:"url,omitempty"`
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Event and EventID are the SSE event's type and id, for a message that
	// travelled in an event stream.
	Event   string `json:"sseEvent,omitempty"`
	EventID string `json:"sseId,omitempty"`
	// Endpoint is set on the exchanges of an HTTP+SSE session: the URI its
	// stream's endpoint event named, which the client POSTs its messages to.
	Endpoint string `json:"endpoint,omitempty"`
	// BodyAs is set on a message read from a response body framed otherwise
	// than its Content-Type says: the media type it was read as.
	BodyAs string `json:"bodyAs,omitempty"`
	// StreamEnded is set on the record of an event stream's end, with
	// StreamLastID the id of its last event (priming events count): where a
	// client resumes it from with Last-Event-ID ("" when no event had an id).
	StreamEnded  bool   `json:"streamEnded,omitempty"`
	StreamLastID string `json:"streamLastId,omitempty"`
}

// Err is the first error writing the recording (nil when every record was written).
func (r *Recording) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Frame records one line that crossed in direction dir (the line without its
// newline). A JSON value other than a string is the frame's message, verbatim;
// any other line is kept as text. The line is copied: the caller may reuse it.
func (r *Recording) Frame(dir spec.Direction, line []byte) {
	r.take(pending{rec: record{Dir: dir.String()}, line: bytes.Clone(line), frame: true})
}

// frameParts is Frame of a line the recording may keep, in the parts the pumps
// cut it in (no copy of a 60 MB line, and never one piece of it: a message is
// written from its parts).
func (r *Recording) frameParts(dir spec.Direction, parts [][]byte) {
	if len(parts) == 1 {
		r.take(pending{rec: record{Dir: dir.String()}, line: parts[0], frame: true})
		return
	}
	p := pending{rec: record{Dir: dir.String()}, parts: parts, frame: true}
	for _, part := range parts {
		p.size += len(part)
	}
	r.take(p)
}

// take queues a record at its place in the order, with its time; it waits
// while the writer is more than maxQueued bytes behind.
func (r *Recording) take(p pending) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.queued > maxQueued && !r.closed && r.err == nil {
		r.more.Wait()
	}
	if r.err != nil || r.closed {
		return
	}
	p.rec.TS = r.now().UTC().Format(time.RFC3339Nano)
	r.queue = append(r.queue, p)
	r.queued += p.bytes()
	r.more.Broadcast()
}

// writer writes the queued records in order until the recording is closed and
// the queue is empty.
func (r *Recording) writer() {
	defer close(r.written)
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && !r.closed {
			r.more.Wait()
		}
		if len(r.queue) == 0 {
			r.mu.Unlock()
			return
		}
		p := r.queue[0]
		r.queue[0] = pending{}
		r.queue = r.queue[1:]
		failed := r.err != nil
		r.mu.Unlock()
		if !failed {
			r.writePending(p)
		}
		r.mu.Lock()
		r.queued -= p.bytes()
		r.more.Broadcast()
		r.mu.Unlock()
	}
}

// writePending classifies, redacts, encodes and writes one record (on the
// writer goroutine).
func (r *Recording) writePending(p pending) {
	if !p.frame {
		if p.rec.Text != nil && r.redact {
			masked := redact.MaskSecrets(*p.rec.Text)
			p.rec.Text = &masked
		}
		r.write(p.rec, nil)
		return
	}
	if p.parts != nil {
		if r.writeParts(p) {
			return
		}
		p.line = bytes.Join(p.parts, nil) // text, or a message to redact: one piece
		p.parts = nil
	}
	rec, line := p.rec, p.line
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return // an empty line carries nothing (readers skip it too)
	}
	// A message is a JSON value with nothing around it but JSON's whitespace: a
	// line that ends in \f, \v, U+0085 or U+00A0 is not one (a client's parser
	// refuses it), and is kept as text, whole.
	if trimmed[0] != '"' && json.Valid(line) {
		msg := line
		if bytes.IndexByte(msg, '\n') >= 0 {
			// A pretty-printed HTTP body or multi-line SSE data: one record is
			// one line, so this message alone is compacted.
			var compact bytes.Buffer
			_ = json.Compact(&compact, trimmed)
			msg = compact.Bytes()
		}
		if r.redact {
			msg = redactMessage(bytes.TrimSpace(msg))
		}
		r.write(rec, msg)
		return
	}
	text := string(line)
	if r.redact {
		text = redact.MaskSecrets(text)
	}
	rec.Text = &text
	r.write(rec, nil)
}

// exchangeFrame records a message that travelled in an HTTP body or SSE event.
// The recording keeps msg: the caller never reuses it.
func (r *Recording) exchangeFrame(dir spec.Direction, session string, ex *Exchange, msg []byte) {
	r.take(pending{rec: record{Dir: dir.String(), SessionID: r.sessionKey(session), HTTP: ex}, line: msg, frame: true})
}

// exchangeEvent records an HTTP exchange, or a part of one, that carried no message.
func (r *Recording) exchangeEvent(session string, ex *Exchange, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	r.take(pending{rec: record{Dir: "http", SessionID: r.sessionKey(session), HTTP: ex, Text: &text}})
}

// redactMessage masks the secrets of a message; a message without any is kept
// exactly as it crossed. A message the structured redaction cannot read as it is
// (bytes that are not UTF-8, nesting past its depth) has its secrets masked in
// its text: the secrets a text shows (name and value pairs, token shapes) are
// masked, and nothing else changes.
func redactMessage(msg []byte) []byte {
	if !redact.Readable(msg) {
		if masked := redact.MaskSecrets(string(msg)); masked != string(msg) {
			return []byte(masked)
		}
		return msg
	}
	masked := redact.Kept(msg, nil)
	if compactEqual(msg, masked) {
		return msg
	}
	return masked
}

// compactEqual reports whether the JSON text msg, with the whitespace outside
// its strings removed, is compact (what json.Compact writes of it), without
// writing a copy of msg.
func compactEqual(msg, compact []byte) bool {
	j, inString, escaped := 0, false, false
	for _, c := range msg {
		if !inString && (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			continue
		}
		if j >= len(compact) || compact[j] != c {
			return false
		}
		j++
		switch {
		case !inString:
			inString = c == '"'
		case escaped:
			escaped = false
		case c == '\\':
			escaped = true
		case c == '"':
			inString = false
		}
	}
	return j == len(compact)
}

// Stderr records one line the server wrote to its stderr.
func (r *Recording) Stderr(line []byte) {
	text := string(bytes.TrimRight(line, "\r"))
	r.take(pending{rec: record{Dir: "stderr", Text: &text}})
}

// Event records what happened to the session that is no message: the proxy
// started, the client closed its end, the server exited (code, when known).
func (r *Recording) Event(event string, code *int, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	r.take(pending{rec: record{Event: event, Code: code, Text: &text}})
}

// Signal records a signal sent to the server: sig is its name ("SIGTERM"), by
// who sent it: "client" (the proxy forwarded a signal the client sent it) or
// "recorder" (the proxy's own).
func (r *Recording) Signal(sig, by, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	r.take(pending{rec: record{Event: "signal", Signal: sig, By: by, Text: &text}})
}

// start records the proxy's start with the command it runs.
func (r *Recording) start(command []string) {
	if r.redact {
		masked := make([]string, len(command))
		for i, a := range command {
			masked[i] = redact.MaskSecrets(a)
		}
		command = masked
	}
	r.take(pending{rec: record{Event: "start", Command: command}})
}

// writeParts writes a line in parts that is a message, from its parts; false
// when it is not one (nothing is written: the caller records it as text), or
// when --redact must read it whole.
func (r *Recording) writeParts(p pending) bool {
	if r.redact {
		return false
	}
	var v validator
	first := byte(0)
	for _, part := range p.parts {
		if first == 0 {
			if t := bytes.TrimLeft(part, " \t\r\n"); len(t) > 0 {
				first = t[0]
			}
		}
		v.write(part)
	}
	if first == 0 || first == '"' || !v.valid() {
		return false
	}
	r.writeRecord(p.rec, p.parts)
	return true
}

// write encodes and writes one record; msg, when set, is appended verbatim as
// the record's "msg". Only the writer goroutine calls it. A large message is
// written after the record's members, not copied beside them.
func (r *Recording) write(rec record, msg []byte) {
	if msg == nil {
		r.writeRecord(rec, nil)
		return
	}
	r.writeRecord(rec, [][]byte{msg})
}

// writeRecord writes one record whose message, when there is one, is in parts.
func (r *Recording) writeRecord(rec record, msg [][]byte) {
	if rec.Text != nil && (rec.Dir == spec.C2S.String() || rec.Dir == spec.S2C.String()) {
		r.seq++
		rec.Seq = r.seq
	}
	if rec.Text != nil && !utf8.ValidString(*rec.Text) {
		b64 := base64.StdEncoding.EncodeToString([]byte(*rec.Text))
		rec.Text, rec.Encoding = &b64, "base64"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		r.fail(fmt.Errorf("mcpsleuth: record: cannot encode a record: %w", err))
		return
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var parts [][]byte
	switch {
	case msg == nil:
		parts = [][]byte{append(line, '\n')}
	case len(msg) == 1 && len(msg[0]) <= copiedMessage:
		line = append(line[:len(line)-1], `,"msg":`...)
		parts = [][]byte{append(append(line, msg[0]...), "}\n"...)}
	default:
		parts = append(append([][]byte{append(line[:len(line)-1], `,"msg":`...)}, msg...), []byte("}\n"))
	}
	for _, part := range parts {
		if _, err := r.w.Write(part); err != nil {
			r.fail(fmt.Errorf("mcpsleuth: record: cannot write the recording: %w", err))
			return
		}
	}
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// copiedMessage is the largest message written in one piece with its record.
const copiedMessage = 64 << 10

// fail keeps the first error: later records are dropped.
func (r *Recording) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = err
	}
	r.more.Broadcast()
}

// sessionKey is what the recording names an HTTP session by: its Mcp-Session-Id,
// or under --redact a name of its own ("session-1"), the same for every record of
// that session.
func (r *Recording) sessionKey(id string) string {
	if id == "" || !r.redact {
		return id
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	name, ok := r.sessions[id]
	if !ok {
		name = fmt.Sprintf("session-%d", len(r.sessions)+1)
		r.sessions[id] = name
	}
	return name
}

// Close ends the recording: the records taken are written, later ones are
// dropped, and Follow readers see the end of the input once they have read
// everything written.
func (r *Recording) Close() {
	r.mu.Lock()
	first := !r.closed
	r.closed = true
	r.more.Broadcast()
	r.mu.Unlock()
	<-r.written // everything taken before is written
	if first {
		close(r.done)
	}
}

// Follow reads a file the recording is writing, as it is written: at the end of
// what is there it waits for the next record, and it ends when the recording is
// closed and everything was read (tail -f that knows when to stop). It is how
// --live analyses the recording with the same engine as check.
func (r *Recording) Follow(f io.Reader) io.Reader {
	return &follower{f: f, r: r}
}

type follower struct {
	f io.Reader
	r *Recording
}

func (fl *follower) Read(p []byte) (int, error) {
	for {
		n, err := fl.f.Read(p)
		if n > 0 {
			return n, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		select {
		case <-fl.r.changed:
		case <-fl.r.done:
			// Closed: what is left was written before; read it to the end.
			n, err := fl.f.Read(p)
			if n > 0 {
				return n, nil
			}
			if err == nil {
				continue
			}
			return 0, err
		}
	}
}
