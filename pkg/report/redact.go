package report

import (
	"fmt"

	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// Redaction (--redact, pkg/redact) is applied to the report model, session by
// session, before any format renders it: every format then shows the same
// redacted values. The session's set of redacted values (trace.Needs.Redaction)
// is what the analysis collected from its frames; without it, declared values
// are still replaced and secrets masked, but echoes of hidden values in error
// messages are not found.

// Redact applies --redact to a whole report, in place; every format then renders
// the redacted model. It is idempotent.
func Redact(r *Report) {
	if r.Redacted {
		return
	}
	r.Redacted = true
	for i := range r.Inputs {
		redactInput(&r.Inputs[i])
	}
	RedactErrors(r.Errors)
	for i := range r.Sessions {
		RedactSession(&r.Sessions[i])
	}
}

// redactInput applies --redact to an input's entry: its name, what a log without
// frames shows and the URLs of its connections keep no secret.
func redactInput(in *Input) {
	in.Name, in.Lossy = redact.MaskSecrets(in.Name), redact.MaskSecrets(in.Lossy)
	for i := range in.Connections {
		in.Connections[i].URL = redact.MaskSecrets(in.Connections[i].URL)
	}
}

// RedactErrors applies --redact to the inputs that could not be read or judged,
// in place: their names, and the messages that may quote what was read.
func RedactErrors(errs []InputError) {
	for i := range errs {
		errs[i].Input = redact.MaskSecrets(errs[i].Input)
		errs[i].Message = redact.MaskSecrets(errs[i].Message)
	}
}

// RedactSession applies --redact to one session (the timeline redacts session by session).
func RedactSession(s *Session) {
	var set *redact.Set
	if s.Trace != nil {
		set = s.Trace.Redacted
	}
	text := func(captured string) string {
		if body, cut := trace.CutText(captured); cut && set != nil {
			// Cut short: it may end with the start of a value (ReplaceCut).
			return set.HideCut(body) + trace.CutMark
		}
		return set.Hide(captured)
	}
	s.Input = redact.MaskSecrets(s.Input)
	s.StreamKey = redact.StreamKey(s.StreamKey)
	for _, p := range []*Peer{&s.Client, &s.Server} {
		p.Name, p.Version = text(p.Name), text(p.Version)
		p.Capabilities = redact.Kept(p.Capabilities, set)
	}
	v := &s.ProtocolVersion
	v.Requested, v.Answered, v.Negotiated = redact.MaskSecrets(v.Requested), redact.MaskSecrets(v.Answered), redact.MaskSecrets(v.Negotiated)
	for i, n := range s.Notes {
		s.Notes[i] = redact.MaskSecrets(n) // the rules' words: notes quote no captured value (rule.Reason)
	}
	if set != nil && set.Full {
		s.Notes = append(s.Notes, fmt.Sprintf("redaction: the session carries more than %d values (or %d MiB) to hide; echoes of the values beyond them in error messages and names were not looked for", redact.MaxValues, redact.MaxBytes>>20))
	}
	for i := range s.Findings {
		redactFinding(&s.Findings[i], set)
	}
	if t := s.Trace; t != nil {
		declaring := make(map[int][]byte, len(t.Declaring))
		for line, raw := range t.Declaring {
			declaring[line] = redact.Frame(raw, set)
		}
		t.Declaring = declaring
		for i := range t.Frames {
			fs := &t.Frames[i]
			fs.Method, fs.ID, fs.Subject, fs.Text = redact.MaskSecrets(fs.Method), redact.MaskSecrets(fs.ID), text(fs.Subject), text(fs.Text)
			if len(fs.Raw) > 0 {
				fs.Raw = redact.Frame(fs.Raw, set)
			}
			if x := fs.Exchange; x != nil {
				fs.Exchange = &trace.HTTPExchange{Entry: x.Entry, Number: x.Number, Method: redact.MaskSecrets(x.Method), Path: text(x.Path), Status: x.Status, StatusText: text(x.StatusText)}
			}
		}
		for i := range t.Uses {
			t.Uses[i].Method = redact.MaskSecrets(t.Uses[i].Method)
		}
		for i := range t.Contract {
			for j := range t.Contract[i].Uses {
				t.Contract[i].Uses[j].Method = redact.MaskSecrets(t.Contract[i].Uses[j].Method)
			}
		}
	}
}

func redactFinding(f *Finding, set *redact.Set) {
	if len(f.Evidence) > 0 {
		f.Evidence = redact.Frame(f.Evidence, set)
	}
	related := make([]rule.Related, len(f.Related))
	for i, rel := range f.Related {
		related[i] = rule.Related{Line: rel.Line, Note: redact.Message(rel.Note, rel.Values, set)}
		if len(rel.Raw) > 0 {
			related[i].Raw = redact.Frame(rel.Raw, set)
		}
	}
	f.Related = related
	f.Message, f.Values = redact.Message(f.Message, f.Values, set), nil
	f.Input = redact.MaskSecrets(f.Input)
	if f.Method != nil {
		m := redact.MaskSecrets(*f.Method)
		f.Method = &m
	}
	f.ID = redact.ID(f.ID)
}

// RedactContext masks secrets in the context lines (stderr) the timeline shows
// before the first session (no session's values are known there).
func RedactContext(fs []trace.FrameSummary) {
	for i := range fs {
		fs[i].Text = redact.MaskSecrets(fs[i].Text)
	}
}
