package session_test

import (
	"testing"

	"github.com/mcpsleuth/mcpsleuth/pkg/frame"
	"github.com/mcpsleuth/mcpsleuth/pkg/spec"
)

// A bare log of Go SDK peers: the server's ping takes id 1 (the number the client's
// initialize used) and its elicitation/create id 2 while the client's tools/call id 2
// is in flight; the client's error for the elicitation and the server's tool result
// both carry id 2.
func TestBareServerRequestsSharingClientIDs(t *testing.T) {
	tr := runFile(t, "review/gosdk-server-requests-bare-2025-11-25.jsonl")
	ping := tr.at(t, 5)
	if ping.Method != "ping" || ping.Dir != spec.S2C {
		t.Fatalf("line 5: %s %s (%s), want the server's ping", ping.Method, ping.Dir, ping.DirReason)
	}
	if pong := tr.at(t, 6); pong.Dir != spec.C2S || pong.Request == nil || pong.Request.Line != 5 {
		t.Errorf("line 6: %s, answers %+v; want the client's answer to the ping at line 5", pong.Dir, pong.Request)
	}
	ambiguous := tr.at(t, 8)
	if ambiguous.Dir != spec.DirUnknown || ambiguous.Request != nil || ambiguous.Orphan != nil {
		t.Errorf("line 8: %s, request %+v, orphan %+v; want an unknown direction and no pairing", ambiguous.Dir, ambiguous.Request, ambiguous.Orphan)
	}
	result := tr.at(t, 9)
	if result.Dir != spec.S2C || result.Request == nil || result.Request.Line != 4 {
		t.Fatalf("line 9: %s (%s), answers %+v; want the server's answer to tools/call at line 4", result.Dir, result.DirReason, result.Request)
	}
	elicit := tr.requestAt(t, 7)
	if elicit.ResponseLine != 8 || elicit.AmbiguousResponse != 0 {
		t.Errorf("elicitation/create at line 7: ResponseLine %d, AmbiguousResponse %d; want answered at line 8", elicit.ResponseLine, elicit.AmbiguousResponse)
	}
	if out := tr.onlySession(t).Outstanding(); len(out) != 0 {
		t.Errorf("outstanding at the end: %+v", out)
	}
}

// When the capture ends before the other request is answered, both requests stay
// outstanding, each marked with the response that answered one of them.
func TestAmbiguousResponseLeftOpen(t *testing.T) {
	text := lines(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"confirm","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"Proceed?","requestedSchema":{"type":"object","properties":{}}}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"declined"}}`,
	)
	tr := run(t, "ambiguous", text, frame.Options{})
	out := tr.onlySession(t).Outstanding()
	if len(out) != 2 {
		t.Fatalf("outstanding: %+v, want the two requests with id 2", out)
	}
	for _, r := range out {
		if r.AmbiguousResponse != 6 {
			t.Errorf("%s at line %d: AmbiguousResponse %d, want 6", r.Method, r.Line, r.AmbiguousResponse)
		}
	}
}
