package report

import (
	"bytes"
	"fmt"
	"io"
)

// The lines format is for pipes and editors: one finding a line, in the shape of
// grep -n, ripgrep, staticcheck and golangci-lint,
//
//	PATH:LINE: SEVERITY RULE MESSAGE
//
// where LINE is the 1-based line of the input the finding's frame starts on (for
// a document format, HAR or an Inspector export, the line its entry starts on:
// the JSON report's "line"). Then a line per input that could not be read or
// judged, with the facts stderr gives (the input and why), and no line number:
//
//	PATH: error: MESSAGE
//
// (warning instead of error for what a directory walk skipped on purpose, as in
// SARIF). Nothing else: no header, no summary, and no output at all when there
// is neither a finding nor an error, as grep prints nothing when nothing matches.
// Names and messages are escaped as everywhere else (Safe): one finding stays on
// one line whatever the capture holds.

// WriteLines writes the lines format: the findings of every session in session
// order, then the inputs that could not be read or judged.
func WriteLines(w io.Writer, r *Report) error {
	var b bytes.Buffer
	for i := range r.Sessions {
		writeLinesSession(&b, &r.Sessions[i])
	}
	writeLinesErrors(&b, r.Errors)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the report: %w", err)
	}
	return nil
}

// NewLinesStream writes the lines format through a spool, session by session as
// sessions end: byte for byte what WriteLines writes for the same report, while
// memory holds the sessions still open, not the findings of the whole input.
func NewLinesStream(spool io.Writer, opt StreamOptions) Stream {
	return newSpoolStream(spool, opt, encodeLinesSession, finishLines)
}

func encodeLinesSession(s *Session, _ StreamOptions) ([]byte, error) {
	var b bytes.Buffer
	writeLinesSession(&b, s)
	return b.Bytes(), nil
}

func finishLines(w io.Writer, st *spoolStream, sessions func(io.Writer, string, string) error) error {
	if err := sessions(w, "", ""); err != nil {
		return fmt.Errorf("mcpsleuth: writing the report: %w", err)
	}
	var b bytes.Buffer
	writeLinesErrors(&b, st.errors)
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("mcpsleuth: writing the report: %w", err)
	}
	return nil
}

// writeLinesSession writes a line per finding of a session, in the session's
// order (by line).
func writeLinesSession(b *bytes.Buffer, s *Session) {
	for _, f := range s.Findings {
		b.WriteString(findingLine(f))
	}
}

// findingLine is one finding as a line: "PATH:LINE: SEVERITY RULE MESSAGE\n".
func findingLine(f Finding) string {
	where := Safe(f.Input)
	if f.Line > 0 {
		where += fmt.Sprintf(":%d", f.Line)
	}
	return fmt.Sprintf("%s: %s %s %s\n", where, f.Severity, f.Rule, Safe(f.Message))
}

// writeLinesErrors writes a line per input that could not be read or judged.
func writeLinesErrors(b *bytes.Buffer, errs []InputError) {
	for _, e := range errs {
		severity := "error"
		if !e.Kind.fails() {
			severity = "warning"
		}
		fmt.Fprintf(b, "%s: %s: %s\n", Safe(e.Input), severity, Safe(e.Message))
	}
}
