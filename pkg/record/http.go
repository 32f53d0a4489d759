package record

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpsleuth/mcpsleuth/pkg/redact"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// MaxBody bounds the HTTP body the proxy records whole; a larger one crosses
// unchanged and the recording says so.
const MaxBody = 16 << 20

// HTTPProxy is the Streamable HTTP recorder: a reverse proxy to the upstream
// server that forwards requests and responses unchanged (an event stream event by
// event, as it arrives) and records each JSON-RPC message of a request body, a
// JSON response body or an SSE event as an envelope record, with the exchange's
// headers and the Mcp-Session-Id as the record's session_id (the stream key check
// splits sessions by). A client's message is recorded before it is forwarded,
// a server's before the chunk that completes it is passed on. The first request
// of a session (initialize) carries no session id: it is recorded when the
// response names one, still before anything of the response.
//
// The exchange is kept in the record's "http" member (number, method, URL and
// headers on the client's message; status and headers on the server's); check
// pairs the two by exchange number, so MCP0005 http-error and MCP1011
// protocol-header-mismatch judge these recordings as they judge a HAR.
type HTTPProxy struct {
	rec       *Recording
	proxy     *httputil.ReverseProxy
	exchanges atomic.Int64
	// held bounds the bytes of the bodies held to be recorded, over every
	// exchange in flight: a body that finds no room crosses unrecorded, and the
	// recording says so.
	held budget
	// endpoints maps the POST endpoints HTTP+SSE streams named (path and query,
	// as the client sends them) to their session key: a POST to one carries no
	// Mcp-Session-Id, and belongs to the stream's session.
	endpoints sseEndpoints
}

// sseEndpoints is the set of HTTP+SSE endpoints a proxy saw named, bounded, safe
// for concurrent use.
type sseEndpoints struct {
	mu    sync.Mutex
	keys  map[string]string
	order []string
}

// maxEndpoints bounds the endpoints a proxy remembers (one a session).
const maxEndpoints = 4096

func (e *sseEndpoints) add(uri, key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.keys == nil {
		e.keys = map[string]string{}
	}
	if _, ok := e.keys[uri]; !ok {
		e.order = append(e.order, uri)
	}
	e.keys[uri] = key
	if len(e.order) > maxEndpoints {
		delete(e.keys, e.order[0])
		e.order = e.order[1:]
	}
}

func (e *sseEndpoints) key(uri string) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	k, ok := e.keys[uri]
	return k, ok
}

// maxHeldBodies bounds the bytes of bodies the proxy holds at once (issue 29:
// 16 requests of 15 MB held 600 MiB).
const maxHeldBodies = 64 << 20

// budget is a count of bytes taken from a bound, safe for concurrent use.
type budget struct {
	mu   sync.Mutex
	used int
}

// take takes n bytes if they fit under maxHeldBodies.
func (b *budget) take(n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > maxHeldBodies {
		return false
	}
	b.used += n
	return true
}

// give gives n bytes back.
func (b *budget) give(n int) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// NewHTTPProxy proxies to upstream's scheme and host, keeping each request's
// path and query (the client uses the upstream's path on the proxy), and records
// into rec.
func NewHTTPProxy(upstream *url.URL, rec *Recording) *HTTPProxy {
	p := &HTTPProxy{rec: rec}
	p.proxy = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.URL.Scheme, pr.Out.URL.Host = upstream.Scheme, upstream.Host
			pr.Out.Host = upstream.Host
		},
		FlushInterval:  -1, // every write reaches the client at once (SSE)
		ModifyResponse: p.response,
		ErrorHandler:   p.upstreamError,
	}
	return p
}

// exchange is one request in flight.
type exchange struct {
	n       int
	method  string
	url     string
	session string // the request's Mcp-Session-Id, or its HTTP+SSE session's key
	// rawURL is the request's path and query as sent (url is masked under
	// --redact); endpoint is set on a POST to an HTTP+SSE endpoint.
	rawURL, endpoint string
	headers          map[string]string
	body             []byte
	unrecord         int // a body over MaxBody: its size so far, not recorded
	// crowded says the body found no room under the proxy's bound: it crossed
	// unrecorded.
	crowded   bool
	held      int // the bytes of the bound the body holds until it is recorded
	requested sync.Once
}

type exchangeKey struct{}

