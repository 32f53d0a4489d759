package report

import (
	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/trace"
)

// RedactDiff applies --redact to a diff, in place, before any format renders it,
// as Redact does to a report: the values the findings quote from params and
// results are replaced by their type and length, secret-looking strings are
// masked everywhere, and the values each session carries (setA, setB: its
// trace's Redacted set; nil when not collected) are replaced wherever the diff
// prints them. Names of tools, capabilities, methods and revisions are kept
// (their secrets masked). It is idempotent.
func RedactDiff(d *trace.Diff, setA, setB *redact.Set) {
	if d.Redacted {
		return
	}
	d.Redacted = true
	text := func(captured string) string { return redact.HideAll(captured, setA, setB) }
	for _, side := range []*trace.DiffSide{&d.A, &d.B} {
		side.Input, side.Client, side.Server = redact.MaskSecrets(side.Input), text(side.Client), text(side.Server)
	}
	for i := range d.Contract {
		c := &d.Contract[i]
		c.A, c.B = text(c.A), text(c.B)
	}
	for i := range d.Capabilities {
		c := &d.Capabilities[i]
		c.Path, c.A, c.B = text(c.Path), text(c.A), text(c.B)
	}
	for i := range d.Lists {
		l := &d.Lists[i]
		l.Name = text(l.Name)
		for j := range l.Details {
			l.Details[j] = text(l.Details[j])
		}
	}
	for i := range d.Behaviour {
		d.Behaviour[i].What = text(d.Behaviour[i].What)
	}
	for _, only := range []struct {
		findings []trace.DiffFinding
		set      *redact.Set
	}{{d.OnlyA, setA}, {d.OnlyB, setB}} {
		for i := range only.findings {
			f := &only.findings[i]
			// The side's own values first, then the other's (a value both carry).
			f.Message, f.Values = text(redact.Message(f.Message, f.Values, only.set)), nil
		}
	}
	for i := range d.Notes {
		d.Notes[i] = text(d.Notes[i])
	}
	d.Notes = append(d.Notes, "redacted (--redact): the values findings quote from params and results are replaced by their type and length, "+
		"secret-looking strings (tokens, keys, cookies, credentials) are masked everywhere; methods, capability names, "+
		"protocol versions, error codes, tool names and schemas are kept")
}
