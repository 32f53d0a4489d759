package frame

import (
	"net/url"
	"time"
)

// The 2024-11-05 HTTP+SSE transport in a HAR. A client opens the session with a GET
// whose event stream stays open for the whole session: its first event, endpoint,
// names the URI the client POSTs every message to (`/messages?sessionId=...`), and
// every server message, responses included, travels on that stream. A HAR records
// the stream as one entry that starts before the initialize POST and holds every
// event of the session, with no time for each event. Handed out where the entry
// starts, every server message would come before the client's initialize.
//
// So the decoder holds a stream's messages and places them among the later entries
// of its session by what each one must follow or precede (the order of the events
// within the stream is kept):
//
//   - a response comes out right after the POST that carried its request, and with
//     it every event before it on the stream (they arrived before it);
//   - a server request comes out, at the latest, before the POST that carries the
//     client's response to it;
//   - what nothing forces out comes out at the end of the capture.
//
// Notifications and server requests therefore wait until something forces them
// out: they arrived after the event before them and before the event after them,
// which is all a HAR can tell (the entry's time is not used: exporters write the
// time to the first byte of a stream as often as the time to its end). A held message gets the start time of the entry it
// comes out after (never before the stream's start): a lower bound of when it
// arrived, so that the capture's times stay in order and no latency is
// overestimated. A recording of mcpsleuth record --http keeps each event's own time
// and needs none of this.
//
// The session key of an HTTP+SSE session is the endpoint's sessionId (or
// sessionid) query parameter, else the endpoint's path and query: the GET's
// messages and the POSTs to the endpoint share it, and each exchange of the session
// carries the endpoint in HTTP.Endpoint, which is how the rules tell the transport
// from Streamable HTTP (whatever revision the session negotiates).

// sseStream is an HTTP+SSE event stream whose messages wait for their place.
type sseStream struct {
	key     string
	started time.Time
	held    []Frame
	bytes   int
	// asked holds the ids of the client requests POSTed on the session whose
	// response has not come out yet.
	asked map[string]bool
}

// Bounds of what held streams keep: events past them come out oldest first.
const (
	maxHeldEvents     = 4096
	maxHeldBytes      = 32 << 20
	maxKnownEndpoints = 1024
)

// requestURI is the path and query of a request URL (the URL itself when it does
// not parse).
func requestURI(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.RequestURI()
	}
	return raw
}

// rememberEndpoint maps an endpoint's URI to its session key.
func (d *harDecoder) rememberEndpoint(uri, key string) {
	if d.endpoints == nil {
		d.endpoints = map[string]string{}
	}
	if _, ok := d.endpoints[uri]; !ok {
		d.endpointOrder = append(d.endpointOrder, uri)
	}
	d.endpoints[uri] = key
	if len(d.endpointOrder) > maxKnownEndpoints {
		delete(d.endpoints, d.endpointOrder[0])
		d.endpointOrder = d.endpointOrder[1:]
	}
}

// hold keeps the messages of a newly handed-out HTTP+SSE stream.
func (d *harDecoder) hold(s *sseStream) {
	d.streams = append(d.streams, s)
}

// beforeEntry advances the clock held events take their time from to the start of
// the entry about to be handed out.
func (d *harDecoder) beforeEntry(started time.Time) {
	if started.After(d.clock) {
		d.clock = started
	}
}

// beforeClient releases, before the client's message f on session key is queued,
// the server requests on the session's streams that f answers, and every event
// before them.
func (d *harDecoder) beforeClient(r *Reader, key string, f *Frame) {
	if len(d.streams) == 0 {
		return
	}
	answers := map[string]bool{}
	eachMessage(f, func(m *Frame) {
		if (m.Kind == KindResult || m.Kind == KindError) && m.ID != "" {
			answers[m.ID] = true
		}
	})
	if len(answers) == 0 {
		return
	}
	for _, s := range d.streams {
		if s.key != key {
			continue
		}
		last := -1
		for i := range s.held {
			eachMessage(&s.held[i], func(m *Frame) {
				if m.Kind == KindRequest && answers[m.ID] {
					last = i
				}
			})
		}
		d.release(r, s, last+1)
	}
}

// afterClient records the requests the client's message f carried on session key,
// and releases the responses to them that the session's streams hold, with every
// event before them.
func (d *harDecoder) afterClient(r *Reader, key string, f *Frame) {
	for _, s := range d.streams {
		if s.key != key {
			continue
		}
		eachMessage(f, func(m *Frame) {
			if m.Kind == KindRequest && m.ID != "" {
				if s.asked == nil {
					s.asked = map[string]bool{}
				}
				if len(s.asked) < maxHeldEvents {
					s.asked[m.ID] = true
				}
			}
		})
		d.settle(r, s)
	}
}

// settle releases a stream's events up to its last response to a request the
// client has sent.
func (d *harDecoder) settle(r *Reader, s *sseStream) {
	last := -1
	for i := range s.held {
		eachMessage(&s.held[i], func(m *Frame) {
			if (m.Kind == KindResult || m.Kind == KindError) && s.asked[m.ID] {
				last = i
			}
		})
	}
	d.release(r, s, last+1)
}

// release queues the first n held events of s, and any beyond the bounds.
func (d *harDecoder) release(r *Reader, s *sseStream, n int) {
	left := s.bytes
	for i := range s.held[:max(n, 0)] {
		left -= len(s.held[i].Raw)
	}
	for n < len(s.held) && (len(s.held)-n > maxHeldEvents || left > maxHeldBytes) {
		left -= len(s.held[n].Raw)
		n++
	}
	if n <= 0 {
		return
	}
	at := d.clock
	if at.Before(s.started) {
		at = s.started
	}
	for i := range s.held[:n] {
		f := s.held[i]
		eachMessage(&f, func(m *Frame) {
			if m.Kind == KindResult || m.Kind == KindError {
				delete(s.asked, m.ID)
			}
		})
		f.Time = at
		for j := range f.Members {
			f.Members[j].Time = at
		}
		s.bytes -= len(f.Raw)
		r.queueFrame(f)
	}
	rest := copy(s.held, s.held[n:])
	clear(s.held[rest:])
	s.held = s.held[:rest]
}

// releaseAll queues every held event (the capture ended) and reports whether there
// were any.
func (d *harDecoder) releaseAll(r *Reader) bool {
	any := false
	for _, s := range d.streams {
		any = any || len(s.held) > 0
		d.release(r, s, len(s.held))
	}
	clear(d.streams)
	d.streams = d.streams[:0]
	return any
}

// eachMessage calls fn with f, or with each member of a batch.
func eachMessage(f *Frame, fn func(*Frame)) {
	if f.Kind == KindBatch {
		for i := range f.Members {
			fn(&f.Members[i])
		}
		return
	}
	fn(f)
}
