package scrub

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// ErrHTTPEnvelope is Copy's answer when Options.Envelope meets an HTTP
// exchange: an exchange has more to keep than an envelope of a message (its
// status, headers, event ids, the messages it carried none of).
var ErrHTTPEnvelope = fmt.Errorf("--format envelope does not convert HTTP captures (a HAR, a recording of record --http): redact them in their own format")

// envelopeRecord is one line of the envelope JSONL Copy writes with
// Options.Envelope: a frame's message (msg, verbatim but its values), or a
// line of context (text), or an event of the server process.
type envelopeRecord struct {
	TS     string  `json:"ts,omitempty"`
	Dir    string  `json:"dir,omitempty"`
	Server string  `json:"server_label,omitempty"`
	Event  string  `json:"event,omitempty"`
	Signal string  `json:"signal,omitempty"`
	By     string  `json:"by,omitempty"`
	Text   *string `json:"text,omitempty"`
	// Seq marks a protocol line that is not JSON as a frame (mcpsnoop's form).
	Seq int `json:"seq,omitempty"`
}

// envelope writes a record as an envelope line: the members, then the
// message appended verbatim (encoding/json would compact it).
func (c *copier) envelope(rec *frame.Record) error {
	var e envelopeRecord
	var msg []byte
	switch rec.Kind {
	case frame.RecordBlank:
		return nil
	case frame.RecordFrame:
		f := rec.Frame
		if f.HTTP != nil {
			return ErrHTTPEnvelope
		}
		c.sum.Frames++
		e.TS, e.Server = timeOf(f.Time), f.StreamKey
		if f.Dir.String() == "c2s" || f.Dir.String() == "s2c" {
			e.Dir = f.Dir.String()
		}
		if f.Kind == frame.KindInvalid && f.Problem == frame.ProblemNotJSON {
			text := string(c.scrubText(f.Raw))
			e.Text, e.Seq = &text, rec.Line // a line of the protocol that is not JSON: a frame
			break
		}
		edits, kinds := c.edits(f, rec.Line)
		out, _ := replaceSpans(append([]byte(nil), f.Raw...), edits)
		c.countKinds(kinds)
		msg = c.scrubText(out)
	case frame.RecordContext:
		switch {
		case rec.Exchange != nil:
			return ErrHTTPEnvelope
		case rec.Lifecycle != nil:
			l := rec.Lifecycle
			e.TS, e.Event, e.Signal, e.By = timeOf(l.Time), l.Event, l.Signal, l.By
		default:
			text := string(c.scrubText(rec.Text))
			e.Dir, e.Text = "stderr", &text
		}
	}
	c.sum.Lines++
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if msg != nil {
		b = b[:len(b)-1]
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"msg":`...)
		b = append(b, msg...)
		b = append(b, '}')
	}
	b = append(b, '\n')
	_, err = c.out.Write(b)
	return err
}

// scrubText replaces the secrets of a text (a message, a line): by their
// shape, and those found before wherever they stand alone.
func (c *copier) scrubText(text []byte) []byte {
	text = c.textScan(text)
	return c.global.replace(text, func() { c.sum.Replaced[KindText]++ })
}

func timeOf(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
