package mock

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// Handler serves the mock over Streamable HTTP at any path: a POST carries a
// client's message; a request is answered with an event stream of what the
// captured server sent for it (or, when that is the response alone, JSON), a
// notification or response with 202; a GET opens the stream that carries what
// the server sends outside any request (405 without Accept: text/event-stream);
// the initialize response assigns an Mcp-Session-Id.
func (m *Mock) Handler() http.Handler {
	h := &httpMock{m: m, waiting: map[string]chan []byte{}}
	h.standalone = make(chan []byte, 1024)
	for _, msg := range m.Start() {
		h.standalone <- msg
	}
	return h
}

type httpMock struct {
	m          *Mock
	mu         sync.Mutex
	waiting    map[string]chan []byte // live request id -> its POST stream, waiting for its response
	standalone chan []byte            // for the GET stream
	listening  int                    // GET streams open
	sessionID  string
}

// listened reports whether a GET stream is open.
func (h *httpMock) listened() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.listening > 0
}

func (h *httpMock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
	}
}

func (h *httpMock) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxMessage+1))
	if err != nil || len(body) > maxMessage {
		http.Error(w, "mcpsleuth mock: cannot read the message", http.StatusBadRequest)
		return
	}
	var requests []incoming
	var out [][]byte
	for _, msg := range messages(body) {
		in, ok := read(msg)
		if ok && in.kind == frame.KindRequest {
			requests = append(requests, in)
		}
		out = append(out, h.m.Receive(msg)...)
	}
	if len(requests) == 0 {
		h.deliver(out, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	// The responses of this POST's requests end its stream; what else the
	// server sent for them goes on it too.
	mine := make(chan []byte, len(out)+16)
	pending := map[string]bool{}
	h.mu.Lock()
	for _, in := range requests {
		pending[in.id] = true
		h.waiting[in.id] = mine
		if in.method == "initialize" && h.sessionID == "" {
			h.sessionID = newSessionID()
		}
	}
	sessionID := h.sessionID
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		for id := range pending {
			delete(h.waiting, id)
		}
		h.mu.Unlock()
	}()
	h.deliver(out, mine)
	if sessionID != "" {
		w.Header().Set("Mcp-Session-Id", sessionID)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	write := func(msg []byte) {
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
		if flusher != nil {
			flusher.Flush()
		}
		if id, ok := responseID(msg); ok {
			delete(pending, id)
		}
	}
	for len(pending) > 0 {
		select {
		case msg := <-mine:
			if _, ok := responseID(msg); ok && !h.listened() {
				// No GET stream: what the captured server sent after this
				// response would reach no one. It goes first, on this stream.
				var later [][]byte
				for more := true; more; {
					select {
					case m := <-mine:
						later = append(later, m)
					default:
						more = false
					}
				}
				for _, m := range later {
					if _, isResponse := responseID(m); !isResponse {
						write(m)
					}
				}
				write(msg)
				for _, m := range later {
					if _, isResponse := responseID(m); isResponse {
						write(m)
					}
				}
			} else {
				write(msg)
			}
			if len(pending) == 0 {
				// The stream ends with its last response: what the captured
				// server sent after it goes on the GET stream.
				for {
					select {
					case later := <-mine:
						h.deliver([][]byte{later}, nil)
						continue
					default:
					}
					break
				}
			}
		case <-r.Context().Done():
			return // the captured server never answered: neither does the mock
		}
	}
}

// deliver sends the server's messages where they belong: a response to the
// POST stream waiting for it, anything else to mine (the stream of the POST
// being answered) or, without one, to the GET stream.
func (h *httpMock) deliver(out [][]byte, mine chan []byte) {
	for _, msg := range out {
		if id, ok := responseID(msg); ok {
			h.mu.Lock()
			ch := h.waiting[id]
			h.mu.Unlock()
			if ch != nil {
				ch <- msg
				continue
			}
		}
		if mine != nil {
			mine <- msg
			continue
		}
		select {
		case h.standalone <- msg:
		default: // no GET stream reads: the client would not have seen it either
		}
	}
}

func (h *httpMock) get(w http.ResponseWriter, r *http.Request) {
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		w.Header().Set("Allow", "POST, DELETE")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	h.mu.Lock()
	h.listening++
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.listening--
		h.mu.Unlock()
	}()
	for {
		select {
		case msg := <-h.standalone:
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg)
			if flusher != nil {
				flusher.Flush()
			}
		case <-r.Context().Done():
			return
		}
	}
}

// responseID is the id of a response ("" and false for other messages).
func responseID(msg []byte) (string, bool) {
	in, ok := read(msg)
	if !ok || !in.kind.IsResponse() {
		return "", false
	}
	return in.id, true
}

func newSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