// ServeHTTP proxies one request.
func (p *HTTPProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ex := &exchange{
		n:       int(p.exchanges.Add(1)),
		method:  r.Method,
		url:     r.URL.RequestURI(),
		rawURL:  r.URL.RequestURI(),
		session: r.Header.Get("Mcp-Session-Id"),
		headers: p.headers(r.Header),
	}
	if key, ok := p.endpoints.key(ex.url); ok && ex.session == "" {
		ex.session, ex.endpoint = key, ex.url // a message of an HTTP+SSE session
	}
	if p.rec.redact {
		ex.url = redact.MaskSecrets(ex.url)
		ex.endpoint = redact.MaskSecrets(ex.endpoint)
	}
	if r.Body != nil && r.Body != http.NoBody {
		// Room for the body under the proxy's bound: its length, or the most
		// a body is recorded whole when it does not say.
		need := MaxBody + 1
		if r.ContentLength >= 0 && r.ContentLength <= MaxBody {
			need = int(r.ContentLength)
		}
		if r.ContentLength > MaxBody || !p.held.take(need) {
			ex.crowded = r.ContentLength <= MaxBody
			ex.unrecord = int(max(r.ContentLength, 0))
			if ex.session != "" {
				p.recordRequest(ex, ex.session)
			}
			p.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
			return
		}
		ex.held = need
		body, err := readBody(r.Body, r.ContentLength)
		switch {
		case err != nil:
			p.held.give(ex.held)
			p.rec.exchangeEvent(ex.session, p.request(ex), "reading the request body failed: %v", err)
			http.Error(w, "mcpsleuth record: cannot read the request body", http.StatusBadRequest)
			return
		case len(body) > MaxBody:
			ex.unrecord = len(body)
			r.Body = readCloser{Reader: io.MultiReader(bytes.NewReader(body), r.Body), Closer: r.Body}
		default:
			ex.body = body
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
	}
	if ex.session != "" {
		p.recordRequest(ex, ex.session)
	}
	p.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, ex)))
}

// readBody reads a request body of up to MaxBody+1 bytes: into memory of its
// declared length when it has one (no growing copies of a 15 MB body).
func readBody(body io.Reader, length int64) ([]byte, error) {
	if length < 0 || length > MaxBody {
		return io.ReadAll(io.LimitReader(body, MaxBody+1))
	}
	buf := make([]byte, length)
	n, err := io.ReadFull(body, buf)
	if err == nil {
		var one [1]byte
		if m, _ := body.Read(one[:]); m > 0 { // more than it declared: read the rest as it comes
			rest, err := io.ReadAll(io.LimitReader(body, MaxBody+1-length-1))
			return append(append(buf, one[0]), rest...), err
		}
	}
	return buf[:n], err
}

type readCloser struct {
	io.Reader
	io.Closer
}

// request is the request side of an exchange, for a record.
func (p *HTTPProxy) request(ex *exchange) *Exchange {
	return &Exchange{N: ex.n, Method: ex.method, URL: ex.url, Headers: ex.headers, Endpoint: ex.endpoint}
}

// recordRequest records the client's side of an exchange, once.
func (p *HTTPProxy) recordRequest(ex *exchange, session string) {
	ex.requested.Do(func() {
		switch {
		case ex.crowded:
			p.rec.exchangeEvent(session, p.request(ex), "%s %s: the body crossed unrecorded: the recorder held %d MiB of other bodies", ex.method, ex.url, maxHeldBodies>>20)
		case ex.unrecord > 0:
			p.rec.exchangeEvent(session, p.request(ex), "%s %s: a body over %d bytes crossed unrecorded", ex.method, ex.url, MaxBody)
		case len(bytes.TrimSpace(ex.body)) > 0:
			p.rec.exchangeFrame(spec.C2S, session, p.request(ex), ex.body) // the recording's now
		default:
			p.rec.exchangeEvent(session, p.request(ex), "%s %s", ex.method, ex.url)
		}
		ex.body = nil
		p.held.give(ex.held) // the recording's queue bounds it from here
		ex.held = 0
	})
}

