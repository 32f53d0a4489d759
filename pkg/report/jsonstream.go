package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Stream writes a report session by session, as sessions end, so that a run over
// an archive of many sessions keeps one session in memory instead of all of them.
// Sessions are encoded when they end and spooled (the caller provides the spool, a
// temporary file); Finish writes the document from the spool.
type Stream interface {
	// Session takes the result of one ended session (and what a tracer kept of it).
	Session(sr *rule.SessionResult, tr *trace.Trace) error
	// Input takes an input once it has been read to its end (its sessions have
	// all been given to Session by then).
	Input(in *rule.InputResult)
	// Finish writes the whole report to w, reading the spooled sessions back.
	Finish(w io.Writer, spool io.ReaderAt) error
	// Worst is the highest severity among the findings.
	Worst() rule.Severity
	// Unjudged lists the inputs that could not be judged at all (lossy logs).
	Unjudged() []Input
}

// StreamOptions configure a Stream.
type StreamOptions struct {
	// Version is the tool version the report names.
	Version string
	// Redact redacts each session before it is spooled (--redact).
	Redact bool
}

// NewJSONStream writes the JSON report (DESIGN.md section 6) through a spool: the
// document is byte for byte what WriteJSON writes for the same report, sessions in
// the same order (by input, then index), whatever order they ended in.
func NewJSONStream(spool io.Writer, opt StreamOptions) Stream {
	return &jsonStream{spool: spool, opt: opt, summary: Summary{Findings: map[string]int{"error": 0, "warning": 0, "info": 0}}}
}

type jsonStream struct {
	spool   io.Writer
	opt     StreamOptions
	offset  int64
	inputs  []Input
	summary Summary
	worst   rule.Severity
	// spooled places each session in the spool; input orders sessions by their
	// input (the inputs are read one after another).
	spooled []spooledSession
	input   int
}

type spooledSession struct {
	input, index int
	offset, size int64
}

func (s *jsonStream) Session(sr *rule.SessionResult, tr *trace.Trace) error {
	sess := SessionOf(sr, tr)
	if s.opt.Redact {
		RedactSession(&sess)
	}
	for _, f := range sess.Findings {
		s.summary.Findings[f.Severity]++
		s.worst = max(s.worst, f.severity)
	}
	// Indented as an element of the top-level "sessions" array.
	b, err := json.MarshalIndent(sess, "    ", "  ")
	if err != nil {
		return fmt.Errorf("mcpsleuth: writing the JSON report: %w", err)
	}
	b = escapeJSONControls(b)
	if _, err := s.spool.Write(b); err != nil {
		return fmt.Errorf("mcpsleuth: spooling the JSON report: %w", err)
	}
	s.spooled = append(s.spooled, spooledSession{input: s.input, index: sess.Index, offset: s.offset, size: int64(len(b))})
	s.offset += int64(len(b))
	s.summary.Sessions++
	return nil
}

func (s *jsonStream) Input(in *rule.InputResult) {
	st := in.Stats
	name := in.Name
	if s.opt.Redact {
		name = MaskSecrets(name)
	}
	s.inputs = append(s.inputs, Input{Name: name, Format: st.Format, Lines: st.Lines, Frames: st.Frames, Rejected: st.Rejected, Context: st.Context, Lossy: st.Lossy})
	s.input++
}

func (s *jsonStream) Worst() rule.Severity { return s.worst }

func (s *jsonStream) Unjudged() []Input {
	r := Report{Inputs: s.inputs}
	return r.Unjudged()
}

// sessionsMarker is where the sessions go in the document written without them.
const sessionsMarker = "\n  \"sessions\": [],\n"

func (s *jsonStream) Finish(w io.Writer, spool io.ReaderAt) error {
	doc := Report{Version: 1, Tool: Tool{Name: "mcpsleuth", Version: s.opt.Version}, Inputs: s.inputs, Sessions: []Session{}, Summary: s.summary}
	if doc.Inputs == nil {
		doc.Inputs = []Input{}
	}
	var b bytes.Buffer
	if err := WriteJSON(&b, &doc); err != nil {
		return err
	}
	head, tail, ok := bytes.Cut(b.Bytes(), []byte(sessionsMarker))
	if !ok {
		return fmt.Errorf("mcpsleuth: writing the JSON report: no sessions member")
	}
	sort.SliceStable(s.spooled, func(i, j int) bool {
		a, b := s.spooled[i], s.spooled[j]
		if a.input != b.input {
			return a.input < b.input
		}
		return a.index < b.index
	})
	out := SafeJSONWriter(w)
	if _, err := out.Write(head); err != nil {
		return err
	}
	if len(s.spooled) == 0 {
		if _, err := io.WriteString(w, sessionsMarker); err != nil {
			return err
		}
	} else {
		if _, err := io.WriteString(w, "\n  \"sessions\": ["); err != nil {
			return err
		}
		buf := make([]byte, 0, 64<<10)
		for i, sp := range s.spooled {
			sep := ",\n    "
			if i == 0 {
				sep = "\n    "
			}
			if _, err := io.WriteString(w, sep); err != nil {
				return err
			}
			if cap(buf) < int(sp.size) {
				buf = make([]byte, sp.size)
			}
			chunk := buf[:sp.size]
			if _, err := spool.ReadAt(chunk, sp.offset); err != nil {
				return fmt.Errorf("mcpsleuth: reading the spooled JSON report back: %w", err)
			}
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, "\n  ],\n"); err != nil {
			return err
		}
	}
	_, err := out.Write(tail)
	return err
}
