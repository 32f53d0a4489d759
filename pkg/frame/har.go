package frame

import (
	"bytes"
	"container/heap"
	"encoding/base64"
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

const harName = "har"

// harDecoder reads a HAR 1.2 capture of Streamable HTTP traffic (browser DevTools,
// mitmproxy, a recording reverse proxy): {"log":{"creator":...,"entries":[...]}}, one
// entry per HTTP exchange. An entry carries the client's message (or batch) in the
// POST body and the server's messages in the response body: one JSON value, or
// text/event-stream events (priming events with an empty data field carry nothing).
// Every frame of an entry has the entry's 1-based index as its Entry, the line of the
// file its body's text starts on as its Line (request.postData.text for the client's
// message, response.content.text for the server's: every event of one SSE body is on
// that line, as the body is one JSON string), its HTTP exchange in Frame.HTTP, and the Mcp-Session-Id as its stream key (the request's header, or
// for the initialize exchange the one the response assigned). Entries without an MCP
// message (a DELETE, an empty GET stream, other traffic in a browser capture) are
// context; one that looks like MCP traffic (an Mcp-Session-Id or MCP-Protocol-Version
// header, an event stream) keeps its exchange (Record.Exchange) for the rules that
// judge HTTP statuses.
//
// Entries are judged in startedDateTime order, as HAR 1.2 asks of a reader that
// needs order (exporters may write them in another): a window of entries is held
// and handed out oldest first, stable for equal times, each keeping its index for
// its location. An entry without a readable startedDateTime keeps its place after
// the entry before it. An entry older than one already handed out (the window was
// full) is judged where it is, and counted in Stats.OutOfOrder.
type harDecoder struct {
	// synthetic is set for HARs that recorders build from their own records
	// (mcpsnoop, mcp-reticle): their HTTP fields are not what crossed the wire.
	synthetic bool
	creator   string

	window      harWindow
	windowBytes int
	lastTime    time.Time // startedDateTime of the last entry read that had one
	handedOut   time.Time // sort time of the last entry handed out
	ended       error     // the entries ended (io.EOF) or broke off: drain the window, then this
	// ahead reads the entries once the document is positioned in its array
	// (Options.EntriesAhead); nil until then, and without it.
	ahead *entriesAhead[harRead]

	// endpoints maps the POST endpoints HTTP+SSE streams named (path and query) to
	// their session key; streams holds those streams' messages not yet placed;
	// clock is the start of the last entry handed out (see har_sse.go).
	endpoints     map[string]string
	endpointOrder []string
	streams       []*sseStream
	clock         time.Time
}

// Bounds of the reordering window: entries, and the bytes of their bodies.
const (
	maxHARWindow      = 4096
	maxHARWindowBytes = 32 << 20
)

// harPending is an entry read and not yet handed out.
type harPending struct {
	index int
	at    time.Time // the sort time: its startedDateTime, or the previous entry's
	size  int
	entry harEntry
	lines harLines
}

// harRead is an entry as read from its Node (readHARRead): what the decoder keeps
// of it, the lines its parts start on, its startedDateTime when it reads as one,
// and its size (harEntry.size).
type harRead struct {
	entry harEntry
	lines harLines
	at    time.Time
	dated bool
	size  int
}

// readHARRead reads an entry that starts on line line; it keeps nothing of n.
func readHARRead(n Node, line int) (harRead, int) {
	e := harRead{entry: readHAREntry(n), lines: harLinesOf(n, line)}
	if t, err := time.Parse(time.RFC3339Nano, e.entry.StartedDateTime); err == nil {
		e.at, e.dated = t, true
	}
	e.size = e.entry.size()
	return e, e.size
}

// harLines are the lines of the file an entry's parts start on.
type harLines struct {
	entry, request, response int
}

// harLinesOf finds the lines of an entry, which starts on line start.
func harLinesOf(entry Node, start int) harLines {
	at := func(path ...string) int {
		v, _ := entry.Path(path...)
		return lineIn(entry, start, v)
	}
	return harLines{entry: start, request: at("request", "postData", "text"), response: at("response", "content", "text")}
}

// harWindow is a min-heap of pending entries by (at, index).
type harWindow []*harPending

func (w harWindow) Len() int { return len(w) }
func (w harWindow) Less(i, j int) bool {
	if !w[i].at.Equal(w[j].at) {
		return w[i].at.Before(w[j].at)
	}
	return w[i].index < w[j].index
}
func (w harWindow) Swap(i, j int) { w[i], w[j] = w[j], w[i] }
func (w *harWindow) Push(x any)   { *w = append(*w, x.(*harPending)) }
func (w *harWindow) Pop() any {
	old := *w
	p := old[len(old)-1]
	old[len(old)-1] = nil
	*w = old[:len(old)-1]
	return p
}

func (*harDecoder) name() string     { return harName }
func (*harDecoder) describe() string { return "a HAR 1.2 capture" }

func (d *harDecoder) noFrames() string {
	return "a HAR capture without any MCP message in its request or response bodies (bodies not recorded, or no MCP traffic)"
}

type harHeader struct {
	Name, Value string
}

type harBody struct {
	MimeType, Text, Encoding string
}

// harEntry is what the decoder reads of a HAR entry. Members of the wrong type
// read as absent (a status written as a string is 0): one odd field does not
// break off the capture.
type harEntry struct {
	StartedDateTime string
	Time            float64
	Request         struct {
		Method   string
		URL      string
		Headers  []harHeader
		PostData *harBody
	}
	Response struct {
		Status     int
		StatusText string
		Headers    []harHeader
		Content    harBody
	}
}

// readHAREntry reads an entry from its Node, copying what it keeps (the entry may
// wait in the reordering window; its Node is gone at the next entry).
func readHAREntry(n Node) harEntry {
	var e harEntry
	str := func(v Node, name string) string {
		m, _ := v.Get(name)
		s, _ := m.Str()
		if !m.Escaped() {
			s = strings.Clone(s)
		}
		return s
	}
	headers := func(v Node) []harHeader {
		hs, _ := v.Get("headers")
		var out []harHeader
		for _, h := range hs.Elements {
			out = append(out, harHeader{Name: str(h, "name"), Value: str(h, "value")})
		}
		return out
	}
	body := func(v Node) harBody {
		return harBody{MimeType: str(v, "mimeType"), Text: str(v, "text"), Encoding: str(v, "encoding")}
	}
	e.StartedDateTime = str(n, "startedDateTime")
	if t, ok := n.Get("time"); ok {
		e.Time, _ = t.Float()
	}
	if req, ok := n.Get("request"); ok {
		e.Request.Method, e.Request.URL, e.Request.Headers = str(req, "method"), str(req, "url"), headers(req)
		if pd, ok := req.Get("postData"); ok && pd.IsObject() {
			b := body(pd)
			e.Request.PostData = &b
		}
	}
	if resp, ok := n.Get("response"); ok {
		if st, ok := resp.Get("status"); ok {
			if v, ok := st.Int(); ok && v >= math.MinInt32 && v <= math.MaxInt32 {
				e.Response.Status = int(v)
			}
		}
		e.Response.StatusText, e.Response.Headers = str(resp, "statusText"), headers(resp)
		if c, ok := resp.Get("content"); ok {
			e.Response.Content = body(c)
		}
	}
	return e
}

func header(hs []harHeader, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func (d *harDecoder) next(r *Reader) error {
	doc := r.docInput
	if d.ahead == nil && !doc.inArray && !doc.done {
		err := doc.enter([]string{"log", "entries"}, func(depth int, key string, raw []byte) {
			if depth == 1 && key == "creator" {
				c, _ := Parse(raw)
				name, _ := c.Get("name")
				d.creator = strings.Clone(name.Text())
				lower := strings.ToLower(d.creator)
				d.synthetic = strings.Contains(lower, "mcpsnoop") || strings.Contains(lower, "reticle")
			}
		})
		if err != nil {
			return err
		}
	}
	if d.ahead == nil && r.opt.EntriesAhead && d.ended == nil && doc.inArray && !doc.done {
		d.ahead = newEntriesAhead(doc, readHARRead)
		r.closers = append(r.closers, closeFunc(d.ahead.Close))
	}
	for d.ended == nil && len(d.window) < maxHARWindow && d.windowBytes < maxHARWindowBytes {
		var (
			e     harRead
			index int
			err   error
		)
		if d.ahead != nil {
			e, index, err = d.ahead.entry()
		} else {
			var n Node
			var line int
			if n, line, err = doc.entry(); err == nil {
				e, _ = readHARRead(n, line)
				index = doc.entries
			}
		}
		if err != nil {
			d.ended = err
			break
		}
		p := &harPending{index: index, entry: e.entry, lines: e.lines}
		r.stats.Lines++
		if e.dated {
			d.lastTime = e.at
		}
		p.at = d.lastTime
		if p.at.Before(d.handedOut) {
			// Older than an entry already judged: judged here, in file order.
			r.stats.OutOfOrder++
			d.entry(r, p.index, p.lines, &p.entry)
			return nil
		}
		p.size = e.size
		d.windowBytes += p.size
		heap.Push(&d.window, p)
	}
	if len(d.window) == 0 {
		if d.releaseAll(r) {
			return nil
		}
		return d.ended
	}
	p := heap.Pop(&d.window).(*harPending)
	d.windowBytes -= p.size
	d.handedOut = p.at
	d.entry(r, p.index, p.lines, &p.entry)
	return nil
}

// size is about what an entry holds in memory: its bodies and headers.
func (e *harEntry) size() int {
	n := len(e.Request.URL) + len(e.Response.Content.Text) + 256
	if e.Request.PostData != nil {
		n += len(e.Request.PostData.Text)
	}
	for _, h := range e.Request.Headers {
		n += len(h.Name) + len(h.Value)
	}
	for _, h := range e.Response.Headers {
		n += len(h.Name) + len(h.Value)
	}
	return n
}

// entry turns one HAR entry into frames (or one context record).
func (d *harDecoder) entry(r *Reader, index int, lines harLines, e *harEntry) {
	req, resp := &e.Request, &e.Response
	path := req.URL
	if u, err := url.Parse(req.URL); err == nil && u.Path != "" {
		path = u.Path
	}
	started, _ := time.Parse(time.RFC3339Nano, e.StartedDateTime)
	d.beforeEntry(started)
	var answered time.Time
	if !started.IsZero() && e.Time > 0 {
		answered = started.Add(time.Duration(e.Time * float64(time.Millisecond)))
	} else {
		answered = started
	}
	reqBody := ""
	if req.PostData != nil {
		reqBody = decodeHARText(req.PostData.Text, req.PostData.Encoding)
	}
	respBody := decodeHARText(resp.Content.Text, resp.Content.Encoding)
	respType := header(resp.Headers, "Content-Type")
	if respType == "" {
		respType = resp.Content.MimeType
	}
	sse := strings.HasPrefix(strings.ToLower(strings.TrimSpace(respType)), "text/event-stream")

	session := header(req.Headers, "Mcp-Session-Id")
	exchange := &HTTP{
		Entry: index, Exchange: index, Method: req.Method, Path: path, Status: resp.Status, StatusText: resp.StatusText,
		ContentType:     mediaType(respType),
		SessionID:       session,
		ProtocolVersion: header(req.Headers, "MCP-Protocol-Version"),
		McpMethod:       header(req.Headers, "Mcp-Method"),
		McpName:         header(req.Headers, "Mcp-Name"),
		Accept:          header(req.Headers, "Accept"),
		LastEventID:     header(req.Headers, "Last-Event-ID"),
	}
	// The HTTP+SSE transport: a GET stream that names its POST endpoint opens a
	// session; a POST to a named endpoint belongs to it.
	var stream *sseStream
	if sse && strings.EqualFold(req.Method, "GET") {
		sseEvents(respBody, func(event, data, _ string) {
			if event == "endpoint" && stream == nil {
				if uri, key, ok := spec.SSEEndpoint(req.URL, data); ok {
					exchange.Endpoint = uri
					stream = &sseStream{key: key, started: started}
					d.rememberEndpoint(uri, key)
				}
			}
		})
	}
	// A body whose framing disagrees with its Content-Type is read as what it
	// is (its messages crossed the wire), and the exchange says how.
	// A body without a Content-Type is read as what it is, and says nothing.
	trimmed, media := strings.TrimSpace(respBody), exchange.ContentType
	framing := ""
	switch {
	case sse && stream == nil && looksLikeJSON([]byte(trimmed)) && !sseHasData(respBody):
		framing = spec.JSONType
	case !sse && spec.StartsEventStream(trimmed):
		framing = spec.EventStreamType
	case !sse && !strings.Contains(media, "json") && looksLikeJSON([]byte(trimmed)):
		framing = spec.JSONType
	}
	if media != "" {
		exchange.BodyAs = framing
	}
	endpointKey := ""
	if stream != nil {
		endpointKey = stream.key
	} else if k, ok := d.endpoints[requestURI(req.URL)]; ok && session == "" {
		exchange.Endpoint, endpointKey = requestURI(req.URL), k
	}
	mcp := session != "" || exchange.ProtocolVersion != "" || exchange.McpMethod != "" || sse ||
		endpointKey != "" || exchange.OpensStream() || isJSONRPCBody(reqBody) || isJSONRPCBody(respBody)
	if !mcp {
		r.queueContext(lines.entry, index, fmt.Sprintf("HTTP %s %s %d %s (no MCP message)", req.Method, path, resp.Status, resp.StatusText))
		return
	}
	key := session
	if key == "" {
		key = header(resp.Headers, "Mcp-Session-Id")
	}
	if endpointKey != "" {
		key = endpointKey
	}
	if d.synthetic {
		exchange = nil
	}
	base := Frame{Source: r.name, Line: lines.request, Entry: index, StreamKey: key, HTTP: exchange, Offset: -1}
	n := 0
	if strings.TrimSpace(reqBody) != "" {
		f := base
		f.view = r.newView()
		f.Time, f.Dir = started, spec.C2S
		bodyFrame(&f, []byte(reqBody), "request body")
		d.beforeClient(r, key, &f)
		r.queueFrame(f)
		d.afterClient(r, key, &f)
		n++
	}
	var inResponse *HTTP
	if exchange != nil {
		c := *exchange
		c.InResponse = true
		inResponse = &c
	}
	respond := func(body []byte, what, eventID string) {
		f := base
		f.EventID = strings.Clone(eventID)
		f.view = r.newView()
		f.HTTP = inResponse
		f.Line = lines.response
		f.Time, f.Dir = answered, spec.S2C
		bodyFrame(&f, body, what)
		r.queueFrame(f)
		n++
	}
	held := 0
	switch {
	case stream != nil:
		// An HTTP+SSE session's stream: its messages wait for their place.
		sseEvents(respBody, func(event, data, id string) {
			if event == "endpoint" {
				return // the URI to POST messages to, not a message
			}
			f := base
			f.view = r.newView()
			f.HTTP = inResponse
			f.Line = lines.response
			f.Dir = spec.S2C
			f.EventID = strings.Clone(id)
			bodyFrame(&f, []byte(data), "SSE event data")
			stream.held = append(stream.held, f)
			stream.bytes += len(f.Raw)
			held++
		})
		d.hold(stream)
		d.settle(r, stream)
	case sse && framing == "", framing == spec.EventStreamType:
		last := sseEvents(respBody, func(event, data, id string) {
			if event == "endpoint" {
				// The 2024-11-05 HTTP+SSE transport's first event: the URI to POST
				// messages to, not a message.
				return
			}
			respond([]byte(data), "SSE event data", id)
		})
		if sse && exchange != nil {
			// The frames hold the exchange (and its copy for the response):
			// they read it once the entry is done.
			exchange.StreamLastID, inResponse.StreamLastID = last, last
		}
	case trimmed != "" && (strings.Contains(media, "json") || framing == spec.JSONType):
		respond([]byte(respBody), "response body", "")
	}
	if n == 0 && held == 0 {
		what := "no MCP message"
		if sse {
			what = "an event stream with no messages"
		}
		text := fmt.Sprintf("HTTP %s %s %d %s (%s)", req.Method, path, resp.Status, resp.StatusText, what)
		if exchange == nil {
			r.queueContext(lines.entry, index, text)
			return
		}
		// An exchange without a message (a GET, a DELETE, a POST whose body was not
		// recorded): context that rules can still judge by its status (MCP0005).
		r.queueExchange(lines.entry, index, text, &Exchange{HTTP: exchange, StreamKey: key, Time: started})
		return
	}
	r.stats.FrameLines++
}

// bodyFrame decodes one HTTP body (or SSE data) into f; a body that is not JSON is an
// invalid frame.
func bodyFrame(f *Frame, body []byte, what string) {
	body = bytes.TrimSpace(body)
	decodeJSON(f, body, what)
}

// isJSONRPCBody reports whether a body is JSON that looks like a JSON-RPC message or batch.
func isJSONRPCBody(body string) bool {
	t := strings.TrimSpace(body)
	if t == "" || (t[0] != '{' && t[0] != '[') || !strings.Contains(t, `"jsonrpc"`) {
		return false
	}
	return validJSON([]byte(t))
}

// decodeHARText undoes HAR's optional base64 encoding of a body.
func decodeHARText(text, encoding string) string {
	if !strings.EqualFold(encoding, "base64") {
		return text
	}
	b, err := base64.StdEncoding.DecodeString(text)
	if err != nil {
		return text
	}
	return string(b)
}

// sseHasData reports whether an event stream's body holds an event with data.
func sseHasData(body string) bool {
	found := false
	sseEvents(body, func(string, string, string) { found = true })
	return found
}

// sseEvents splits a text/event-stream body into events and calls emit with the type
// (the event field, "" for the default "message"), the data and the event's own id
// field ("" when it had none) of each event that has data (priming events, comments
// and retry-only events carry none). Lines end in CRLF,
// LF or CR; data lines of one event are joined by LF. An event the capture cut off
// before its blank line is still emitted: what it holds was received. It returns
// the stream's last event id (the last id field of any event, priming events
// included: what a client that read the stream resumes it from).
func sseEvents(body string, emit func(event, data, id string)) (last string) {
	// An event's data is its data lines joined by newlines: most events have
	// one, handed over as it stands in body; data joins the lines of the others.
	var data strings.Builder
	first, lines := "", 0
	event, id := "", ""
	dispatch := func() {
		switch {
		case lines == 1 && first != "":
			emit(event, first, id)
		case lines > 1:
			emit(event, data.String(), id)
		}
		data.Reset()
		first, lines = "", 0
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
			// comment
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
				switch lines {
				case 0:
					first = value
				case 1:
					data.WriteString(first)
					fallthrough
				default:
					data.WriteByte('\n')
					data.WriteString(value)
				}
				lines++
			}
		}
	}
	dispatch()
	return last
}

// harFormat is the har format's entry in the table of input formats (its
// description is the decoder's own, describe).
var harFormat = format{
	name:     harName,
	document: true,
	newDoc:   func() docDecoder { return &harDecoder{} },
}
