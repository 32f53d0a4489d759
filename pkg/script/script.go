// Package script keeps a captured session as a script of messages: each
// message as it crossed, in capture order, with its direction. It is what
// mcpsleuth mock serves (the server's side of the script, answering a client)
// and what mcpsleuth replay plays (the client's side, against a server). The
// script is a result of the analysis's one pass (NewAnalysis), so the session
// is the session the reports number, split as they split it.
package script

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/rule"
	"github.com/mcpsleuth/mcpsleuth/pkg/session"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// MaxBytes bounds the messages a script keeps: a session carrying more is cut
// there (Script.Cut).
const MaxBytes = 256 << 20

// Message is one message of the script.
type Message struct {
	Dir  spec.Direction
	Kind frame.Kind
	// Method is the method of a request or notification; ID the raw id of a
	// request or response ("" for a notification).
	Method, ID string
	// Raw is the message as it crossed (a copy).
	Raw []byte
	// Line is where the capture has it.
	Line int
}

// IsRequest, IsNotification and IsResponse say what the message is.
func (m *Message) IsRequest() bool      { return m.Kind == frame.KindRequest }
func (m *Message) IsNotification() bool { return m.Kind == frame.KindNotification }
func (m *Message) IsResponse() bool     { return m.Kind.IsResponse() }

// Script is a captured session's messages.
type Script struct {
	Messages []Message
	// Cut is set when the session carried more than MaxBytes: the messages
	// after are not in the script.
	Cut   bool
	bytes int
}

// ErrNotKept is the answer of Of for a session the analysis did not keep.
var ErrNotKept = errors.New("script: session not kept")

// NewAnalysis returns the analysis that keeps the script of the session whose
// index (0-based, as Session.Index) is index; the other sessions cost
// nothing. A batch's members are kept, each as a message of its own.
func NewAnalysis(index int) *rule.Analysis {
	return &rule.Analysis{
		Name: "script",
		New: func(s *session.Session, _ rule.Results) rule.Computation {
			return &computation{keep: s.Index == index}
		},
	}
}

type computation struct {
	keep bool
	s    Script
}

func (c *computation) Result() any {
	if !c.keep {
		return (*Script)(nil)
	}
	return &c.s
}

func (c *computation) Message(m *session.Message) {
	if !c.keep || m.Frame == nil || m.Kind == frame.KindBatch || m.Kind == frame.KindInvalid || c.s.Cut {
		return
	}
	if c.s.bytes+len(m.Raw) > MaxBytes {
		c.s.Cut = true
		return
	}
	c.s.bytes += len(m.Raw)
	c.s.Messages = append(c.s.Messages, Message{
		Dir: m.Dir, Kind: m.Kind, Method: m.Method, ID: m.ID,
		Raw: bytes.Clone(m.Raw), Line: m.Line,
	})
}

// Of is the script an analysis result holds (nil when the session was not
// kept).
func Of(result any) *Script {
	s, _ := result.(*Script)
	return s
}

// Answer is the index of the response to the request at i (the first message
// after it, from the other side, with its id), -1 when the capture has none.
func (s *Script) Answer(i int) int {
	req := &s.Messages[i]
	for j := i + 1; j < len(s.Messages); j++ {
		m := &s.Messages[j]
		if m.IsResponse() && m.Dir != req.Dir && m.ID == req.ID {
			return j
		}
	}
	return -1
}

// Params is a message's params without their _meta (which carries what each
// run draws anew: progress tokens), compacted, for comparing two requests;
// absent params read as {}.
func Params(raw []byte) []byte {
	var msg struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(raw, &msg) != nil || msg.Params == nil {
		return []byte("{}")
	}
	delete(msg.Params, "_meta")
	b, _ := json.Marshal(msg.Params) // map keys sorted: members in any order compare equal
	return canonical(b)
}

// canonical compacts nested objects with sorted members (json.Marshal of what
// Unmarshal into any gives).
func canonical(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// With is a message with the value at path (member names from the top)
// replaced by value (JSON text), in place: every other byte stays as
// captured. The message is returned as it is when it has no such value.
func With(raw []byte, value string, path ...string) []byte {
	n, err := frame.Parse(raw)
	if err != nil {
		return raw
	}
	v, ok := n.Path(path...)
	if !ok || string(v.Raw()) == value {
		return raw
	}
	start, end := v.Span()
	out := make([]byte, 0, len(raw)-(end-start)+len(value))
	out = append(out, raw[:start]...)
	out = append(out, value...)
	return append(out, raw[end:]...)
}

// Read tells what a live message is, from one scan (frame.Parse): a request
// (method and id), a notification (method), a response (id and a result or an
// error, KindResult for both); its method and raw id. ok is false for text
// that is none of them.
func Read(raw []byte) (kind frame.Kind, method, id string, ok bool) {
	n, err := frame.Parse(raw)
	if err != nil || !n.IsObject() {
		return frame.KindInvalid, "", "", false
	}
	if m, ok := n.Get("method"); ok {
		method, _ = m.Str()
	}
	if v, ok := n.Get("id"); ok {
		id = string(v.Raw())
	}
	_, result := n.Get("result")
	_, failed := n.Get("error")
	switch {
	case method != "" && id != "":
		return frame.KindRequest, method, id, true
	case method != "":
		return frame.KindNotification, method, "", true
	case id != "" && (result || failed):
		return frame.KindResult, "", id, true
	}
	return frame.KindInvalid, "", "", false
}
