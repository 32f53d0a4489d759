package frame

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// referenceSSEEvents is the event-stream reading sseEvents must match: every
// event's data lines joined by newlines, in a buffer of its own.
func referenceSSEEvents(body string, emit func(event, data, id string)) (last string) {
	var data strings.Builder
	hasData := false
	event, id := "", ""
	dispatch := func() {
		if hasData && data.Len() > 0 {
			emit(event, data.String(), id)
		}
		data.Reset()
		hasData = false
		event, id = "", ""
	}
	for len(body) > 0 {
		i := strings.IndexAny(body, "\r\n")
		line := body
		if i < 0 {
			body = ""
		} else {
			line = body[:i]
			if body[i] == '\r' && i+1 < len(body) && body[i+1] == '\n' {
				i++
			}
			body = body[i+1:]
		}
		switch {
		case line == "":
			dispatch()
		case line[0] == ':':
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			if field == "event" {
				event = value
			}
			if field == "id" && !strings.ContainsRune(value, 0) {
				id, last = value, value
			}
			if field == "data" {
				if hasData {
					data.WriteByte('\n')
				}
				data.WriteString(value)
				hasData = true
			}
		}
	}
	dispatch()
	return last
}

// TestSSEEventsMatchesReference: the events and the last id sseEvents reads are
// the reference's, on streams of events of one data line (handed over where they
// stand), several (joined), empty ones, comments, ids and CR, LF and CRLF
// endings, and on random streams of those lines.
func TestSSEEventsMatchesReference(t *testing.T) {
	read := func(f func(string, func(event, data, id string)) string, body string) string {
		var b strings.Builder
		last := f(body, func(event, data, id string) { fmt.Fprintf(&b, "[%q %q %q]", event, data, id) })
		return b.String() + " last " + last
	}
	bodies := []string{
		"",
		"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n",
		"event: message\nid: 7\ndata: {\"a\":1}\n\n",
		"data: one\ndata: two\ndata:three\n\n",
		"data:\ndata:\n\n",
		"data:\n\n",
		"data: \n\ndata: x",
		": keep-alive\n\ndata: y\r\n\r\n",
		"data: a\rdata: b\r\r",
		"id: x\x00y\ndata: z\n\n",
		"event: endpoint\ndata: /messages?session=1\n\n",
	}
	pieces := []string{"data: {\"id\":1}", "data:", "data: ", "data: two words", "event: message", "id: 3", ": comment", "", "retry: 10", "data"}
	endings := []string{"\n", "\r\n", "\r"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
			b.WriteString(endings[rng.IntN(len(endings))])
		}
		bodies = append(bodies, b.String())
	}
	for _, body := range bodies {
		if got, want := read(sseEvents, body), read(referenceSSEEvents, body); got != want {
			t.Errorf("sseEvents(%q):\n got %s\nwant %s", body, got, want)
		}
	}
}
