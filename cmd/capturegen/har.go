package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// writeHAR writes one HAR 1.2 document (pretty-printed, as browser and proxy exports
// are) of Streamable HTTP sessions of 500 exchanges, 2025-06-18 and 2025-11-25 in
// turn, with the healthy profile's traffic and payload sizes: one entry per client
// message, a POST to /mcp with the message as request.postData.text. The initialize
// response (JSON) assigns the Mcp-Session-Id; every later request carries it and
// MCP-Protocol-Version; notifications/initialized is answered 202 with no body;
// tools/list and ping are answered with application/json; tools/call with
// text/event-stream (progress, now and then a log message, then the result; under
// 2025-11-25 after a priming event with an event id and empty data); each session
// ends with a DELETE. The document is written entry by entry.
func writeHAR(o *output, limit int64) {
	h := &harWriter{conversation: newConversation(o, nil, 5)} // no line format: entries are written whole
	o.writeString("{\n  \"log\": {\n    \"version\": \"1.2\",\n    \"creator\": {\n      \"name\": \"capturegen\",\n      \"version\": \"1.0\"\n    },\n    \"entries\": [\n")
	for i := 0; o.n < limit; i++ {
		h.session([]string{"2025-06-18", "2025-11-25"}[i%2], 500)
	}
	o.writeString("\n    ]\n  }\n}\n")
}

type harWriter struct {
	*conversation
	entries   int
	rev       string
	sessionID string // its Mcp-Session-Id
	events    int    // SSE event ids given out in the session
	req       []byte // the request body
	resp      []byte // the response body
	buf       []byte // the entry
}

// exchange is one HTTP request and its response.
type exchange struct {
	method     string // POST or DELETE
	status     int
	respType   string // the response's Content-Type; "" for none
	initialize bool   // the request carries no session headers yet; the response assigns the session id
}

func (h *harWriter) session(rev string, n int) {
	h.rev, h.events = rev, 0
	h.sessionID = fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", h.rng.Uint32(), h.rng.IntN(1<<16), h.rng.IntN(1<<12), 0x8000|h.rng.IntN(1<<14), h.rng.Uint64()&(1<<48-1))

	h.req = appendInitialize(h.req[:0], rev, "client-b", "3.2.0")
	h.resp = appendInitializeResult(h.resp[:0], rev, "invoices", "1.9.3", "")
	h.entry(exchange{method: "POST", status: 200, respType: "application/json", initialize: true})
	h.req = append(h.req[:0], initializedNf...)
	h.resp = h.resp[:0]
	h.entry(exchange{method: "POST", status: 202})
	h.req = append(appendRequest(h.req[:0], 1, "tools/list"), '}')
	h.resp = append(appendResult(h.resp[:0], 1), tools...)
	h.resp = append(h.resp, '}')
	h.entry(exchange{method: "POST", status: 200, respType: "application/json"})
	for i := 2; i < n; i++ {
		if i%5 == 0 {
			h.req = append(appendRequest(h.req[:0], i, "ping"), '}')
			h.resp = appendEmptyResult(h.resp[:0], i)
			h.entry(exchange{method: "POST", status: 200, respType: "application/json"})
			continue
		}
		id := strconv.Itoa(i)
		tok := `"p` + id + `"`
		h.req = appendCallTool(h.req[:0], i, "get_invoice")
		h.req = append(h.req, `"number":"INV-2025-`+id+`"`...)
		h.req = closeCallTool(h.req, tok)
		h.resp = h.primer(h.resp[:0])
		if i%5 == 1 {
			h.msg = appendLog(h.msg[:0], "info", "invoices", "cache refreshed at "+h.now.Format(time.RFC3339))
			h.resp = h.event(h.resp, h.msg)
		}
		h.msg = appendProgress(h.msg[:0], tok, 1, 2, "")
		h.resp = h.event(h.resp, h.msg)
		h.msg = appendTextResultOpen(h.msg[:0], i)
		h.msg = append(h.msg, `Invoice INV-2025-`+id+`: ACME Corp, 3 lines, total 129.90 EUR, due 2025-07-01.\n`+strings.Repeat(`Line item detail.\n`, 20)...)
		h.msg = closeTextResult(h.msg)
		h.resp = h.event(h.resp, h.msg)
		h.entry(exchange{method: "POST", status: 200, respType: "text/event-stream"})
	}
	h.req, h.resp = h.req[:0], h.resp[:0]
	h.entry(exchange{method: "DELETE", status: 200})
}

