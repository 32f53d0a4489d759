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
type Recording struct {
	mu     sync.Mutex
	w      io.Writer
	redact bool
	now    func() time.Time
	seq    int
	err    error // the first write error: later records are dropped
	closed bool
	// changed is signalled after each record, done closed by Close: a Follow
	// reader waits on them at the end of what is written.
	changed chan struct{}
	done    chan struct{}
	// sessions maps HTTP session ids to the names --redact records instead.
	sessions map[string]string
}

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

// NewRecording writes records to w, each with one Write call (an *os.File
// holds every record as soon as it is written).
func NewRecording(w io.Writer, opt Options) *Recording {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	return &Recording{w: w, redact: opt.Redact, now: now, changed: make(chan struct{}, 1), done: make(chan struct{}), sessions: map[string]string{}}
}

// record is the envelope of one record; the message is appended verbatim after
// the encoded members (encoding/json would compact it).
type record struct {
	TS        string    `json:"ts"`
	Dir       string    `json:"dir,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Event     string    `json:"event,omitempty"`
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
}

// Err is the first error writing the recording (nil when every record was written).
func (r *Recording) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Frame records one line that crossed in direction dir (the line without its
// newline). A JSON value other than a string is the frame's message, verbatim;
// any other line is kept as text.
func (r *Recording) Frame(dir spec.Direction, line []byte) {
	r.frame(record{Dir: dir.String()}, line)
}

func (r *Recording) frame(rec record, line []byte) {
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
func (r *Recording) exchangeFrame(dir spec.Direction, session string, ex *Exchange, msg []byte) {
	r.frame(record{Dir: dir.String(), SessionID: r.sessionKey(session), HTTP: ex}, msg)
}

// exchangeEvent records an HTTP exchange, or a part of one, that carried no message.
func (r *Recording) exchangeEvent(session string, ex *Exchange, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if r.redact {
		text = redact.MaskSecrets(text)
	}
	r.write(record{Dir: "http", SessionID: r.sessionKey(session), HTTP: ex, Text: &text}, nil)
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
	var compact bytes.Buffer
	if json.Compact(&compact, msg) == nil && bytes.Equal(compact.Bytes(), masked) {
		return msg
	}
	return masked
}

// Stderr records one line the server wrote to its stderr.
func (r *Recording) Stderr(line []byte) {
	text := string(bytes.TrimRight(line, "\r"))
	if r.redact {
		text = redact.MaskSecrets(text)
	}
	r.write(record{Dir: "stderr", Text: &text}, nil)
}

// Event records what happened to the session that is no message: the proxy
// started, the client closed its end, the server exited (code, when known).
func (r *Recording) Event(event string, code *int, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	if r.redact {
		text = redact.MaskSecrets(text)
	}
	r.write(record{Event: event, Code: code, Text: &text}, nil)
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
	r.write(record{Event: "start", Command: command}, nil)
}

// write encodes and writes one record; msg, when set, is appended verbatim as
// the record's "msg".
func (r *Recording) write(rec record, msg []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil || r.closed {
		return
	}
	rec.TS = r.now().UTC().Format(time.RFC3339Nano)
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
		r.err = fmt.Errorf("mcpsleuth: record: cannot encode a record: %w", err)
		return
	}
	line := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if msg != nil {
		line = append(line[:len(line)-1], `,"msg":`...)
		line = append(line, msg...)
		line = append(line, '}')
	}
	line = append(line, '\n')
	if _, err := r.w.Write(line); err != nil {
		r.err = fmt.Errorf("mcpsleuth: record: cannot write the recording: %w", err)
		return
	}
	select {
	case r.changed <- struct{}{}:
	default:
	}
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

// Close ends the recording: later records are dropped, and Follow readers see
// the end of the input once they have read everything written.
func (r *Recording) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed {
		r.closed = true
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