// response records the response's headers and wraps its body to record what it carries.
func (p *HTTPProxy) response(resp *http.Response) error {
	ex, _ := resp.Request.Context().Value(exchangeKey{}).(*exchange)
	if ex == nil {
		return nil
	}
	session := ex.session
	if session == "" {
		session = resp.Header.Get("Mcp-Session-Id")
	}
	p.recordRequest(ex, session)
	meta := &Exchange{N: ex.n, Status: resp.StatusCode, Headers: p.headers(resp.Header), Endpoint: ex.endpoint}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case media == "text/event-stream":
		b := &sseBody{body: resp.Body, rec: p.rec, session: session, meta: meta, split: lines{max: MaxBody}, held: &p.held}
		if ex.method == http.MethodGet && ex.session == "" {
			b.opens = &opening{streamURL: ex.rawURL, endpoints: &p.endpoints}
		}
		resp.Body = b
	case media == "application/json":
		resp.Body = &wholeBody{body: resp.Body, rec: p.rec, session: session, meta: meta, media: media, json: true, status: resp.Status, held: &p.held}
	default:
		// A body that holds no message: its status is recorded now, as the
		// client learns it, so that what the client does on it (a DELETE after
		// a refused call) is recorded after it; the body follows as it ends.
		label := media
		if label == "" {
			label = "no Content-Type"
		}
		p.rec.exchangeEvent(session, meta, "HTTP %s (%s)", resp.Status, label)
		resp.Body = &wholeBody{body: resp.Body, rec: p.rec, session: session, meta: meta, media: media, status: resp.Status, held: &p.held, statusWritten: true}
	}
	return nil
}

// upstreamError records a request the upstream never answered: with the 502 the
// proxy answers, or, when the client went away first (its request's context
// ended), with no status at all, as the client saw it: a HAR of the same
// exchange has none either.
func (p *HTTPProxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	gone := errors.Is(err, context.Canceled) && r.Context().Err() != nil
	if ex, _ := r.Context().Value(exchangeKey{}).(*exchange); ex != nil {
		p.recordRequest(ex, ex.session)
		if gone {
			p.rec.exchangeEvent(ex.session, &Exchange{N: ex.n}, "the client gave up before the upstream answered")
		} else {
			p.rec.exchangeEvent(ex.session, &Exchange{N: ex.n, Status: http.StatusBadGateway}, "the upstream did not answer: %v", err)
		}
	}
	if gone {
		return
	}
	w.WriteHeader(http.StatusBadGateway)
}

// headers is a header set as the recording keeps it: one value a name (repeated
// values joined by ", "), secrets masked under --redact.
func (p *HTTPProxy) headers(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	out := make(map[string]string, len(h))
	for name, values := range h {
		out[name] = strings.Join(values, ", ")
	}
	if !p.rec.redact {
		return out
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil
	}
	masked := map[string]string{}
	if json.Unmarshal(redact.Kept(raw, nil), &masked) != nil {
		return nil
	}
	return masked
}

// wholeBody records a response body once it is read to its end: a JSON body as
// the message (or batch) it holds, anything else as a context record with its
// first bytes.
type wholeBody struct {
	body    io.ReadCloser
	rec     *Recording
	session string
	meta    *Exchange
	json    bool // labelled application/json
	status  string
	buf     bytes.Buffer
	size    int
	done    bool
	// held is the proxy's bound; taken the bytes of it buf holds; crowded says
	// the body found no room and is not recorded.
	held    *budget
	taken   int
	crowded bool
	// statusWritten says the status and headers were recorded with the
	// headers: what the body was is recorded on its own, and an empty body
	// adds nothing.
	statusWritten bool
	// media is the response's media type ("" without a Content-Type).
	media string
}

// maxShownBody is how much of a body that is no message the recording quotes.
const maxShownBody = 4 << 10

func (b *wholeBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.size += n
	if keep := min(n, MaxBody+1-b.buf.Len()); keep > 0 && !b.crowded {
		if b.held.take(keep) {
			b.taken += keep
			b.buf.Write(p[:keep])
		} else {
			b.crowded = true
			b.release()
		}
	}
	if errors.Is(err, io.EOF) {
		b.finish(true)
	}
	return n, err
}

func (b *wholeBody) Close() error {
	b.finish(false)
	return b.body.Close()
}