// primer is the event a 2025-11-25 server sends first on a stream: an id, no data.
func (h *harWriter) primer(b []byte) []byte {
	if h.rev < "2025-11-25" {
		return b
	}
	h.events++
	return fmt.Appendf(b, "id: %s-%d\ndata: \n\n", h.sessionID[:8], h.events)
}

// event appends one SSE message event carrying msg.
func (h *harWriter) event(b, msg []byte) []byte {
	b = append(b, "event: message\n"...)
	if h.rev >= "2025-11-25" {
		h.events++
		b = fmt.Appendf(b, "id: %s-%d\n", h.sessionID[:8], h.events)
	}
	b = append(b, "data: "...)
	b = append(b, msg...)
	return append(b, "\n\n"...)
}

// entry writes one HAR entry of the request body h.req and response body h.resp.
func (h *harWriter) entry(x exchange) {
	h.wait(1, 30)
	wait := 1 + h.rng.Float64()*25
	b := h.buf[:0]
	if h.entries > 0 {
		b = append(b, ",\n"...)
	}
	h.entries++
	b = append(b, "      {\n        \"startedDateTime\": \""...)
	b = h.now.AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = fmt.Appendf(b, "\",\n        \"time\": %.3f,\n        \"request\": {\n          \"method\": \"%s\",\n          \"url\": \"http://127.0.0.1:8931/mcp\",\n          \"httpVersion\": \"HTTP/1.1\",\n          \"cookies\": [],\n          \"headers\": [", wait+0.2, x.method)
	headers := [][2]string{{"Host", "127.0.0.1:8931"}, {"User-Agent", "client-b/3.2.0"}, {"Accept", "application/json, text/event-stream"}}
	if len(h.req) > 0 {
		headers = append(headers, [2]string{"Content-Type", "application/json"}, [2]string{"Content-Length", strconv.Itoa(len(h.req))})
	}
	if !x.initialize {
		headers = append(headers, [2]string{"Mcp-Session-Id", h.sessionID}, [2]string{"Mcp-Protocol-Version", h.rev})
	}
	b = appendHeaders(b, headers)
	b = append(b, "],\n          \"queryString\": [],\n"...)
	if len(h.req) > 0 {
		b = append(b, "          \"postData\": {\n            \"mimeType\": \"application/json\",\n            \"text\": \""...)
		b = appendEscaped(b, h.req)
		b = append(b, "\"\n          },\n"...)
	}
	b = fmt.Appendf(b, "          \"headersSize\": -1,\n          \"bodySize\": %d\n        },\n        \"response\": {\n          \"status\": %d,\n          \"statusText\": \"%s\",\n          \"httpVersion\": \"HTTP/1.1\",\n          \"cookies\": [],\n          \"headers\": [",
		len(h.req), x.status, statusText(x.status))
	headers = headers[:0]
	if x.respType != "" {
		headers = append(headers, [2]string{"Content-Type", x.respType})
		if x.respType == "text/event-stream" {
			headers = append(headers, [2]string{"Cache-Control", "no-cache"}, [2]string{"Transfer-Encoding", "chunked"})
		} else {
			headers = append(headers, [2]string{"Content-Length", strconv.Itoa(len(h.resp))})
		}
	}
	if x.initialize || x.respType != "" {
		headers = append(headers, [2]string{"Mcp-Session-Id", h.sessionID})
	}
	b = appendHeaders(b, headers)
	b = fmt.Appendf(b, "],\n          \"content\": {\n            \"size\": %d,\n            \"mimeType\": \"%s\"", len(h.resp), x.respType)
	if len(h.resp) > 0 {
		b = append(b, ",\n            \"text\": \""...)
		b = appendEscaped(b, h.resp)
		b = append(b, '"')
	}
	b = fmt.Appendf(b, "\n          },\n          \"redirectURL\": \"\",\n          \"headersSize\": -1,\n          \"bodySize\": %d\n        },\n        \"cache\": {},\n        \"timings\": {\n          \"send\": 0.1,\n          \"wait\": %.3f,\n          \"receive\": 0.1\n        }\n      }",
		len(h.resp), wait)
	h.o.write(b)
	h.buf = b
	h.now = h.now.Add(time.Duration(wait * float64(time.Millisecond)))
}

func appendHeaders(b []byte, headers [][2]string) []byte {
	for i, hd := range headers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n            {\n              \"name\": \""...)
		b = append(b, hd[0]...)
		b = append(b, "\",\n              \"value\": \""...)
		b = append(b, hd[1]...)
		b = append(b, "\"\n            }"...)
	}
	if len(headers) > 0 {
		b = append(b, "\n          "...)
	}
	return b
}

func statusText(status int) string {
	switch status {
	case 200:
		return "OK"
	case 202:
		return "Accepted"
	}
	return ""
}
