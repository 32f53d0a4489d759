package frame

import (
	"bytes"
	"encoding/json"
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

type inspectorEntry struct {
	Timestamp string          `json:"timestamp"`
	Direction string          `json:"direction"`
	Origin    string          `json:"origin"`
	Message   json.RawMessage `json:"message"`
	Response  json.RawMessage `json:"response"`
	Duration  *float64        `json:"duration"`
}

func (d *inspectorDecoder) next(r *Reader) error {
	doc := r.docInput
	if !doc.inArray && !doc.done {
		if err := doc.enter(nil, nil); err != nil {
			return err
		}
	}
	var e inspectorEntry
	raw, start, err := doc.entry()
	if err == nil {
		err = doc.decodeEntry(raw, &e)
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(d.held) > 0 {
			d.release(r, time.Time{}, true)
			return nil
		}
		return err
	}
	r.stats.Lines++
	index := doc.entries
	at := parseTime(gjson.Result{Type: gjson.String, Str: e.Timestamp}, time.Time{})
	d.release(r, at, false)

	dir, reason := inspectorDirection(e.Origin, e.Direction)
	msg := bytes.TrimSpace(e.Message)
	if len(msg) == 0 || string(msg) == "null" {
		r.queueContext(start, index, "Inspector entry without a message")
		return nil
	}
	lineOf := func(member string) int { return lineIn(raw, start, gjson.GetBytes(raw, member).Index) }
	f := Frame{Source: r.name, Line: lineOf("message"), Entry: index, Time: at, Dir: dir, DirReason: reason, Offset: -1, view: r.newView()}
	decodeMessage(&f, msg)
	r.queueFrame(f)
	r.stats.FrameLines++

	resp := bytes.TrimSpace(e.Response)
	if len(resp) == 0 || string(resp) == "null" {
		return nil
	}
	answered := at
	if e.Duration != nil && !at.IsZero() && *e.Duration > 0 {
		answered = at.Add(time.Duration(*e.Duration * float64(time.Millisecond)))
	}
	rf := Frame{Source: r.name, Line: lineOf("response"), Entry: index, Time: answered, Dir: dir.Opposite(), Offset: -1, view: r.newView()}
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
