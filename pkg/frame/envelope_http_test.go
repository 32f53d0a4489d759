package frame_test

import (
	"errors"
	"io"
	"os"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// httpRecord is what a test keeps of one record of an HTTP capture.
type httpRecord struct {
	kind      frame.RecordKind
	line      int
	entry     int
	http      *frame.HTTP
	streamKey string
}

func readHTTP(t *testing.T, path string) []httpRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := frame.NewReader(path, f, frame.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var out []httpRecord
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		r := httpRecord{kind: rec.Kind, line: rec.Line, entry: rec.Entry}
		switch {
		case rec.Frame != nil:
			r.http, r.streamKey = rec.Frame.HTTP, rec.Frame.StreamKey
		case rec.Exchange != nil:
			r.http, r.streamKey = rec.Exchange.HTTP, rec.Exchange.StreamKey
		}
		out = append(out, r)
	}
}

// TestEnvelopeHTTPMember reads the http member record --http writes: a client's
// record has the request line and headers, a server's record the status, paired
// with its request by the exchange number; a record without a message is context
// that carries its exchange.
func TestEnvelopeHTTPMember(t *testing.T) {
	recs := readHTTP(t, "../../fixtures/real/http/mcp-lite-get-refused.jsonl")
	if len(recs) < 13 {
		t.Fatalf("%d records", len(recs))
	}
	session := recs[0].streamKey
	if len(session) != 36 {
		t.Fatalf("stream key %q, want the Mcp-Session-Id", session)
	}
	tests := []struct {
		line int
		kind frame.RecordKind
		want frame.HTTP
	}{
		{1, frame.RecordFrame, frame.HTTP{Exchange: 1, Method: "POST", Path: "/mcp", Live: true, Accept: "application/json, text/event-stream"}},
		{2, frame.RecordFrame, frame.HTTP{Exchange: 1, Method: "POST", Path: "/mcp", Status: 200, StatusText: "OK", ContentType: "application/json", InResponse: true, Live: true, Accept: "application/json, text/event-stream"}},
		{3, frame.RecordFrame, frame.HTTP{Exchange: 2, Method: "POST", Path: "/mcp", SessionID: session, ProtocolVersion: "2025-03-26", Live: true, Accept: "application/json, text/event-stream"}},
		{4, frame.RecordContext, frame.HTTP{Exchange: 2, Method: "POST", Path: "/mcp", SessionID: session, ProtocolVersion: "2025-03-26", Status: 202, StatusText: "Accepted", InResponse: true, Live: true, Accept: "application/json, text/event-stream"}},
		{5, frame.RecordContext, frame.HTTP{Exchange: 3, Method: "GET", Path: "/mcp", SessionID: session, ProtocolVersion: "2025-03-26", Live: true, Accept: "text/event-stream"}},
		{6, frame.RecordContext, frame.HTTP{Exchange: 3, Method: "GET", Path: "/mcp", SessionID: session, ProtocolVersion: "2025-03-26", Status: 400, StatusText: "Bad Request", ContentType: "text/plain", InResponse: true, Live: true, Accept: "text/event-stream"}},
		// The end of the tools/list event stream: its status, and the content type the
		// stream's first record had.
		{9, frame.RecordContext, frame.HTTP{Exchange: 4, Method: "POST", Path: "/mcp", SessionID: session, ProtocolVersion: "2025-03-26", Status: 200, StatusText: "OK", ContentType: "text/event-stream", InResponse: true, Live: true, Accept: "application/json, text/event-stream"}},
		{13, frame.RecordContext, frame.HTTP{Exchange: 6, Method: "DELETE", Path: "/mcp", SessionID: session, ProtocolVersion: "2025-03-26", Live: true, Accept: "*/*"}},
	}
	for _, tt := range tests {
		r := recs[tt.line-1]
		if r.line != tt.line || r.kind != tt.kind || r.http == nil {
			t.Errorf("line %d: record at line %d, kind %v, http %+v; want kind %v with an exchange", tt.line, r.line, r.kind, r.http, tt.kind)
			continue
		}
		if *r.http != tt.want {
			t.Errorf("line %d: http\n %+v, want\n %+v", tt.line, *r.http, tt.want)
		}
		if r.streamKey != session {
			t.Errorf("line %d: stream key %q, want %q", tt.line, r.streamKey, session)
		}
	}
	// The recorder's own events carry no exchange.
	if last := recs[len(recs)-1]; last.kind != frame.RecordContext || last.http != nil {
		t.Errorf("last record (the recorder's stop): kind %v, http %+v", last.kind, last.http)
	}
}

// TestHARExchangeWithoutMessage: a HAR entry of MCP traffic without a message (a
// DELETE) is context that carries its exchange, at the entry's line and index.
func TestHARExchangeWithoutMessage(t *testing.T) {
	recs := readHTTP(t, "../../fixtures/rules/MCP0005-fires-delete-refused.har")
	last := recs[len(recs)-1]
	want := frame.HTTP{Entry: 5, Exchange: 5, Method: "DELETE", Path: "/mcp", Status: 400, StatusText: "Bad Request", ContentType: "text/plain",
		SessionID: "3V2CNDVCSPW44LNMFIINV67EMS", ProtocolVersion: "2025-11-25"}
	if last.kind != frame.RecordContext || last.entry != 5 || last.line != 264 || last.http == nil || *last.http != want || last.streamKey != want.SessionID {
		t.Fatalf("DELETE entry: kind %v entry %d line %d key %q http %+v\nwant context, entry 5, line 264, http %+v", last.kind, last.entry, last.line, last.streamKey, last.http, want)
	}
}
