package frame_test

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// The 2024-11-05 HTTP+SSE transport opens its GET stream with an "endpoint" event whose
// data is the URI to POST messages to: it is not a message, and the messages after it
// are.
func TestHARSSEEndpointEventIsNoMessage(t *testing.T) {
	doc := harDoc(
		harEntry("GET", "", "", 200, `{"name":"Content-Type","value":"text/event-stream"}`, "text/event-stream",
			"event: endpoint\ndata: /message?sessionId=abc\n\n"+
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\n"),
		harEntry("POST", "", initReq, 202, `{"name":"Content-Type","value":"text/plain"}`, "text/plain", "Accepted"),
	)
	recs, st := read(t, doc, frame.Options{})
	checkCounts(t, recs, st)
	frames := framesOf(recs)
	if st.Rejected != 0 || len(frames) != 2 {
		t.Fatalf("stats %+v, %d frames", st, len(frames))
	}
	if f := frames[0].Frame; f.Kind != frame.KindResult || f.Entry != 1 {
		t.Errorf("first frame: %s", describe(f))
	}
	if f := frames[1].Frame; f.Kind != frame.KindRequest || f.Method != "initialize" || f.Entry != 2 {
		t.Errorf("second frame: %s", describe(f))
	}
}
