package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/mcpsleuth/mcpsleuth/pkg/driver"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Stream writes a report session by session, as sessions end, so that a run over
// an archive of many sessions keeps one session in memory instead of all of them.
// Sessions are encoded when they end and spooled (the caller provides the spool, a
// temporary file); Finish writes the document from the spool.
type Stream interface {
	// Session takes the result of one ended session (and what a tracer kept of it):
	// Add(Prepare(sr, tr)).
	Session(sr *rule.SessionResult, tr *trace.Trace) error
	// Prepare converts, redacts and encodes one ended session for Add. It keeps
	// nothing of the stream's, so any goroutine may call it at any time: the jobs of
	// a scan encode their own files' sessions, and only Add runs in input order.
	Prepare(sr *rule.SessionResult, tr *trace.Trace) (*Prepared, error)
	// Add takes a prepared session, where Session would have taken it.
	Add(p *Prepared) error
	// Input takes an input once it has been read to its end (its sessions have
	// all been given to Session by then).
	Input(in *driver.InputResult)
	// Finish writes the whole report to w, reading the spooled sessions back.
	Finish(w io.Writer, spool io.ReaderAt) error
	// Errors takes the inputs that could not be read or judged, before Finish:
	// the formats that show them (the JSON "errors", jsonl error lines) do.
	Errors(errs []InputError)
}

// StreamOptions configure a Stream.
type StreamOptions struct {
	// Version is the tool version the report names.
	Version string
	// Redact redacts each session before it is spooled (--redact).
	Redact bool
	// Text is how the text format writes (colour, width).
	Text TextOptions
	// Config is the configuration the report is made under (Report.Config).
	Config *Config
}

// NewJSONStream writes the JSON report (DESIGN.md section 6) through a spool: the
// document is byte for byte what WriteJSON writes for the same report, sessions in
// the same order (by input, then index), whatever order they ended in.
func NewJSONStream(spool io.Writer, opt StreamOptions) Stream {
	return newSpoolStream(spool, opt, encodeJSONSession, finishJSON)
}

// NewJSONLStream writes the jsonl format (one finding a line) through a spool, in
// the order WriteJSONL writes the same report.
func NewJSONLStream(spool io.Writer, opt StreamOptions) Stream {
	return newSpoolStream(spool, opt, encodeJSONLSession, finishJSONL)
}

// spoolStream is a Stream that encodes each session as it ends, appends it to the
// spool, and at Finish copies the encoded sessions out in session order between
// what the format writes around them.
type spoolStream struct {
	spool   io.Writer
	opt     StreamOptions
	encode  func(s *Session, opt StreamOptions) ([]byte, error)
	finish  func(w io.Writer, st *spoolStream, sessions func(w io.Writer, sep, first string) error) error
	offset  int64
	inputs  []Input
	errors  []InputError
	summary Summary
	// spooled places the sessions in the spool, as runs of sessions that ended in
	// order; input orders sessions by their input (the inputs are read one after
	// another). written counts the sessions spooled.
	spooled []spooledRun
	written int
	input   int
}

// spooledRun is sessions first, first+1, ... of an input, spooled one after another
// from offset on, with their encodings' sizes (0: nothing written for it). Sessions
// mostly end in the order they started: a capture of a million short sessions is
// one run, 8 bytes a session (a place of its own for each took 32 and was, with
// the slice's doubling, most of the memory of such a check).
type spooledRun struct {
	input, first int
	offset, end  int64
	sizes        []int64
}

func newSpoolStream(spool io.Writer, opt StreamOptions, encode func(*Session, StreamOptions) ([]byte, error), finish func(io.Writer, *spoolStream, func(io.Writer, string, string) error) error) *spoolStream {
	return &spoolStream{spool: spool, opt: opt, encode: encode, finish: finish, summary: Summary{Findings: map[string]int{"error": 0, "warning": 0, "info": 0}}}
}

// Prepared is an ended session made ready for a stream (Stream.Prepare): its
// report view, redacted when the stream redacts, and its encoding in the format.
type Prepared struct {
	Session Session
	encoded []byte
}

func (s *spoolStream) Session(sr *rule.SessionResult, tr *trace.Trace) error {
	p, err := s.Prepare(sr, tr)
	if err != nil {
		return err
	}
	return s.Add(p)
}

func (s *spoolStream) Prepare(sr *rule.SessionResult, tr *trace.Trace) (*Prepared, error) {
	p := &Prepared{Session: SessionOf(sr, tr)}
	if s.opt.Redact {
		RedactSession(&p.Session)
	}
	b, err := s.encode(&p.Session, s.opt)
	if err != nil {
		return nil, err
	}
	p.encoded = b
	return p, nil
}

func (s *spoolStream) Add(p *Prepared) error {
	for _, f := range p.Session.Findings {
		s.summary.Findings[f.Severity]++
	}
	s.summary.Sessions++
	b := p.encoded
	if len(b) > 0 {
		if _, err := s.spool.Write(b); err != nil {
			return fmt.Errorf("mcpsleuth: spooling the report: %w", err)
		}
		s.written++
	}
	size := int64(len(b))
	if n := len(s.spooled); n > 0 {
		if r := &s.spooled[n-1]; r.input == s.input && p.Session.Index == r.first+len(r.sizes) && r.end == s.offset {
			r.sizes = append(r.sizes, size)
			r.end += size
			s.offset += size
			return nil
		}
	}
	if size > 0 {
		s.spooled = append(s.spooled, spooledRun{input: s.input, first: p.Session.Index, offset: s.offset, end: s.offset + size, sizes: []int64{size}})
		s.offset += size
	}
	return nil
}

