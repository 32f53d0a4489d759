package frame_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
)

// The 2024-11-05 HTTP+SSE transport opens its GET stream with an "endpoint" event whose
// data is the URI to POST messages to: it is not a message, and the messages after it
// are. The stream starts before the initialize POST it answers: its result comes out
// after the POST, in the session the endpoint names.
func TestHARSSEEndpointEventIsNoMessage(t *testing.T) {
	doc := harDoc(
		harEntry("GET", "", "", 200, `{"name":"Content-Type","value":"text/event-stream"}`, "text/event-stream",
			"event: endpoint\ndata: /message?sessionId=abc\n\n"+
				"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}}\n\n"),
		atEndpoint(harEntry("POST", "", initReq, 202, `{"name":"Content-Type","value":"text/plain"}`, "text/plain", "Accepted")),
	)
	recs, st := read(t, doc, frame.Options{})
	checkCounts(t, recs, st)
	frames := framesOf(recs)
	if st.Rejected != 0 || len(frames) != 2 {
		t.Fatalf("stats %+v, %d frames", st, len(frames))
	}
	if f := frames[0].Frame; f.Kind != frame.KindRequest || f.Method != "initialize" || f.Entry != 2 || f.StreamKey != "abc" || f.HTTP.Endpoint != "/message?sessionId=abc" {
		t.Errorf("first frame: %s", describe(f))
	}
	if f := frames[1].Frame; f.Kind != frame.KindResult || f.Entry != 1 || f.StreamKey != "abc" || f.HTTP.Endpoint != "/message?sessionId=abc" {
		t.Errorf("second frame: %s", describe(f))
	}
}

// atEndpoint moves a test entry to the endpoint URI of the streams above.
func atEndpoint(entry string) string {
	return strings.Replace(entry, "http://h/mcp?x=1", "http://h/message?sessionId=abc", 1)
}

// On the HTTP+SSE transport every server message travels on the stream: a response
// comes out after the POST of its request (with the events before it), a server
// request before the POST that answers it, and what nothing forces out (a trailing
// notification) at the end. POSTs to another endpoint belong to another session.
func TestHARSSEStreamPlacedAmongPosts(t *testing.T) {
	event := func(msg string) string { return "event: message\ndata: " + msg + "\n\n" }
	accepted := func(body string) string {
		return atEndpoint(harEntry("POST", "", body, 202, `{"name":"Content-Type","value":"text/plain"}`, "text/plain", "Accepted"))
	}
	doc := harDoc(
		harEntry("GET", "", "", 200, `{"name":"Content-Type","value":"text/event-stream"}`, "text/event-stream",
			"event: endpoint\ndata: /message?sessionId=abc\n\n"+
				event(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)+
				event(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)+
				event(`{"jsonrpc":"2.0","id":0,"method":"roots/list"}`)+
				event(`{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)+
				event(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)),
		accepted(initReq),
		accepted(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		accepted(`{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`),
		accepted(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		harEntry("POST", "", `{"jsonrpc":"2.0","id":9,"method":"ping"}`, 202, "", "text/plain", "Accepted"),
	)
	recs, st := read(t, doc, frame.Options{})
	checkCounts(t, recs, st)
	var got []string
	for _, r := range framesOf(recs) {
		f := r.Frame
		what := f.Method
		if what == "" {
			what = "response"
		}
		got = append(got, fmt.Sprintf("%d %s %s id=%s key=%s", f.Entry, f.Dir, what, f.ID, f.StreamKey))
	}
	want := []string{
		"2 c2s initialize id=0 key=abc",
		"1 s2c response id=0 key=abc",
		"3 c2s notifications/initialized id= key=abc",
		"1 s2c notifications/message id= key=abc",
		"1 s2c roots/list id=0 key=abc",
		"4 c2s response id=0 key=abc",
		"5 c2s tools/list id=1 key=abc",
		"1 s2c response id=1 key=abc",
		"6 c2s ping id=9 key=",
		"1 s2c notifications/tools/list_changed id= key=abc",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("frames in order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
