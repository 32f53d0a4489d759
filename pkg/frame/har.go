package frame

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
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
// Every frame of an entry has the entry's 1-based index as its line, its HTTP exchange
// in Frame.HTTP, and the Mcp-Session-Id as its stream key (the request's header, or
// for the initialize exchange the one the response assigned). Entries without an MCP
// message (a DELETE, an empty GET stream, other traffic in a browser capture) are
// context.
type harDecoder struct {
	// synthetic is set for HARs that recorders build from their own records
	// (mcpsnoop, mcp-reticle): their HTTP fields are not what crossed the wire.
	synthetic bool
	creator   string
}

func (*harDecoder) name() string     { return harName }
func (*harDecoder) describe() string { return "a HAR 1.2 capture" }

func (d *harDecoder) noFrames() string {
	return "a HAR capture without any MCP message in its request or response bodies (bodies not recorded, or no MCP traffic)"
}

type harHeader struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harBody struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
	Encoding string `json:"encoding"`
}

type harEntry struct {
	StartedDateTime string  `json:"startedDateTime"`
	Time            float64 `json:"time"`
	Request         struct {
		Method   string      `json:"method"`
		URL      string      `json:"url"`
		Headers  []harHeader `json:"headers"`
		PostData *harBody    `json:"postData"`
	} `json:"request"`
	Response struct {
		Status     int         `json:"status"`
		StatusText string      `json:"statusText"`
		Headers    []harHeader `json:"headers"`
		Content    harBody     `json:"content"`
	} `json:"response"`
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
	if !doc.inArray && !doc.done {
		err := doc.enter([]string{"log", "entries"}, func(depth int, key string, dec *json.Decoder) error {
			if depth == 1 && key == "creator" {
				var c struct {
					Name string `json:"name"`
				}
				if err := dec.Decode(&c); err != nil {
					return err
				}
				d.creator = c.Name
				name := strings.ToLower(c.Name)
				d.synthetic = strings.Contains(name, "mcpsnoop") || strings.Contains(name, "reticle")
				return nil
			}
			return skipValue(dec)
		})
		if err != nil {
			return err
		}
	}
	var e harEntry
	if err := doc.entry(&e); err != nil {
		return err
	}
	r.stats.Lines++
	d.entry(r, doc.entries, &e)
	return nil
}

// entry turns one HAR entry into frames (or one context record).
func (d *harDecoder) entry(r *Reader, index int, e *harEntry) {
	req, resp := &e.Request, &e.Response
	path := req.URL
	if u, err := url.Parse(req.URL); err == nil && u.Path != "" {
		path = u.Path
	}
	started, _ := time.Parse(time.RFC3339Nano, e.StartedDateTime)
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
		Entry: index, Method: req.Method, Path: path, Status: resp.Status, StatusText: resp.StatusText,
		SessionID:       session,
		ProtocolVersion: header(req.Headers, "MCP-Protocol-Version"),
		McpMethod:       header(req.Headers, "Mcp-Method"),
		McpName:         header(req.Headers, "Mcp-Name"),
	}
	mcp := session != "" || exchange.ProtocolVersion != "" || exchange.McpMethod != "" || sse ||
		isJSONRPCBody(reqBody) || isJSONRPCBody(respBody)
	if !mcp {
		r.queueContext(index, fmt.Sprintf("HTTP %s %s %d %s (no MCP message)", req.Method, path, resp.Status, resp.StatusText))
		return
	}
	key := session
	if key == "" {
		key = header(resp.Headers, "Mcp-Session-Id")
	}
	if d.synthetic {
		exchange = nil
	}
	base := Frame{Source: r.name, Line: index, StreamKey: key, HTTP: exchange, Offset: -1}
	n := 0
	if strings.TrimSpace(reqBody) != "" {
		f := base
		f.Time, f.Dir = started, spec.C2S
		bodyFrame(&f, []byte(reqBody), "request body")
		r.queueFrame(f)
		n++
	}
	var inResponse *HTTP
	if exchange != nil {
		c := *exchange
		c.InResponse = true
		inResponse = &c
	}
	respond := func(body []byte, what string) {
		f := base
		f.HTTP = inResponse
		f.Time, f.Dir = answered, spec.S2C
		bodyFrame(&f, body, what)
		r.queueFrame(f)
		n++
	}
	switch {
	case sse:
		sseEvents(respBody, func(event, data string) {
			if event == "endpoint" {
				// The 2024-11-05 HTTP+SSE transport's first event: the URI to POST
				// messages to, not a message.
				return
			}
			respond([]byte(data), "SSE event data")
		})
	case strings.TrimSpace(respBody) != "" && (strings.Contains(strings.ToLower(respType), "json") || looksLikeJSON([]byte(strings.TrimSpace(respBody)))):
		respond([]byte(respBody), "response body")
	}
	if n == 0 {
		what := "no MCP message"
		if sse {
			what = "an event stream with no messages"
		}
		r.queueContext(index, fmt.Sprintf("HTTP %s %s %d %s (%s)", req.Method, path, resp.Status, resp.StatusText, what))
	}
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

// sseEvents splits a text/event-stream body into events and calls emit with the type
// (the event field, "" for the default "message") and the data of each event that has
// any (priming events, comments and retry-only events carry none). Lines end in CRLF,
// LF or CR; data lines of one event are joined by LF. An event the capture cut off
// before its blank line is still emitted: what it holds was received.
func sseEvents(body string, emit func(event, data string)) {
	var data strings.Builder
	hasData := false
	event := ""
	dispatch := func() {
		if hasData && data.Len() > 0 {
			emit(event, data.String())
		}
		data.Reset()
		hasData = false
		event = ""
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
}