func (s *spoolStream) Input(in *driver.InputResult) {
	input := inputOf(in)
	if s.opt.Redact {
		redactInput(&input)
	}
	s.inputs = append(s.inputs, input)
	s.input++
}

func (s *spoolStream) Errors(errs []InputError) {
	s.errors = append([]InputError(nil), errs...)
	if s.opt.Redact {
		RedactErrors(s.errors)
	}
}

func (s *spoolStream) Finish(w io.Writer, spool io.ReaderAt) error {
	// Runs hold consecutive sessions, each session one run: ordered by their first
	// session, they are in session order.
	sort.SliceStable(s.spooled, func(i, j int) bool {
		a, b := s.spooled[i], s.spooled[j]
		if a.input != b.input {
			return a.input < b.input
		}
		return a.first < b.first
	})
	// sessions copies the spooled sessions out in order, first before the first
	// and sep before each of the others. Each run is read through one buffer and
	// the report written through another: a capture of many short sessions is a
	// few large reads and writes, not two system calls a session.
	sessions := func(w io.Writer, sep, first string) error {
		var in *bufio.Reader
		lead := first
		for _, run := range s.spooled {
			section := io.NewSectionReader(spool, run.offset, run.end-run.offset)
			if in == nil {
				in = bufio.NewReaderSize(section, 256<<10)
			} else {
				in.Reset(section)
			}
			for _, size := range run.sizes {
				if size == 0 {
					continue
				}
				if _, err := io.WriteString(w, lead); err != nil {
					return err
				}
				lead = sep
				if _, err := io.CopyN(w, in, size); err != nil {
					if err == io.EOF || err == io.ErrUnexpectedEOF {
						return fmt.Errorf("mcpsleuth: reading the spooled report back: %w", io.ErrUnexpectedEOF)
					}
					return err
				}
			}
		}
		return nil
	}
	out := bufio.NewWriterSize(w, 256<<10)
	if err := s.finish(out, s, sessions); err != nil {
		return err
	}
	return out.Flush()
}

// encodeJSONSession encodes a session as an element of the top-level "sessions"
// array of the JSON report.
func encodeJSONSession(sess *Session, _ StreamOptions) ([]byte, error) {
	if b, ok := appendSessionJSON(make([]byte, 0, 2048), sess, "    "); ok {
		return escapeJSONText(b), nil
	}
	b, err := json.MarshalIndent(sess, "    ", "  ")
	if err != nil {
		return nil, fmt.Errorf("mcpsleuth: writing the JSON report: %w", err)
	}
	return escapeJSONText(b), nil
}

func finishJSON(w io.Writer, s *spoolStream, sessions func(io.Writer, string, string) error) error {
	doc := Report{Version: 1, Tool: Tool{Name: "mcpsleuth", Version: s.opt.Version}, Config: s.opt.Config, Inputs: s.inputs, Errors: s.errors, Sessions: []Session{}, Summary: s.summary}
	if doc.Inputs == nil {
		doc.Inputs = []Input{}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, &doc); err != nil {
		return err
	}
	return splice(w, b.Bytes(), "sessions", s.written > 0, sessions)
}

// splice writes a JSON document written with an empty top-level array member
// (two-space indentation) with the spooled elements in that array instead: the
// document as the whole report would have it. The document was escaped as it
// was written, the elements as they were encoded.
func splice(w io.Writer, doc []byte, member string, nonEmpty bool, elements func(io.Writer, string, string) error) error {
	empty := "\n  \"" + member + "\": [],\n"
	head, tail, ok := bytes.Cut(doc, []byte(empty))
	if !ok {
		return fmt.Errorf("mcpsleuth: writing the report: no %s member", member)
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	if !nonEmpty {
		if _, err := io.WriteString(w, empty); err != nil {
			return err
		}
	} else {
		if _, err := io.WriteString(w, "\n  \""+member+"\": ["); err != nil {
			return err
		}
		if err := elements(w, ",\n    ", "\n    "); err != nil {
			return err
		}
		if _, err := io.WriteString(w, "\n  ],\n"); err != nil {
			return err
		}
	}
	_, err := w.Write(tail)
	return err
}

// encodeJSONLSession encodes a session's findings as jsonl lines.
func encodeJSONLSession(sess *Session, opt StreamOptions) ([]byte, error) {
	var b bytes.Buffer
	if err := writeJSONLSession(&b, sess, "mcpsleuth "+opt.Version); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func finishJSONL(w io.Writer, s *spoolStream, sessions func(io.Writer, string, string) error) error {
	if err := sessions(w, "", ""); err != nil {
		return err
	}
	return writeJSONLErrors(w, s.errors, "mcpsleuth "+s.opt.Version)
}
