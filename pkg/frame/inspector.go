package frame

import (
	"bytes"
	"errors"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const inspectorName = "inspector-json"

// inspectorDecoder reads the MCP Inspector v2 "Protocol" export: a JSON array of
// MessageEntry {id, timestamp, direction: request|response|notification, origin:
// client|server, message, response?, duration?}, where a request's response is folded
// into the request's entry. Each entry is unfolded into its frames: the message, sent
// by origin; then the folded response, sent by the other side and placed at the time
// it arrived (timestamp + duration), so that messages logged in between (progress,
// a server's sampling request) keep their place before it. Every frame's Entry is the
// 1-based index of the entry that carried it, its Line the line of the file where its
// text starts (the entry's "message" or "response" member).
type inspectorDecoder struct {
	// held are folded responses not yet due, ordered by arrival time.
	held []heldFrame
}

type heldFrame struct {
	at    time.Time
	frame Frame
}

// maxHeldResponses bounds the folded responses waiting for their time.
const maxHeldResponses = 4096

func (*inspectorDecoder) name() string { return inspectorName }
func (*inspectorDecoder) describe() string {
	return "an MCP Inspector Protocol export (a JSON array of message entries)"
}

func (*inspectorDecoder) noFrames() string {
	return "an MCP Inspector export without message entries"
}

// inspectorEntry is what the decoder reads of an entry; members of the wrong type
// read as absent.
type inspectorEntry struct {
	Timestamp, Direction, Origin string
	Message, Response            Node
	Duration                     *float64
}

func readInspectorEntry(n Node) inspectorEntry {
	str := func(name string) string {
		m, _ := n.Get(name)
		s, _ := m.Str()
		return s
	}
	e := inspectorEntry{Timestamp: str("timestamp"), Direction: str("direction"), Origin: str("origin")}
	e.Message, _ = n.Get("message")
	e.Response, _ = n.Get("response")
	if d, ok := n.Get("duration"); ok {
		if v, ok := d.Float(); ok {
			e.Duration = &v
		}
	}
	return e
}

func (d *inspectorDecoder) next(r *Reader) error {
	doc := r.docInput
	if !doc.inArray && !doc.done {
		if err := doc.enter(nil, nil); err != nil {
			return err
		}
	}
	n, start, err := doc.entry()
	if err != nil {
		if errors.Is(err, io.EOF) && len(d.held) > 0 {
			d.release(r, time.Time{}, true)
			return nil
		}
		return err
	}
	r.stats.Lines++
	index := doc.entries
	e := readInspectorEntry(n)
	at := parseTime(gjson.Result{Type: gjson.String, Str: e.Timestamp}, time.Time{})
	d.release(r, at, false)

	dir, reason := inspectorDirection(e.Origin, e.Direction)
	// The frames keep their bytes past the entry's Node (jsonDoc.entry): copies.
	msg := bytes.Clone(e.Message.Raw())
	if len(msg) == 0 || e.Message.IsNull() {
		r.queueContext(start, index, "Inspector entry without a message")
		return nil
	}
	f := Frame{Source: r.name, Line: lineIn(n, start, e.Message), Entry: index, Time: at, Dir: dir, DirReason: reason, Offset: -1, view: r.newView()}
	decodeMessage(&f, msg)
	r.queueFrame(f)
	r.stats.FrameLines++

	resp := bytes.Clone(e.Response.Raw())
	if len(resp) == 0 || e.Response.IsNull() {
		return nil
	}
	answered := at
	if e.Duration != nil && !at.IsZero() && *e.Duration > 0 {
		answered = at.Add(time.Duration(*e.Duration * float64(time.Millisecond)))
	}
	rf := Frame{Source: r.name, Line: lineIn(n, start, e.Response), Entry: index, Time: answered, Dir: dir.Opposite(), Offset: -1, view: r.newView()}
	if dir == spec.DirUnknown {
		rf.DirReason = "the entry does not say who sent its request"
	}
	decodeMessage(&rf, resp)
	if answered.Equal(at) || answered.IsZero() {
		r.queueFrame(rf)
		return nil
	}
	d.hold(r, answered, rf)
	return nil
}

// hold keeps a folded response until an entry later than its arrival comes.
func (d *inspectorDecoder) hold(r *Reader, at time.Time, f Frame) {
	i := sort.Search(len(d.held), func(i int) bool { return d.held[i].at.After(at) })
	d.held = append(d.held, heldFrame{})
	copy(d.held[i+1:], d.held[i:])
	d.held[i] = heldFrame{at: at, frame: f}
	if len(d.held) > maxHeldResponses {
		r.queueFrame(d.held[0].frame)
		d.held = d.held[1:]
	}
}

// release queues the held responses that arrived before at (all of them at the end).
func (d *inspectorDecoder) release(r *Reader, at time.Time, all bool) {
	n := 0
	for n < len(d.held) && (all || (!at.IsZero() && d.held[n].at.Before(at))) {
		r.queueFrame(d.held[n].frame)
		n++
	}
	d.held = d.held[n:]
}

// inspectorDirection reads origin (client|server); older exports have none, and a few
// tools write a direction alias instead.
func inspectorDirection(origin, direction string) (spec.Direction, string) {
	switch strings.ToLower(origin) {
	case "client":
		return spec.C2S, ""
	case "server":
		return spec.S2C, ""
	}
	switch strings.ToLower(direction) {
	case "request", "response", "notification", "":
		return spec.DirUnknown, "the Inspector entry has no origin"
	}
	d, _, reason := parseDirection(gjson.Result{Type: gjson.String, Str: direction, Raw: `"` + direction + `"`})
	return d, reason
}

// inspectorFormat is the inspector format's entry in the table of input formats (its
// description is the decoder's own, describe).
var inspectorFormat = format{
	name:     inspectorName,
	document: true,
	newDoc:   func() docDecoder { return &inspectorDecoder{} },
}