func (b *wholeBody) finish(complete bool) {
	if b.done {
		return
	}
	b.done = true
	body := bytes.TrimSpace(b.buf.Bytes())
	defer b.release()
	meta := b.meta
	if b.statusWritten {
		meta = &Exchange{N: b.meta.N} // the status and headers are in the exchange's record already
	}
	// framed is the record of a message read from the body as the media type
	// as: one its label, if it has one, did not say (the messages crossed all
	// the same, and the records say how the body was read).
	framed := func(as string) *Exchange {
		m := *b.meta
		if b.statusWritten {
			m.Headers = nil
		}
		if b.media != "" && b.media != as {
			m.BodyAs = as
		}
		return &m
	}
	switch {
	case b.crowded:
		b.rec.exchangeEvent(b.session, meta, "HTTP %s: a body of %d bytes crossed unrecorded: the recorder held %d MiB of other bodies", b.status, b.size, maxHeldBodies>>20)
	case !complete && b.size > 0:
		b.rec.exchangeEvent(b.session, meta, "HTTP %s: the body was not read to its end (%d bytes crossed)", b.status, b.size)
	case b.size > MaxBody:
		b.rec.exchangeEvent(b.session, meta, "HTTP %s: a body of %d bytes crossed unrecorded", b.status, b.size)
	case spec.StartsEventStream(string(body[:min(len(body), spec.MaxEventStreamFieldPrefix)])):
		events := &sseBody{rec: b.rec, session: b.session, meta: framed(spec.EventStreamType), split: lines{max: MaxBody}, held: &budget{}}
		events.split.feed(body, events.line, events.tooLong)
		events.split.feed([]byte("\n\n"), events.line, events.tooLong)
	case b.json && len(body) > 0:
		b.rec.exchangeFrame(spec.S2C, b.session, b.meta, body) // the recording's now
	case looksLikeJSONValue(body):
		b.rec.exchangeFrame(spec.S2C, b.session, framed(spec.JSONType), body)
	case len(body) == 0 && b.statusWritten:
	case len(body) == 0:
		b.rec.exchangeEvent(b.session, meta, "HTTP %s (no body)", b.status)
	default:
		shown := body
		if len(shown) > maxShownBody {
			shown = shown[:maxShownBody]
		}
		b.rec.exchangeEvent(b.session, meta, "HTTP %s: %s", b.status, shown)
	}
}

// release gives back what the body held of the bound, and lets go of it.
func (b *wholeBody) release() {
	b.held.give(b.taken)
	b.taken = 0
	b.buf = bytes.Buffer{}
}

// sseBody records each event of an event stream as it passes: an event's data
// is the message; events without data (priming events, keep-alives) are not
// recorded.
type sseBody struct {
	body    io.ReadCloser
	rec     *Recording
	session string
	meta    *Exchange
	split   lines
	data    []byte
	hasData bool
	// over counts the data of an event that outgrew MaxBody (it is not
	// recorded; 0: none): an event without its blank line is never held whole.
	over  int
	event string
	id    string
	// lastID is the stream's last event id: the last id field of an event it
	// dispatched, with or without data.
	lastID string
	ended  bool
	// held is the proxy's bound, taken the bytes of it data holds; crowded
	// says the event found no room under it.
	held    *budget
	taken   int
	crowded bool
	// opens is set on a GET stream without a session, which may be an HTTP+SSE
	// stream: its endpoint event names the session.
	opens *opening
	// framed is set once a line of the stream was an event field or a
	// comment; until then unframed keeps the lines that were not (a body
	// labelled text/event-stream that holds one JSON value instead).
	framed   bool
	unframed []byte
}

// opening is what an event stream needs to open an HTTP+SSE session.
type opening struct {
	streamURL string
	endpoints *sseEndpoints
}

func (b *sseBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	if n > 0 {
		b.split.feed(p[:n], b.line, b.tooLong)
	}
	if err != nil {
		b.end(err)
	}
	return n, err
}

func (b *sseBody) Close() error {
	b.end(nil)
	return b.body.Close()
}

