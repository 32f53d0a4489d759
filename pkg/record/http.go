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
	n         int
	method    string
	url       string
	session   string // the request's Mcp-Session-Id
	headers   map[string]string
	body      []byte
	unrecord  int // a body over MaxBody: its size so far, not recorded
	requested sync.Once
}

type exchangeKey struct{}

// ServeHTTP proxies one request.
func (p *HTTPProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ex := &exchange{
		n:       int(p.exchanges.Add(1)),
		method:  r.Method,
		url:     r.URL.RequestURI(),
		session: r.Header.Get("Mcp-Session-Id"),
		headers: p.headers(r.Header),
	}
	if p.rec.redact {
		ex.url = redact.MaskSecrets(ex.url)
	}
	if r.Body != nil && r.Body != http.NoBody {
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		switch {
		case err != nil:
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

type readCloser struct {
	io.Reader
	io.Closer
}

// request is the request side of an exchange, for a record.
func (p *HTTPProxy) request(ex *exchange) *Exchange {
	return &Exchange{N: ex.n, Method: ex.method, URL: ex.url, Headers: ex.headers}
}

// recordRequest records the client's side of an exchange, once.
func (p *HTTPProxy) recordRequest(ex *exchange, session string) {
	ex.requested.Do(func() {
		switch {
		case ex.unrecord > 0:
			p.rec.exchangeEvent(session, p.request(ex), "%s %s: a body over %d bytes crossed unrecorded", ex.method, ex.url, MaxBody)
		case len(bytes.TrimSpace(ex.body)) > 0:
			p.rec.exchangeFrame(spec.C2S, session, p.request(ex), ex.body)
		default:
			p.rec.exchangeEvent(session, p.request(ex), "%s %s", ex.method, ex.url)
		}
		ex.body = nil
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
	meta := &Exchange{N: ex.n, Status: resp.StatusCode, Headers: p.headers(resp.Header)}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case media == "text/event-stream":
		resp.Body = &sseBody{body: resp.Body, rec: p.rec, session: session, meta: meta, split: lines{max: MaxBody}}
	default:
		resp.Body = &wholeBody{body: resp.Body, rec: p.rec, session: session, meta: meta, json: media == "application/json", status: resp.Status}
	}
	return nil
}

// upstreamError records a request the upstream never answered.
func (p *HTTPProxy) upstreamError(w http.ResponseWriter, r *http.Request, err error) {
	if ex, _ := r.Context().Value(exchangeKey{}).(*exchange); ex != nil {
		p.recordRequest(ex, ex.session)
		p.rec.exchangeEvent(ex.session, &Exchange{N: ex.n, Status: http.StatusBadGateway}, "the upstream did not answer: %v", err)
	}
	if errors.Is(err, context.Canceled) {
		return // the client went away
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
	json    bool
	status  string
	buf     bytes.Buffer
	size    int
	done    bool
}

// maxShownBody is how much of a body that is no message the recording quotes.
const maxShownBody = 4 << 10

func (b *wholeBody) Read(p []byte) (int, error) {
	n, err := b.body.Read(p)
	b.size += n
	if b.buf.Len() < MaxBody+1 {
		b.buf.Write(p[:min(n, MaxBody+1-b.buf.Len())])
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
	switch {
	case !complete && b.size > 0:
		b.rec.exchangeEvent(b.session, b.meta, "HTTP %s: the body was not read to its end (%d bytes crossed)", b.status, b.size)
	case b.size > MaxBody:
		b.rec.exchangeEvent(b.session, b.meta, "HTTP %s: a body of %d bytes crossed unrecorded", b.status, b.size)
	case b.json && len(body) > 0:
		b.rec.exchangeFrame(spec.S2C, b.session, b.meta, body)
	case len(body) == 0:
		b.rec.exchangeEvent(b.session, b.meta, "HTTP %s (no body)", b.status)
	default:
		shown := body
		if len(shown) > maxShownBody {
			shown = shown[:maxShownBody]
		}
		b.rec.exchangeEvent(b.session, b.meta, "HTTP %s: %s", b.status, shown)
	}
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
	event   string
	id      string
	ended   bool
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
	switch {
	case err == nil, errors.Is(err, io.EOF):
		b.rec.exchangeEvent(b.session, b.meta, "the event stream ended")
	default:
		b.rec.exchangeEvent(b.session, b.meta, "the event stream broke off: %v", err)
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
		return // a comment
	}
	field, value, _ := bytes.Cut(l, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(field) {
	case "data":
		if b.hasData {
			b.data = append(b.data, '\n')
		}
		b.data = append(b.data, value...)
		b.hasData = true
	case "event":
		b.event = string(value)
	case "id":
		b.id = string(value)
	}
}

func (b *sseBody) dispatch() {
	if b.hasData && len(bytes.TrimSpace(b.data)) > 0 {
		meta := *b.meta
		meta.Event, meta.EventID = b.event, b.id
		b.rec.exchangeFrame(spec.S2C, b.session, &meta, b.data)
		b.meta.Headers = nil // the status and headers are in the stream's first record
	}
	b.data, b.hasData, b.event = b.data[:0], false, ""
}