func (b *sseBody) end(err error) {
	if b.ended {
		return
	}
	b.ended = true
	b.split.feed([]byte("\n"), b.line, b.tooLong) // a last line without its newline (an event without its blank line is still not dispatched)
	if !b.framed {
		if body := bytes.TrimSpace(b.unframed); looksLikeJSONValue(body) {
			// Labelled an event stream, framed as one JSON value: its message
			// crossed all the same, and the record says how the body was read.
			meta := *b.meta
			meta.BodyAs = spec.JSONType
			b.rec.exchangeFrame(spec.S2C, b.session, &meta, body)
		}
	}
	b.held.give(b.taken) // an event the stream ended inside is not recorded
	b.data, b.taken, b.unframed = nil, 0, nil
	meta := *b.meta
	meta.StreamEnded, meta.StreamLastID = true, b.lastID
	switch {
	case err == nil, errors.Is(err, io.EOF):
		b.rec.exchangeEvent(b.session, &meta, "the event stream ended")
	default:
		b.rec.exchangeEvent(b.session, &meta, "the event stream broke off: %v", err)
	}
}

func (b *sseBody) tooLong(n int) {
	b.rec.exchangeEvent(b.session, &Exchange{N: b.meta.N}, "an event line of %d bytes crossed unrecorded", n)
}

// line handles one line of the stream (text/event-stream, WHATWG HTML 9.2).
func (b *sseBody) line(l []byte) {
	l = bytes.TrimSuffix(l, []byte("\r"))
	if len(l) == 0 {
		b.dispatch()
		return
	}
	if l[0] == ':' {
		b.framed, b.unframed = true, nil
		return // a comment
	}
	field, value, _ := bytes.Cut(l, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	if spec.EventStreamField(string(field)) {
		b.framed, b.unframed = true, nil
	} else if !b.framed && len(b.unframed)+len(l) < MaxBody {
		b.unframed = append(append(b.unframed, l...), '\n')
	}
	switch string(field) {
	case "data":
		sep := 0 // a newline between data lines, even empty ones
		if b.hasData {
			sep = 1
		}
		b.hasData = true
		if b.over == 0 && len(b.data)+sep+len(value) <= MaxBody {
			if b.held.take(sep + len(value)) {
				b.taken += sep + len(value)
				if sep == 1 {
					b.data = append(b.data, '\n')
				}
				b.data = append(b.data, value...)
				return
			}
			b.crowded = true
		}
		b.over += len(b.data) + sep + len(value)
		b.data = nil
	case "event":
		b.event = string(value)
	case "id":
		b.id = string(value)
	}
}

func (b *sseBody) dispatch() {
	if b.id != "" {
		b.lastID = b.id
	}
	switch {
	case b.over > 0 && b.crowded:
		b.rec.exchangeEvent(b.session, &Exchange{N: b.meta.N}, "an event of %d bytes of data crossed unrecorded: the recorder held %d MiB of other bodies", b.over, maxHeldBodies>>20)
	case b.over > 0:
		b.rec.exchangeEvent(b.session, &Exchange{N: b.meta.N}, "an event of %d bytes of data crossed unrecorded (over %d bytes)", b.over, MaxBody)
	case b.hasData && b.event == "endpoint" && b.opens != nil && b.meta.Endpoint == "":
		// HTTP+SSE: the URI the client POSTs its messages to, not a message. The
		// stream and the POSTs to it are one session from here on.
		if uri, key, ok := spec.SSEEndpoint(b.opens.streamURL, string(b.data)); ok {
			b.opens.endpoints.add(uri, key)
			b.session, b.meta.Endpoint = key, uri
			if b.rec.redact {
				b.meta.Endpoint = redact.MaskSecrets(uri)
			}
			meta := *b.meta
			meta.Event = b.event
			b.rec.exchangeEvent(b.session, &meta, "endpoint event: the client POSTs its messages to %s", meta.Endpoint)
			b.meta.Headers = nil
			break
		}
		fallthrough
	case b.hasData && len(bytes.TrimSpace(b.data)) > 0:
		meta := *b.meta
		meta.Event, meta.EventID = b.event, b.id
		b.rec.exchangeFrame(spec.S2C, b.session, &meta, b.data) // the recording's now
		b.meta.Headers = nil                                    // the status and headers are in the stream's first record
	}
	b.held.give(b.taken) // the recording's queue bounds what it took
	b.data, b.hasData, b.event, b.id, b.over, b.taken, b.crowded = nil, false, "", "", 0, 0, false
}

// looksLikeJSONValue reports whether a body is one JSON object or array.
func looksLikeJSONValue(body []byte) bool {
	return len(body) > 0 && (body[0] == '{' || body[0] == '[') && json.Valid(body)
}
